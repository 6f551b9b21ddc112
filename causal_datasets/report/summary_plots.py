"""Plots of the runs' summaries: a slice's metric as lines or a radar, grouped bars of a mapping (or of a
mapping inside each slice entry), and a scatter or curves of scalar metrics across runs. Each draws the summary's
95% intervals as error bars where it has them."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

from matplotlib.axes import Axes

from causal_datasets.report.plot_style import (
    HATCHES,
    LINE_STYLES,
    MARKERS,
    Number,
    error_bars,
    headline_intervals,
    is_number,
    legend,
    run_group,
    slice_axis,
    slice_error_bars,
    slice_intervals,
    value_axis,
)
from causal_datasets.report.runs import Run
from causal_datasets.report.tables import ordered
from causal_datasets.uncertainty import Interval
from causal_datasets.views import MappingBars, NestedBars, RadarPlot, RunCurves, RunScatter, SlicePlot


def _slice_series(runs: Sequence[Run], name: str, metric: str) -> tuple[list[tuple[Run, dict[str, Number]]], list[str]]:
    """Each run with a number for ``metric`` in some entry of slice ``name``, with those numbers; and the
    entries' keys in order (an entry without a number keeps its place on the axis, empty)."""
    series: list[tuple[Run, dict[str, Number]]] = []
    keys: list[str] = []
    for run in runs:
        entries = run.summary.slices.get(name) or {}
        values = {key: entry.get(metric) for key, entry in entries.items()}
        points = {key: value for key, value in values.items() if is_number(value)}
        if points:
            series.append((run, points))
            keys += entries
    return series, ordered(keys)


def slice_plot(plot: SlicePlot, runs: Sequence[Run], axes: Axes) -> bool:
    series, keys = _slice_series(runs, plot.slice, plot.metric)
    if not series:
        return False
    positions = slice_axis(axes, keys)
    for index, (run, points) in enumerate(series):
        drawn = sorted(points, key=positions.__getitem__)
        # later runs are drawn thinner and smaller on top of earlier ones: equal series stay visible
        lines = axes.plot(
            [positions[k] for k in drawn],
            [points[k] for k in drawn],
            label=legend(run),
            clip_on=False,
            marker=MARKERS[index % len(MARKERS)],
            linestyle=LINE_STYLES[index % len(LINE_STYLES)],
            linewidth=2.6 - 0.7 * (index % 3),
            markersize=11 - 2.5 * (index % 3),
            markerfacecolor="none",
            markeredgewidth=1.5,
        )
        intervals = slice_intervals(run, plot.slice)
        if any(intervals.get(k, {}).get(plot.metric) for k in drawn):
            error_bars(
                axes,
                [(positions[k], points[k], intervals.get(k, {}).get(plot.metric)) for k in drawn],
                lines[0].get_color(),
            )
        elif plot.error is not None:  # a summary without intervals: ± the entry's own standard error
            entry_errors = {k: (run.summary.slices[plot.slice][k] or {}).get(plot.error) for k in drawn}
            errors = {k: error for k, error in entry_errors.items() if is_number(error)}
            axes.errorbar(
                [positions[k] for k in errors],
                [points[k] for k in errors],
                yerr=list(errors.values()),
                fmt="none",
                ecolor=lines[0].get_color(),
                capsize=4,
                elinewidth=1.2,
            )
    value_axis(axes, [value for _, points in series for value in points.values()])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def mapping_bars(plot: MappingBars, runs: Sequence[Run], axes: Axes) -> bool:
    series = [(run, getattr(run.summary.metrics, plot.field, None) or {}) for run in runs]
    series = [(run, mapping) for run, mapping in series if any(is_number(v) for v in mapping.values())]
    if not series:
        return False
    names = list(dict.fromkeys(name for _, mapping in series for name in mapping))
    width = 0.8 / len(series)
    for index, (run, mapping) in enumerate(series):
        xs = [i - 0.4 + width * (index + 0.5) for i in range(len(names))]
        drawn = [(x, mapping[name], name) for x, name in zip(xs, names, strict=True) if is_number(mapping.get(name))]
        axes.bar(
            [x for x, _, _ in drawn],
            [v for _, v, _ in drawn],
            width=width,
            label=legend(run),
            hatch=HATCHES[index % len(HATCHES)],
            edgecolor="black",
            linewidth=0.6,
        )
        found = headline_intervals(run)
        error_bars(axes, [(x, v, found.get(f"{plot.field}.{name}")) for x, v, name in drawn], "black", thin=True)
        for x, name in zip(xs, names, strict=True):
            if not is_number(mapping.get(name)):  # not reported (e.g. never judged): say so, do not draw a 0
                axes.text(
                    x,
                    0.02,
                    "n/a",
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize="x-small",
                    transform=axes.get_xaxis_transform(),
                )
    axes.set_xticks(range(len(names)), names)
    axes.set_xlim(-0.5, len(names) - 0.5)
    value_axis(axes, [v for _, mapping in series for v in mapping.values() if is_number(v)])
    axes.set_ylabel(plot.ylabel)
    return True


def run_scatter(plot: RunScatter, runs: Sequence[Run], axes: Axes) -> bool:
    points = []
    for run in runs:
        metrics = run.summary.metrics
        x, y = getattr(metrics, plot.x, None), getattr(metrics, plot.y, None)
        if is_number(x) and is_number(y):
            points.append((run_group(run), str(getattr(metrics, plot.label, None)), x, y))
            found = headline_intervals(run)
            color = f"C{list(dict.fromkeys(run_group(r) for r in runs)).index(run_group(run)) % 10}"
            error_bars(axes, [(x, y, found.get(plot.y))], color)
            error_bars(axes, [(y, x, found.get(plot.x))], color, horizontal=True)
    if not points:
        return False
    labels = list(dict.fromkeys(label for _, label, _, _ in points))
    groups = list(dict.fromkeys(group for group, _, _, _ in points))
    for group, label, x, y in points:
        name = f"{group} · {label}"
        shown = name in {text.get_label() for text in axes.lines}
        axes.plot(
            [x],
            [y],
            linestyle="none",
            marker=MARKERS[labels.index(label) % len(MARKERS)],
            markersize=10,
            markerfacecolor="none",
            markeredgewidth=1.6,
            color=f"C{groups.index(group) % 10}",
            label="_" + name if shown else name,
            clip_on=False,
        )
    for index, group in enumerate(groups):
        starts = [(x, y) for g, label, x, y in points if g == group and label == plot.arrow[0]]
        ends = [(x, y) for g, label, x, y in points if g == group and label == plot.arrow[1]]
        if len(starts) == len(ends) == 1:  # one run per regime: the arrow is unambiguous
            axes.annotate(
                "", xy=ends[0], xytext=starts[0], arrowprops={"arrowstyle": "->", "color": f"C{index % 10}", "lw": 1.4}
            )
    value_axis(axes, [y for _, _, _, y in points])
    if all(0 <= x <= 1 for _, _, x, _ in points):
        axes.set_xlim(0, 1)
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def run_curves(plot: RunCurves, runs: Sequence[Run], axes: Axes) -> bool:
    counts = dict(plot.counts)
    lines: dict[tuple[str, str], dict[float, float]] = {}
    bars: dict[tuple[str, str], list[tuple[float, float, Interval | None]]] = {}
    for run in runs:
        metrics = run.summary.metrics
        line = str(getattr(metrics, plot.line, None))
        count, value = getattr(metrics, counts.get(line, ""), None), getattr(metrics, plot.metric, None)
        if is_number(count) and is_number(value):
            lines.setdefault((run_group(run), line), {})[count] = value
            bars.setdefault((run_group(run), line), []).append((count, value, headline_intervals(run).get(plot.metric)))
    if not lines:
        return False
    for index, ((group, line), points) in enumerate(sorted(lines.items())):
        xs = sorted(points)
        drawn = axes.plot(
            xs,
            [points[x] for x in xs],
            label=f"{group} · {line}",
            marker=MARKERS[index % len(MARKERS)],
            linestyle=LINE_STYLES[index % len(LINE_STYLES)],
            markerfacecolor="none",
            markeredgewidth=1.5,
            clip_on=False,
        )
        error_bars(axes, bars[(group, line)], drawn[0].get_color())
    everything = sorted({x for points in lines.values() for x in points})
    if all(float(x).is_integer() for x in everything):
        axes.set_xticks(everything, [f"{x:g}" for x in everything])
    value_axis(axes, [v for points in lines.values() for v in points.values()])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def radar(plot: RadarPlot, runs: Sequence[Run], axes: Axes) -> bool:
    series, keys = _slice_series(runs, plot.slice, plot.metric)
    if not series:
        return False
    angles = [2 * math.pi * index / len(keys) for index in range(len(keys))]
    for index, (run, points) in enumerate(series):
        radii = [points.get(key, math.nan) for key in keys]  # a gap where missing
        lines = axes.plot(
            [*angles, angles[0]],
            [*radii, radii[0]],
            label=legend(run),
            marker=MARKERS[index % len(MARKERS)],
            linestyle=LINE_STYLES[index % len(LINE_STYLES)],
            markerfacecolor="none",
            markeredgewidth=1.5,
        )
        drawn = [(angle, points[key], key) for angle, key in zip(angles, keys, strict=True) if key in points]
        slice_error_bars(axes, run, plot.slice, plot.metric, drawn, lines[0].get_color())
    axes.set_xticks(angles, [textwrap.fill(key, 16) for key in keys], fontsize="x-small")
    numbers = [v for _, points in series for v in points.values()]
    axes.set_ylim(0, 1 if all(0 <= v <= 1 for v in numbers) else max(numbers) * 1.08)
    return True


def nested_bars(plot: NestedBars, runs: Sequence[Run], axes: Axes) -> bool:
    per_run = [
        (run, {key: entry.get(plot.field) or {} for key, entry in (run.summary.slices.get(plot.slice) or {}).items()})
        for run in runs
    ]
    series = list(
        dict.fromkeys(
            (index, name)
            for index, (_, table) in enumerate(per_run)
            for inner in table.values()
            for name, value in inner.items()
            if is_number(value)
        )
    )
    if not series:
        return False
    groups = ordered(key for _, table in per_run for key, inner in table.items() if any(map(is_number, inner.values())))
    width = 0.8 / len(series)
    for position, (index, name) in enumerate(series):
        run, table = per_run[index]
        xs = [g - 0.4 + width * (position + 0.5) for g in range(len(groups))]
        cells = [(x, table.get(group, {}).get(name), group) for x, group in zip(xs, groups, strict=True)]
        drawn = [(x, v, group) for x, v, group in cells if is_number(v)]
        axes.bar(
            [x for x, _, _ in drawn],
            [v for _, v, _ in drawn],
            width=width,
            color=f"C{position % 10}",
            label=name if len(runs) == 1 else f"{legend(run)} · {name}",
            hatch=HATCHES[index % len(HATCHES)],
            edgecolor="black",
            linewidth=0.4,
        )
        slice_error_bars(axes, run, plot.slice, f"{plot.field}.{name}", drawn, "black", thin=True)
    axes.set_xticks(range(len(groups)), [textwrap.fill(g, 14) for g in groups], fontsize="small")
    axes.set_xlim(-0.5, len(groups) - 0.5)
    value_axis(axes, [v for _, table in per_run for inner in table.values() for v in inner.values() if is_number(v)])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True
