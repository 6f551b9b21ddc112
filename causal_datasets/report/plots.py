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
from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from causal_datasets.report.item_plots import histogram, item_scatter, trajectories
from causal_datasets.report.runs import Run
from causal_datasets.report.summary_plots import mapping_bars, nested_bars, radar, run_curves, run_scatter, slice_plot
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


#: the function that draws each kind of plot on an Axes (False: no run has data for it)
_DRAWERS: dict[type, Callable[..., bool]] = {
    SlicePlot: slice_plot,
    MappingBars: mapping_bars,
    ResultsHistogram: histogram,
    RunScatter: run_scatter,
    RunCurves: run_curves,
    ResultsTrajectories: trajectories,
    RadarPlot: radar,
    ResultsScatter: item_scatter,
    NestedBars: nested_bars,
}
