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
Set rates follow ``compare_graphs``: 1.0 when both sets are empty, 0.0 when only one is.
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
from causal_datasets.records.causalab import CausaLabEpisode
from causal_datasets.scoring.graph_compare import compare_graphs

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
    hits = sum(1 for key, value in predicted.items() if key in reference and abs(value - reference[key]) <= COEFFICIENT_TOLERANCE)
    if not predicted and not reference:
        return 1.0
    return 2 * hits / (len(predicted) + len(reference))


def score_hypothesis(hypothesis: Hypothesis, episode: CausaLabEpisode) -> MechanismScores:
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


SCORE_FIELDS = ("edge_precision", "edge_recall", "edge_f1", "shd", "freq_edge_f1", "coefficient_f1", "root_f1", "formula_hit")


def aggregate(items: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Means over episodes of ``task_accuracy`` (from ``success``) and every mechanism score."""
    items = list(items)
    if not items:
        return {"count": 0}
    summary: dict[str, float] = {"count": len(items), "task_accuracy": fmean(float(bool(i["success"])) for i in items)}
    for name in SCORE_FIELDS:
        summary[name] = fmean(float(i["scores"][name]) for i in items)
    return summary


def read_hypothesis(text: str) -> tuple[Hypothesis, str | None]:
    """A hypothesis from a reply, a DSL step or a bare hypothesis object; empty plus the reason when
    nothing can be read (an empty hypothesis then scores as predicting nothing)."""
    raw = extract_object(text)
    if raw is None:
        return Hypothesis(), "no JSON object"
    warnings: list[str] = []
    return parse_hypothesis(raw.get("hypothesis", raw), warnings), None


def score_batch(
    predictions: Sequence[str], episodes: Sequence[CausaLabEpisode], successes: Sequence[bool] | None = None
) -> dict[str, Any]:
    """Mean mechanism scores of hypotheses (texts) against their episodes, plus task accuracy when
    the episodes' outcomes are given; ``unreadable`` counts hypotheses that could not be read."""
    if len(predictions) != len(episodes) or (successes is not None and len(successes) != len(episodes)):
        raise ValueError("predictions, references and successes must have the same length")
    items, unreadable = [], 0
    for index, (text, episode) in enumerate(zip(predictions, episodes)):
        hypothesis, error = read_hypothesis(text)
        unreadable += error is not None
        success = bool(successes[index]) if successes is not None else False
        items.append({"success": success, "scores": score_hypothesis(hypothesis, episode).to_dict()})
    summary: dict[str, Any] = aggregate(items)
    if successes is None:
        summary.pop("task_accuracy", None)
    summary["unreadable"] = unreadable
    return summary
