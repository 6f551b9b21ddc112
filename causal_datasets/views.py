"""What a benchmark's section of the report is called and which plots and cross-run tables it gets (its
other tables follow from the typed metrics): the vocabulary a task's ``view`` is written in.

Each task declares its :class:`View` (``Task.view``); the report draws whatever the views of the
benchmarks it shows ask for. A task without one gets a section titled by its name, tables only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from causal_datasets.report.runs import Run


class _Drawn:
    """A plot of the view: ``no_data`` says why it is not drawn, its class's ``_NO_DATA`` filled in with its fields."""

    _NO_DATA: ClassVar[str]

    @property
    def no_data(self) -> str:
        return self._NO_DATA.format_map(vars(self))


@dataclass(frozen=True)
class SlicePlot(_Drawn):
    """One metric over the values of one slice (``slices[slice][value][metric]``), one line per run, with its
    95% intervals as error bars; ``error``: the entry's metric drawn as ± error bars instead for a run whose
    summary has no intervals (e.g. ShapeWorld's standard error over setups)."""

    slice: str
    metric: str
    title: str
    xlabel: str
    ylabel: str
    error: str | None = None

    _NO_DATA = "no run has values for `{metric}` in `{slice}`"


@dataclass(frozen=True)
class MappingBars(_Drawn):
    """Grouped bars of a ``{name: number}`` field of the metrics, one bar per run in each group."""

    field: str
    title: str
    ylabel: str

    _NO_DATA = "no run has values for `{field}`"


@dataclass(frozen=True)
class ResultsHistogram(_Drawn):
    """A histogram of a numeric field of the scored items, one series per run."""

    field: str
    title: str
    xlabel: str
    where: str | None = None  # only items whose field of this name is truthy
    bin_width: float | None = None  # None: one bin per integer (integer values), else ten bins

    _NO_DATA = "no run has scored items with a numeric `{field}`"

    @property
    def no_data(self) -> str:
        return super().no_data + (f" and a true `{self.where}`" if self.where else "")


@dataclass(frozen=True)
class RunScatter(_Drawn):
    """One point per run at two scalar metrics, marked by the value of ``label``; within a group of
    runs (same solver and configs) an arrow goes from each run labelled ``arrow[0]`` to each run
    labelled ``arrow[1]`` (CausaLab Fig. 3: observation-only → mixed)."""

    x: str
    y: str
    label: str
    arrow: tuple[str, str]
    title: str
    xlabel: str
    ylabel: str

    _NO_DATA = "no run has both `{x}` and `{y}`"


@dataclass(frozen=True)
class RunCurves(_Drawn):
    """A scalar metric over a count that differs between runs: one line per group of runs (same
    solver, configs and value of ``line``), the count read from the metric ``counts[value]`` of
    that value (CausaLab's scaling curves: observations for observation-only, budget otherwise)."""

    metric: str
    line: str
    counts: tuple[tuple[str, str], ...]
    title: str
    xlabel: str
    ylabel: str

    _NO_DATA = "no run has `{metric}` and a count for its `{line}`"


@dataclass(frozen=True)
class ResultsTrajectories(_Drawn):
    """A metric along a list field of the scored items (one entry per step): a thin line per item,
    the mean over a run's items (an item that has ended keeps its last value) bold."""

    field: str
    metric: str
    title: str
    xlabel: str
    ylabel: str

    _NO_DATA = "no run has scored items with a `{field}` holding `{metric}`"


@dataclass(frozen=True)
class RadarPlot(_Drawn):
    """One metric over the values of one slice on a polar chart (a spoke per value), one polygon per run."""

    slice: str
    metric: str
    title: str

    _NO_DATA = "no run has values for `{metric}` in `{slice}`"


@dataclass(frozen=True)
class ResultsScatter(_Drawn):
    """Two numeric fields of the scored items against each other, one series per run (``log_x``: log x axis)."""

    x: str
    y: str
    title: str
    xlabel: str
    ylabel: str
    log_x: bool = False

    _NO_DATA = "no run has scored items with a numeric `{x}` and `{y}`"


@dataclass(frozen=True)
class NestedBars(_Drawn):
    """Grouped bars of a ``{name: number}`` field inside each entry of a slice: a group per slice value,
    a bar per name (per run and name when there are several runs)."""

    slice: str
    field: str
    title: str
    xlabel: str
    ylabel: str

    _NO_DATA = "no run has numbers in `{field}` of `{slice}`"


Plot = (
    SlicePlot
    | MappingBars
    | ResultsHistogram
    | RunScatter
    | RunCurves
    | ResultsTrajectories
    | RadarPlot
    | ResultsScatter
    | NestedBars
)


@dataclass(frozen=True)
class RunTable:
    """A table computed across the runs of one benchmark (Markdown, or None without data)."""

    title: str
    build: Callable[[Sequence[Run]], str | None]
    no_data: str


@dataclass(frozen=True)
class View:
    """A benchmark's section: its title, its plots and its tables across runs."""

    title: str
    plots: tuple[Plot, ...] = ()
    tables: tuple[RunTable, ...] = ()
