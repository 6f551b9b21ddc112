"""Scores of a CausaLab hypothesis against the episode's SCM, per step and per episode.

* Edge precision / recall / F1 and SHD over all directed edges (a reversal counts once), from the
  shared :func:`causal_datasets.scoring.graph_compare.compare_graphs`.
* Frequency-edge F1: F1 over the edges into ``resonanceFreq`` (its direct parents).
* Coefficient F1: the hypothesis' term coefficients (``c_<P>``; ``c_<P>_1``/``c_<P>_2`` for the
  quadratic family) against the true terms of the frequency equation; a term matches when parent,
  kind and value agree within ``COEFFICIENT_TOLERANCE``.
* Root-node F1: over the parentless ancestors of ``resonanceFreq`` in each graph.
* Formula hit: the hypothesis' equation evaluated on the reactor's visible properties lands within
  the episode's tolerance of the hidden reactor frequency.
Set rates follow ``compare_graphs``: 1.0 when both sets are empty, 0.0 when only one is. No
hypothesis at all (an unreadable one, or an episode in which none was ever read) scores the worst:
every F1 0.0, no formula hit and the maximal SHD of
:func:`~causal_datasets.scoring.graph_compare.maximal_shd` over the episode's nodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import fmean
from typing import Any

import networkx as nx

from causal_datasets.causalab.dsl import Hypothesis, extract_object, parse_hypothesis
from causal_datasets.causalab.formula import FormulaError, coefficient_terms, predict_frequency
from causal_datasets.causalab.properties import TARGET
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.records.base import record_from_input
from causal_datasets.scoring.graph_compare import compare_graphs, maximal_shd
from causal_datasets.scoring.inputs import batch_size

COEFFICIENT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class MechanismScores:
    edge_precision: float
    edge_recall: float
    edge_f1: float
    shd: float
    freq_edge_f1: float
    coefficient_f1: float
    root_f1: float
    formula_hit: bool
    formula_prediction: float | None
    formula_error: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def true_edges(episode: CausaLabEpisode) -> list[tuple[str, str]]:
    return [(e.source, e.target) for e in episode.edges]


def true_terms(episode: CausaLabEpisode) -> dict[tuple[str, str], float]:
    """``{(parent, kind): value}`` of the frequency equation (quadratic terms for that family)."""
    equation = next(eq for eq in episode.equations if eq.node == TARGET)
    terms: dict[tuple[str, str], float] = {}
    for term in equation.terms:
        terms[(term.parent, "linear")] = term.linear
        if episode.family == "quadratic":
            terms[(term.parent, "quadratic")] = term.quadratic
    return terms


def set_f1(predicted: Iterable[Any], reference: Iterable[Any]) -> float:
    predicted, reference = set(predicted), set(reference)
    if not predicted and not reference:
        return 1.0
    return 2 * len(predicted & reference) / (len(predicted) + len(reference))


def root_nodes(edges: Iterable[tuple[str, str]]) -> set[str]:
    """Parentless ancestors of the target in a graph given by its edges."""
    graph = nx.DiGraph(list(edges))
    if TARGET not in graph:
        return set()
    return {node for node in nx.ancestors(graph, TARGET) if graph.in_degree(node) == 0}


def coefficient_f1(hypothesis: Hypothesis, episode: CausaLabEpisode) -> float:
    predicted = coefficient_terms(hypothesis.coefficients)
    reference = true_terms(episode)
    hits = sum(
        1
        for key, value in predicted.items()
        if key in reference and abs(value - reference[key]) <= COEFFICIENT_TOLERANCE
    )
    if not predicted and not reference:
        return 1.0
    return 2 * hits / (len(predicted) + len(reference))


def unparsable_scores(episode: CausaLabEpisode) -> MechanismScores:
    """The worst scores against ``episode``: what no readable hypothesis gets."""
    return MechanismScores(
        edge_precision=0.0,
        edge_recall=0.0,
        edge_f1=0.0,
        shd=maximal_shd(len(episode.nodes), len(episode.edges)),
        freq_edge_f1=0.0,
        coefficient_f1=0.0,
        root_f1=0.0,
        formula_hit=False,
        formula_prediction=None,
        formula_error="no hypothesis could be read",
    )


def score_hypothesis(hypothesis: Hypothesis | None, episode: CausaLabEpisode) -> MechanismScores:
    """The scores of ``hypothesis`` against ``episode``; None (nothing readable) scores the worst."""
    if hypothesis is None:
        return unparsable_scores(episode)
    predicted_edges = [(e.source, e.target) for e in hypothesis.edges]
    reference_edges = true_edges(episode)
    graph = compare_graphs(predicted_edges, reference_edges, reversal_cost=1)
    prediction, error = None, None
    try:
        prediction = predict_frequency(hypothesis, {p.name: p.value for p in episode.reactor_properties})
    except FormulaError as failure:
        error = str(failure)
    return MechanismScores(
        edge_precision=graph.edge_precision,
        edge_recall=graph.edge_recall,
        edge_f1=graph.edge_f1,
        shd=graph.shd,
        freq_edge_f1=set_f1(
            {s for s, t in predicted_edges if t == TARGET}, {s for s, t in reference_edges if t == TARGET}
        ),
        coefficient_f1=coefficient_f1(hypothesis, episode),
        root_f1=set_f1(root_nodes(predicted_edges), root_nodes(reference_edges)),
        formula_hit=prediction is not None and abs(prediction - episode.reactor_frequency) < episode.tolerance,
        formula_prediction=prediction,
        formula_error=error,
    )


@dataclass(frozen=True)
class Consistency:
    """How well a hypothesis' frequency equation explains the records its agent saw."""

    records: int
    max_residual: float | None
    mean_residual: float | None
    consistent: bool
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def consistency(hypothesis: Hypothesis, data: Sequence[Mapping[str, Any]], tolerance: float) -> Consistency:
    """Residuals |predicted − recorded frequency| of ``hypothesis`` on every record in ``data``
    (``{"props", "freq"}``); consistent when every one is below ``tolerance``. An equation that
    cannot be evaluated on a record is inconsistent, with the reason in ``error``."""
    residuals = []
    for record in data:
        try:
            residuals.append(abs(predict_frequency(hypothesis, record["props"]) - record["freq"]))
        except FormulaError as failure:
            return Consistency(len(data), None, None, False, str(failure))
    if not residuals:
        return Consistency(0, None, None, True, None)
    return Consistency(len(data), max(residuals), fmean(residuals), max(residuals) < tolerance, None)


def score_trajectory(hypotheses: Iterable[Hypothesis], episode: CausaLabEpisode) -> list[MechanismScores]:
    return [score_hypothesis(h, episode) for h in hypotheses]


SCORE_FIELDS = (
    "edge_precision",
    "edge_recall",
    "edge_f1",
    "shd",
    "freq_edge_f1",
    "coefficient_f1",
    "root_f1",
    "formula_hit",
)


def aggregate(items: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Means over episodes of ``task_accuracy`` (from ``success``) and every mechanism score."""
    items = list(items)
    if not items:
        return {"count": 0}
    summary: dict[str, float] = {"count": len(items), "task_accuracy": fmean(float(bool(i["success"])) for i in items)}
    for name in SCORE_FIELDS:
        summary[name] = fmean(float(i["scores"][name]) for i in items)
    return summary


def read_hypothesis(text: Any) -> Hypothesis | None:
    """A hypothesis from a reply, a DSL step or a bare hypothesis object; None when nothing can be
    read (not text, or no JSON object in it)."""
    raw = extract_object(text) if isinstance(text, str) else None
    if raw is None:
        return None
    warnings: list[str] = []
    return parse_hypothesis(raw.get("hypothesis", raw), warnings)


def score_batch(
    predictions: Sequence[Any], references: Sequence[Any], successes: Sequence[Any] | None = None
) -> dict[str, Any]:
    """Mean mechanism scores of hypotheses (texts) against their episodes (records, dataset rows or
    their JSON), plus task accuracy when the episodes' outcomes are given (booleans).

    An unreadable hypothesis scores the worst (:func:`unparsable_scores`), stays in every mean and is
    counted in ``unparsable``. Bad references or successes and an empty batch are a ``ValueError``
    (``TypeError`` for a wrong type) naming the item."""
    batch_size(predictions, references, successes=successes)
    episodes = [
        record_from_input(reference, CausaLabEpisode, f"references[{i}]") for i, reference in enumerate(references)
    ]
    outcomes = [_success(value, i) for i, value in enumerate(successes)] if successes is not None else None
    items, unparsable = [], 0
    for index, (text, episode) in enumerate(zip(predictions, episodes, strict=True)):
        hypothesis = read_hypothesis(text)
        unparsable += hypothesis is None
        success = outcomes[index] if outcomes is not None else False
        items.append({"success": success, "scores": score_hypothesis(hypothesis, episode).to_dict()})
    summary: dict[str, Any] = aggregate(items)
    if successes is None:
        summary.pop("task_accuracy", None)
    summary["unparsable"] = unparsable
    return summary


def _success(value: Any, index: int) -> bool:
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"successes[{index}] must be True or False, not {type(value).__name__} {value!r:.40}")
