"""Plots of the runs' scored items (``results.jsonl``): a histogram of a field, a scatter of two fields, and a
metric along each item's steps."""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.ticker import MaxNLocator

from causal_datasets.report.plot_style import HATCHES, MARKERS, is_number, legend, step_value, value_axis
from causal_datasets.report.runs import Run
from causal_datasets.views import ResultsHistogram, ResultsScatter, ResultsTrajectories


def histogram(plot: ResultsHistogram, runs: Sequence[Run], axes: Axes) -> bool:
    series = []
    for run in runs:
        values = [
            item.value(plot.field)
            for item in run.results
            if item.status == "scored" and (plot.where is None or item.value(plot.where))
        ]
        values = [v for v in values if is_number(v)]
        if values:
            series.append((run, values))
    if not series:
        return False
    everything = [v for _, values in series for v in values]
    integers = all(isinstance(v, int) for v in everything)
    bins: list[float] | int  # the bin edges, or how many bins
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
    for index, container in enumerate(patches if isinstance(patches, list) else [patches]):  # one per series
        assert isinstance(container, BarContainer)  # histtype "bar"
        for patch in container:
            patch.set_hatch(HATCHES[index % len(HATCHES)])
    if integers:
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(bottom=0)
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel("items")
    return True


def trajectories(plot: ResultsTrajectories, runs: Sequence[Run], axes: Axes) -> bool:
    drawn = []
    for index, run in enumerate(runs):
        series = []
        for item in run.results:
            steps = item.value(plot.field) if item.status == "scored" else None
            values = [step_value(s, plot.metric) for s in steps] if isinstance(steps, list) else []
            if values and all(is_number(v) for v in values):
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
    value_axis(axes, drawn)
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True


def item_scatter(plot: ResultsScatter, runs: Sequence[Run], axes: Axes) -> bool:
    drawn = []
    for index, run in enumerate(runs):
        points = [(item.value(plot.x), item.value(plot.y)) for item in run.results if item.status == "scored"]
        points = [(x, y) for x, y in points if is_number(x) and is_number(y) and (x > 0 or not plot.log_x)]
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
    value_axis(axes, [y for _, y in drawn])
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    return True
