"""What each benchmark's section is called and which plots it gets (its tables follow from the typed metrics)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from causal_datasets.markdown import markdown_table
from causal_datasets.report.runs import Run


@dataclass(frozen=True)
class SlicePlot:
    """One metric over the values of one slice (``slices[slice][value][metric]``), one line per run, with its
    95% intervals as error bars; ``error``: the entry's metric drawn as ± error bars instead for a run whose
    summary has no intervals (e.g. ShapeWorld's standard error over setups)."""

    slice: str
    metric: str
    title: str
    xlabel: str
    ylabel: str
    error: str | None = None

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
    bin_width: float | None = None  # None: one bin per integer (integer values), else ten bins

    @property
    def no_data(self) -> str:
        only = f" and a true `{self.where}`" if self.where else ""
        return f"no run has scored items with a numeric `{self.field}`{only}"


@dataclass(frozen=True)
class RunScatter:
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

    @property
    def no_data(self) -> str:
        return f"no run has both `{self.x}` and `{self.y}`"


@dataclass(frozen=True)
class RunCurves:
    """A scalar metric over a count that differs between runs: one line per group of runs (same
    solver, configs and value of ``line``), the count read from the metric ``counts[value]`` of
    that value (CausaLab's scaling curves: observations for observation-only, budget otherwise)."""

    metric: str
    line: str
    counts: tuple[tuple[str, str], ...]
    title: str
    xlabel: str
    ylabel: str

    @property
    def no_data(self) -> str:
        return f"no run has `{self.metric}` and a count for its `{self.line}`"


@dataclass(frozen=True)
class ResultsTrajectories:
    """A metric along a list field of the scored items (one entry per step): a thin line per item,
    the mean over a run's items (an item that has ended keeps its last value) bold."""

    field: str
    metric: str
    title: str
    xlabel: str
    ylabel: str

    @property
    def no_data(self) -> str:
        return f"no run has scored items with a `{self.field}` holding `{self.metric}`"


@dataclass(frozen=True)
class RadarPlot:
    """One metric over the values of one slice on a polar chart (a spoke per value), one polygon per run."""

    slice: str
    metric: str
    title: str

    @property
    def no_data(self) -> str:
        return f"no run has values for `{self.metric}` in `{self.slice}`"


@dataclass(frozen=True)
class ResultsScatter:
    """Two numeric fields of the scored items against each other, one series per run (``log_x``: log x axis)."""

    x: str
    y: str
    title: str
    xlabel: str
    ylabel: str
    log_x: bool = False

    @property
    def no_data(self) -> str:
        return f"no run has scored items with a numeric `{self.x}` and `{self.y}`"


@dataclass(frozen=True)
class NestedBars:
    """Grouped bars of a ``{name: number}`` field inside each entry of a slice: a group per slice value,
    a bar per name (per run and name when there are several runs)."""

    slice: str
    field: str
    title: str
    xlabel: str
    ylabel: str

    @property
    def no_data(self) -> str:
        return f"no run has numbers in `{self.field}` of `{self.slice}`"


Plot = (SlicePlot | MappingBars | ResultsHistogram | RunScatter | RunCurves | ResultsTrajectories | RadarPlot
        | ResultsScatter | NestedBars)


@dataclass(frozen=True)
class RunTable:
    """A table computed across the runs of one benchmark (Markdown, or None without data)."""

    title: str
    build: Callable[[Sequence[Run]], str | None]
    no_data: str


@dataclass(frozen=True)
class View:
    title: str
    plots: tuple[Plot, ...] = ()
    tables: tuple[RunTable, ...] = ()


def best_variant_table(runs: Sequence[Run]) -> str | None:
    """ShapeWorld Table 1: per solver and configs, the run whose prompt variant scored best (a ``*``
    marks a step-limiting variant, as the paper marks models that did better with it)."""
    groups: dict[tuple[str, tuple[str, ...]], list[Run]] = {}
    for run in runs:
        if run.summary.metrics.accuracy is not None:
            groups.setdefault((run.summary.solver, tuple(run.summary.dataset.configs)), []).append(run)
    rows = []
    for (solver, configs), group in groups.items():
        best = max(group, key=lambda run: run.summary.metrics.accuracy)
        metrics, variant = best.summary.metrics, best.summary.options.get("variant", "basic")
        compared = ", ".join(sorted({str(run.summary.options.get("variant", "basic")) for run in group}))
        rows.append([solver + ("*" if variant != "basic" else ""), ", ".join(configs), variant, compared,
                     _cell(metrics.accuracy_false), _cell(metrics.accuracy_true), _cell(metrics.accuracy),
                     _cell(metrics.mean_steps), metrics.error_total])
    if not rows:
        return None
    headers = ["model", "configs", "best variant", "variants compared", "Acc. (F)", "Acc. (T)", "Acc.", "Avg. Steps", "Err."]
    return markdown_table(headers, rows)


def _cell(value: object) -> object:
    return "–" if value is None else value


#: where CausaLab's scaling curves read a run's count: its records without interventions, its budget otherwise
CAUSALAB_SCALING_COUNTS = (("observation-only", "prior_observations"), ("mixed", "budget"), ("intervention-only", "budget"))

#: the two per-sample scores of ReCAST's analyses (recast.analysis.SCORES) and their names on plots
RECAST_SCORES = (("judge_f1", "judge F1"), ("edge_f1_normalized", "edge F1 (normalized names)"))

VIEWS: dict[str, View] = {
    "shapeworld": View(
        "ShapeWorld (CausalLink)",
        (
            SlicePlot("by_num_variables", "accuracy", "ShapeWorld accuracy by number of variables", "variables", "accuracy"),
            SlicePlot("by_structure", "accuracy", "ShapeWorld accuracy by structure, 95% interval over setups (Fig. 2)",
                      "causal structure", "accuracy", error="accuracy_se"),
            SlicePlot("by_num_variables_all_moving", "accuracy", "ShapeWorld all-moving accuracy by variables (Fig. 3)",
                      "variables (every shape moving at the start)", "accuracy"),
            MappingBars("failure_pattern_shares", "ShapeWorld failure patterns, share of wrong (Table 2)",
                        "share of wrong answers"),
        ),
        (RunTable("Best prompt variant per model (Table 1)", best_variant_table,
                  "No run has an accuracy to compare."),),
    ),
    "causalab": View(
        "CausaLab",
        (
            SlicePlot("by_num_nodes", "task_accuracy", "CausaLab task accuracy by number of nodes", "nodes", "task accuracy"),
            RunScatter("task_accuracy", "edge_f1", "regime", ("observation-only", "mixed"),
                       "CausaLab accuracy vs edge F1 by regime (Fig. 3)", "task accuracy", "all-edge F1"),
            *(
                RunCurves(metric, "regime", CAUSALAB_SCALING_COUNTS, f"CausaLab scaling: {name} (App. Figs. 13-14)",
                          "prior observations (observation-only) or interventions (mixed, intervention-only)", name)
                for metric, name in (("task_accuracy", "task accuracy"), ("edge_f1", "all-edge F1"))
            ),
            SlicePlot("by_step", "edge_f1", "CausaLab edge F1 at each step, mean per run",
                      "step", "all-edge F1"),
            ResultsTrajectories("trajectory", "edge_f1", "CausaLab edge F1 along each episode (App. Fig. 8)",
                                "step", "all-edge F1"),
            MappingBars("budget_used_by_success", "CausaLab budget used, by success", "budget used"),
            MappingBars("consistent_by_success", "CausaLab final hypothesis fits own data, by success",
                        "share of episodes"),
        ),
    ),
    "recast": View(
        "ReCAST",
        (
            *(SlicePlot(slice, metric, f"ReCAST {name} by degree of confounding, {kind} ({figure})",
                        f"{kind} degree of confounding (bins of about equal size)", name)
              for slice, kind, figure in (("by_confounding", "lenient", "Fig. 2"), ("by_confounding_strict", "strict", "App. Fig. 9"))
              for metric, name in RECAST_SCORES),
            *(RadarPlot("by_domain", metric, f"ReCAST {name} by domain (Fig. 4)") for metric, name in RECAST_SCORES),
            *(ResultsScatter(size, "confounding_lenient", f"ReCAST {label} vs confounding ({figure})",
                             f"{label} (log scale)", "lenient degree of confounding", log_x=True)
              for size, label, figure in (("text_length", "text length", "Fig. 3, App. Fig. 6"),
                                          ("num_edges", "edges", "App. Fig. 7"), ("num_nodes", "nodes", "as App. Fig. 7"))),
            ResultsHistogram("completion_tokens", "ReCAST answer length incl. reasoning trace (App. Figs. 4-5)",
                             "completion tokens (bins of 1,000)", bin_width=1000),
        ),
    ),
    "cobe": View(
        "CoBe",
        (
            MappingBars("failure_rate", "CoBe failure rate per criterion (Fig. 5)", "failure rate"),
            NestedBars("by_model", "failure_rate", "CoBe failure rate per criterion and model (Fig. 5)", "model",
                       "failure rate"),
            NestedBars("by_graph_type", "model_accuracy", "CoBe accuracy by graph type (Fig. 6)", "graph type", "accuracy"),
            NestedBars("by_phrasing", "model_accuracy", "CoBe accuracy by query phrasing (Fig. 7)", "phrasing", "accuracy"),
            NestedBars("by_domain", "model_accuracy", "CoBe accuracy by domain (Fig. 8)", "domain", "accuracy"),
            NestedBars("by_failure_mode", "model_share", "CoBe wrong rewrites by failure mode (Fig. 9)", "failure mode",
                       "share of a model's classified wrong rewrites"),
        ),
    ),
    "cladder_pairs": View(
        "CLadder pairs (estimand equivalence, DoVerifier)",
        (ResultsHistogram("proof_length", "Proof length of answers proven equivalent", "rewrite steps", where="equivalent"),),
    ),
}
