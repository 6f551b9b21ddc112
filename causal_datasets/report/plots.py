"""PNG plots of the report: one matplotlib figure (Agg canvas, no pyplot state) per declared plot.

The value axis follows the values drawn: all integers → a count axis from 0 with integer ticks;
otherwise all within [0, 1] → a share axis fixed at 0–1; otherwise from 0 unless a value is negative.
Integer slice values and histogram bins get integer ticks. Each run has its own marker, line style
(or hatch) and legend entry naming the run and its config(s), so equal series stay visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from causal_datasets.report.runs import Run
from causal_datasets.report.tables import ordered
from causal_datasets.report.views import MappingBars, Plot, ResultsHistogram, SlicePlot

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = ("-", "--", "-.", ":")
HATCHES = ("", "//", "..", "xx", "\\\\", "++")
Number = int | float


def figure(plot: Plot, runs: Sequence[Run]) -> Figure | None:
    """The figure of ``plot`` for ``runs`` (its one Axes is ``figure.axes[0]``); None when no run has data for it."""
    fig = Figure(figsize=(6.4, 4.0 + 0.22 * len(runs)), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.add_subplot()
    if not _DRAWERS[type(plot)](plot, runs, axes):
        return None
    axes.set_title(plot.title)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)  # never over data
    fig.tight_layout()
    return fig


def draw(plot: Plot, runs: Sequence[Run], path: Path) -> bool:
    """Write the PNG of ``plot`` to ``path`` (no timestamp or software in its metadata); False, and no file, without data."""
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
        axes.plot([positions[k] for k in drawn], [points[k] for k in drawn], label=legend(run), clip_on=False,
                  marker=MARKERS[index % len(MARKERS)], linestyle=LINE_STYLES[index % len(LINE_STYLES)],
                  linewidth=2.6 - 0.7 * (index % 3), markersize=11 - 2.5 * (index % 3), markerfacecolor="none",
                  markeredgewidth=1.5)
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
        drawn = [(x, mapping[name]) for x, name in zip(xs, names) if _is_number(mapping.get(name))]
        axes.bar([x for x, _ in drawn], [v for _, v in drawn], width=width, label=legend(run),
                 hatch=HATCHES[index % len(HATCHES)], edgecolor="black", linewidth=0.6)
        for x, name in zip(xs, names):
            if not _is_number(mapping.get(name)):  # not reported (e.g. never judged): say so, do not draw a 0
                axes.text(x, 0.02, "n/a", rotation=90, ha="center", va="bottom", fontsize="x-small",
                          transform=axes.get_xaxis_transform())
    axes.set_xticks(range(len(names)), names)
    axes.set_xlim(-0.5, len(names) - 0.5)
    _value_axis(axes, [v for _, mapping in series for v in mapping.values() if _is_number(v)])
    axes.set_ylabel(plot.ylabel)
    return True


def _histogram(plot: ResultsHistogram, runs: Sequence[Run], axes: Axes) -> bool:
    series = []
    for run in runs:
        values = [
            getattr(item, plot.field, None) for item in run.results
            if item.status == "scored" and (plot.where is None or getattr(item, plot.where, None))
        ]
        values = [v for v in values if _is_number(v)]
        if values:
            series.append((run, values))
    if not series:
        return False
    everything = [v for _, values in series for v in values]
    integers = all(isinstance(v, int) for v in everything)
    bins = [b - 0.5 for b in range(int(min(everything)), int(max(everything)) + 2)] if integers else 10
    _, _, patches = axes.hist([values for _, values in series], bins=bins, label=[legend(run) for run, _ in series],
                              edgecolor="black", linewidth=0.6)
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


_DRAWERS = {SlicePlot: _slice_plot, MappingBars: _mapping_bars, ResultsHistogram: _histogram}
