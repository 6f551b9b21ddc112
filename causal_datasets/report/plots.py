"""PNG plots of the report: one matplotlib figure (Agg canvas, no pyplot state) per declared plot.

The value axis follows the values drawn: all integers → a count axis from 0 with integer ticks;
otherwise all within [0, 1] → a share axis fixed at 0–1; otherwise from 0 unless a value is negative.
Integer slice values and histogram bins get integer ticks. Each run has its own marker, line style
(or hatch) and legend entry naming the run and its config(s), so equal series stay visible.

Every plot of a summary's numbers (a slice's metric, a mapping's bars, a run's scalars) draws their 95%
intervals as error bars where the summary has them (format 3); a ``SlicePlot``'s ``error`` field (± a
standard error) stands in for runs written before.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from causal_datasets.report.runs import Run
from causal_datasets.report.tables import ordered
from causal_datasets.uncertainty import Interval
from causal_datasets.views import (
    MappingBars,
    NestedBars,
    Plot,
    RadarPlot,
    ResultsHistogram,
    ResultsScatter,
    ResultsTrajectories,
    RunCurves,
    RunScatter,
    SlicePlot,
)

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = ("-", "--", "-.", ":")
HATCHES = ("", "//", "..", "xx", "\\\\", "++")
Number = int | float


def figure(plot: Plot, runs: Sequence[Run]) -> Figure | None:
    """The figure of ``plot`` for ``runs`` (its one Axes is ``figure.axes[0]``); None when no run has data for it."""
    fig = Figure(figsize=(6.4, 4.0 + 0.22 * len(runs)), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.add_subplot(projection="polar" if isinstance(plot, RadarPlot) else None)
    if not _DRAWERS[type(plot)](plot, runs, axes):
        return None
    axes.set_title(plot.title)
    axes.grid(alpha=0.3)
    entries = len(axes.get_legend_handles_labels()[1])
    columns = 1 if entries <= 4 else 3  # many series (one per model): three columns, a taller figure
    fig.set_figheight(4.0 + 0.22 * max(len(runs), math.ceil(entries / columns)))
    axes.legend(
        fontsize="small",
        loc="upper center",
        bbox_to_anchor=(0.5, -0.16),
        frameon=False,  # never over data
        ncols=columns,
    )
    fig.tight_layout()
    return fig


def draw(plot: Plot, runs: Sequence[Run], path: Path) -> bool:
    """Write the PNG of ``plot`` to ``path`` (no timestamp or software in its metadata); False, and no file,
    without data."""
    fig = figure(plot, runs)
    if fig is None:
        return False
    fig.savefig(path, metadata={"Software": None})
    return True


def legend(run: Run) -> str:
    return f"{run.label} · {', '.join(run.summary.dataset.configs)}"


def _slice_plot(plot: SlicePlot, runs: Sequence[Run], axes: Axes) -> bool:
    series, keys = [], []
    for run in runs:
        entries = run.summary.slices.get(plot.slice) or {}
        points = {key: entry.get(plot.metric) for key, entry in entries.items()}
        points = {key: value for key, value in points.items() if _is_number(value)}
        if points:
            series.append((run, points))
            keys += entries  # values without a number stay on the axis, empty
    if not series:
        return False
    positions = _slice_axis(axes, ordered(keys))
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
        intervals = _slice_intervals(run, plot.slice)
        if any(intervals.get(k, {}).get(plot.metric) for k in drawn):
            _error_bars(
                axes,
                [(positions[k], points[k], intervals.get(k, {}).get(plot.metric)) for k in drawn],
                lines[0].get_color(),
            )
        elif plot.error is not None:  # a summary without intervals: ± the entry's own standard error
            errors = {k: (run.summary.slices[plot.slice][k] or {}).get(plot.error) for k in drawn}
            shown = [k for k in drawn if _is_number(errors[k])]
            axes.errorbar(
                [positions[k] for k in shown],
                [points[k] for k in shown],
                yerr=[errors[k] for k in shown],
                fmt="none",
                ecolor=lines[0].get_color(),
                capsize=4,
                elinewidth=1.2,
            )
    _value_axis(axes, [value for _, points in series for value in points.values()])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def _mapping_bars(plot: MappingBars, runs: Sequence[Run], axes: Axes) -> bool:
    series = [(run, getattr(run.summary.metrics, plot.field, None) or {}) for run in runs]
    series = [(run, mapping) for run, mapping in series if any(_is_number(v) for v in mapping.values())]
    if not series:
        return False
    names = list(dict.fromkeys(name for _, mapping in series for name in mapping))
    width = 0.8 / len(series)
    for index, (run, mapping) in enumerate(series):
        xs = [i - 0.4 + width * (index + 0.5) for i in range(len(names))]
        drawn = [(x, mapping[name], name) for x, name in zip(xs, names, strict=True) if _is_number(mapping.get(name))]
        axes.bar(
            [x for x, _, _ in drawn],
            [v for _, v, _ in drawn],
            width=width,
            label=legend(run),
            hatch=HATCHES[index % len(HATCHES)],
            edgecolor="black",
            linewidth=0.6,
        )
        found = _headline_intervals(run)
        _error_bars(axes, [(x, v, found.get(f"{plot.field}.{name}")) for x, v, name in drawn], "black", thin=True)
        for x, name in zip(xs, names, strict=True):
            if not _is_number(mapping.get(name)):  # not reported (e.g. never judged): say so, do not draw a 0
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
    _value_axis(axes, [v for _, mapping in series for v in mapping.values() if _is_number(v)])
    axes.set_ylabel(plot.ylabel)
    return True


def _histogram(plot: ResultsHistogram, runs: Sequence[Run], axes: Axes) -> bool:
    series = []
    for run in runs:
        values = [
            item.value(plot.field)
            for item in run.results
            if item.status == "scored" and (plot.where is None or item.value(plot.where))
        ]
        values = [v for v in values if _is_number(v)]
        if values:
            series.append((run, values))
    if not series:
        return False
    everything = [v for _, values in series for v in values]
    integers = all(isinstance(v, int) for v in everything)
    if plot.bin_width:
        low = math.floor(min(everything) / plot.bin_width)
        bins = [plot.bin_width * b for b in range(low, math.floor(max(everything) / plot.bin_width) + 2)]
    else:
        bins = [b - 0.5 for b in range(int(min(everything)), int(max(everything)) + 2)] if integers else 10
    _, _, patches = axes.hist(
        [values for _, values in series],
        bins=bins,
        label=[legend(run) for run, _ in series],
        edgecolor="black",
        linewidth=0.6,
    )
    for index, container in enumerate(patches if len(series) > 1 else [patches]):
        for patch in container:
            patch.set_hatch(HATCHES[index % len(HATCHES)])
    if integers:
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(bottom=0)
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel("items")
    return True


def _group(run: Run) -> str:
    """Runs of one solver on the same configs belong together (one colour, one line, one arrow)."""
    return f"{run.summary.solver} · {', '.join(run.summary.dataset.configs)}"


def _run_scatter(plot: RunScatter, runs: Sequence[Run], axes: Axes) -> bool:
    points = []
    for run in runs:
        metrics = run.summary.metrics
        x, y = getattr(metrics, plot.x, None), getattr(metrics, plot.y, None)
        if _is_number(x) and _is_number(y):
            points.append((_group(run), str(getattr(metrics, plot.label, None)), x, y))
            found = _headline_intervals(run)
            color = f"C{list(dict.fromkeys(_group(r) for r in runs)).index(_group(run)) % 10}"
            _error_bars(axes, [(x, y, found.get(plot.y))], color)
            _error_bars(axes, [(y, x, found.get(plot.x))], color, horizontal=True)
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
    _value_axis(axes, [y for _, _, _, y in points])
    if all(0 <= x <= 1 for _, _, x, _ in points):
        axes.set_xlim(0, 1)
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def _run_curves(plot: RunCurves, runs: Sequence[Run], axes: Axes) -> bool:
    counts = dict(plot.counts)
    lines: dict[tuple[str, str], dict[float, float]] = {}
    bars: dict[tuple[str, str], list[tuple[float, float, Interval | None]]] = {}
    for run in runs:
        metrics = run.summary.metrics
        line = str(getattr(metrics, plot.line, None))
        count, value = getattr(metrics, counts.get(line, ""), None), getattr(metrics, plot.metric, None)
        if _is_number(count) and _is_number(value):
            lines.setdefault((_group(run), line), {})[count] = value
            bars.setdefault((_group(run), line), []).append((count, value, _headline_intervals(run).get(plot.metric)))
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
        _error_bars(axes, bars[(group, line)], drawn[0].get_color())
    everything = sorted({x for points in lines.values() for x in points})
    if all(float(x).is_integer() for x in everything):
        axes.set_xticks(everything, [f"{x:g}" for x in everything])
    _value_axis(axes, [v for points in lines.values() for v in points.values()])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def _trajectories(plot: ResultsTrajectories, runs: Sequence[Run], axes: Axes) -> bool:
    drawn = []
    for index, run in enumerate(runs):
        series = []
        for item in run.results:
            steps = item.value(plot.field) if item.status == "scored" else None
            values = [_entry(s, plot.metric) for s in steps] if isinstance(steps, list) else []
            if values and all(_is_number(v) for v in values):
                series.append(values)
        if not series:
            continue
        color = f"C{index % 10}"
        for values in series:
            axes.plot(range(1, len(values) + 1), values, color=color, alpha=0.25, linewidth=0.8)
        longest = max(len(v) for v in series)
        mean = [sum(v[min(t, len(v) - 1)] for v in series) / len(series) for t in range(longest)]
        axes.plot(
            range(1, longest + 1),
            mean,
            color=color,
            linewidth=2.4,
            marker=MARKERS[index % len(MARKERS)],
            markevery=max(1, longest // 12),
            label=legend(run),
        )
        drawn += [x for values in series for x in values]
    if not drawn:
        return False
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    _value_axis(axes, drawn)
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def _radar(plot: RadarPlot, runs: Sequence[Run], axes: Axes) -> bool:
    series = []
    for run in runs:
        entries = run.summary.slices.get(plot.slice) or {}
        points = {key: entry.get(plot.metric) for key, entry in entries.items()}
        if any(_is_number(value) for value in points.values()):
            series.append((run, points))
    if not series:
        return False
    keys = ordered(key for _, points in series for key in points)
    angles = [2 * math.pi * index / len(keys) for index in range(len(keys))]
    for index, (run, points) in enumerate(series):
        values = [points.get(key) if _is_number(points.get(key)) else math.nan for key in keys]  # a gap where missing
        lines = axes.plot(
            [*angles, angles[0]],
            [*values, values[0]],
            label=legend(run),
            marker=MARKERS[index % len(MARKERS)],
            linestyle=LINE_STYLES[index % len(LINE_STYLES)],
            markerfacecolor="none",
            markeredgewidth=1.5,
        )
        found = _slice_intervals(run, plot.slice)
        _error_bars(
            axes,
            [
                (angle, value, found.get(key, {}).get(plot.metric))
                for angle, value, key in zip(angles, values, keys, strict=True)
                if _is_number(points.get(key))
            ],
            lines[0].get_color(),
        )
    axes.set_xticks(angles, [textwrap.fill(key, 16) for key in keys], fontsize="x-small")
    numbers = [v for _, points in series for v in points.values() if _is_number(v)]
    axes.set_ylim(0, 1 if all(0 <= v <= 1 for v in numbers) else max(numbers) * 1.08)
    return True


def _entry(step: Any, name: str) -> Any:
    """A step's value of ``name`` (a step is a mapping in older runs, a typed record now)."""
    return step.get(name) if isinstance(step, Mapping) else getattr(step, name, None)


def _scatter(plot: ResultsScatter, runs: Sequence[Run], axes: Axes) -> bool:
    drawn = []
    for index, run in enumerate(runs):
        points = [(item.value(plot.x), item.value(plot.y)) for item in run.results if item.status == "scored"]
        points = [(x, y) for x, y in points if _is_number(x) and _is_number(y) and (x > 0 or not plot.log_x)]
        if points:
            axes.scatter(
                [x for x, _ in points],
                [y for _, y in points],
                label=f"{legend(run)} ({len(points)} items)",
                marker=MARKERS[index % len(MARKERS)],
                facecolors="none",
                edgecolors=f"C{index % 10}",
                linewidths=1.0,
                alpha=0.8,
            )
            drawn += points
    if not drawn:
        return False
    if plot.log_x:
        axes.set_xscale("log")
    _value_axis(axes, [y for _, y in drawn])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def _nested_bars(plot: NestedBars, runs: Sequence[Run], axes: Axes) -> bool:
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
            if _is_number(value)
        )
    )
    if not series:
        return False
    groups = ordered(
        key for _, table in per_run for key, inner in table.items() if any(map(_is_number, inner.values()))
    )
    width = 0.8 / len(series)
    for position, (index, name) in enumerate(series):
        run, table = per_run[index]
        xs = [g - 0.4 + width * (position + 0.5) for g in range(len(groups))]
        drawn = [(x, table.get(group, {}).get(name), group) for x, group in zip(xs, groups, strict=True)]
        drawn = [(x, v, group) for x, v, group in drawn if _is_number(v)]
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
        found = _slice_intervals(run, plot.slice)
        _error_bars(
            axes,
            [(x, v, found.get(group, {}).get(f"{plot.field}.{name}")) for x, v, group in drawn],
            "black",
            thin=True,
        )
    axes.set_xticks(range(len(groups)), [textwrap.fill(g, 14) for g in groups], fontsize="small")
    axes.set_xlim(-0.5, len(groups) - 0.5)
    _value_axis(axes, [v for _, table in per_run for inner in table.values() for v in inner.values() if _is_number(v)])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def _headline_intervals(run: Run) -> dict[str, Interval]:
    return run.summary.intervals.metrics if run.summary.intervals is not None else {}


def _slice_intervals(run: Run, name: str) -> dict[str, dict[str, Interval]]:
    return (run.summary.intervals.slices.get(name) or {}) if run.summary.intervals is not None else {}


def _error_bars(
    axes: Axes,
    points: Sequence[tuple[Number, Number, Interval | None]],
    color: str,
    horizontal: bool = False,
    thin: bool = False,
) -> None:
    """The 95% interval of each ``(position, value, interval)`` that has one, as an error bar at the value
    (``horizontal``: along x, the position being y; ``thin``: on narrow bars)."""
    shown = [(position, value, i) for position, value, i in points if i is not None and i.ci_low is not None]
    if not shown:
        return
    spans = [
        [max(value - i.ci_low, 0.0) for _, value, i in shown],
        [max(i.ci_high - value, 0.0) for _, value, i in shown],
    ]
    positions, values = [p for p, _, _ in shown], [v for _, v, _ in shown]
    style = {"fmt": "none", "ecolor": color, "capsize": 1.5 if thin else 4, "elinewidth": 0.7 if thin else 1.2}
    if horizontal:
        axes.errorbar(values, positions, xerr=spans, **style)
    else:
        axes.errorbar(positions, values, yerr=spans, **style)


def _slice_axis(axes: Axes, keys: list[str]) -> dict[str, Number]:
    """x position of each slice value: the integer or number itself, else its index (labelled)."""
    try:
        numbers = {key: float(key) for key in keys}
    except ValueError:
        axes.set_xticks(range(len(keys)), keys)
        axes.set_xlim(-0.5, len(keys) - 0.5)
        return {key: index for index, key in enumerate(keys)}
    if all(number.is_integer() for number in numbers.values()):
        integers = {key: int(number) for key, number in numbers.items()}
        axes.set_xticks(sorted(set(integers.values())), [str(n) for n in sorted(set(integers.values()))])
        axes.set_xlim(min(integers.values()) - 0.5, max(integers.values()) + 0.5)
        return integers
    return numbers


def _value_axis(axes: Axes, values: list[Number]) -> None:
    if all(isinstance(v, int) for v in values):
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_ylim(0, max(1, max(values)) * 1.08)
    elif all(0 <= v <= 1 for v in values):
        axes.set_ylim(0, 1)
    elif min(values) >= 0:
        axes.set_ylim(bottom=0)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_DRAWERS = {
    SlicePlot: _slice_plot,
    MappingBars: _mapping_bars,
    ResultsHistogram: _histogram,
    RunScatter: _run_scatter,
    RunCurves: _run_curves,
    ResultsTrajectories: _trajectories,
    RadarPlot: _radar,
    ResultsScatter: _scatter,
    NestedBars: _nested_bars,
}
