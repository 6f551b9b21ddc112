"""What each benchmark's section is called and which plots it gets (its tables follow from the typed metrics)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SlicePlot:
    """One metric over the values of one slice (``slices[slice][value][metric]``), one line per run."""

    slice: str
    metric: str
    title: str
    xlabel: str
    ylabel: str

    @property
    def no_data(self) -> str:
        return f"no run has values for `{self.metric}` in `{self.slice}`"


@dataclass(frozen=True)
class MappingBars:
    """Grouped bars of a ``{name: number}`` field of the metrics, one bar per run in each group."""

    field: str
    title: str
    ylabel: str

    @property
    def no_data(self) -> str:
        return f"no run has values for `{self.field}`"


@dataclass(frozen=True)
class ResultsHistogram:
    """A histogram of a numeric field of the scored items, one series per run."""

    field: str
    title: str
    xlabel: str
    where: str | None = None  # only items whose field of this name is truthy

    @property
    def no_data(self) -> str:
        only = f" and a true `{self.where}`" if self.where else ""
        return f"no run has scored items with a numeric `{self.field}`{only}"


Plot = SlicePlot | MappingBars | ResultsHistogram


@dataclass(frozen=True)
class View:
    title: str
    plots: tuple[Plot, ...] = ()


VIEWS: dict[str, View] = {
    "shapeworld": View(
        "ShapeWorld (CausalLink)",
        (SlicePlot("by_num_variables", "accuracy", "ShapeWorld accuracy by number of variables", "variables", "accuracy"),),
    ),
    "causalab": View(
        "CausaLab",
        (SlicePlot("by_num_nodes", "task_accuracy", "CausaLab task accuracy by number of nodes", "nodes", "task accuracy"),),
    ),
    "recast": View(
        "ReCAST",
        (SlicePlot("by_confounding", "edge_f1_normalized", "ReCAST edge F1 (normalized names) by degree of confounding",
                   "lenient degree of confounding", "edge F1 (normalized names)"),),
    ),
    "cobe": View("CoBe", (MappingBars("failure_rate", "CoBe failure rate per criterion", "failure rate"),)),
    "cladder_pairs": View(
        "CLadder pairs (estimand equivalence)",
        (ResultsHistogram("proof_length", "Proof length of answers proven equivalent", "rewrite steps", where="equivalent"),),
    ),
}
