"""Run the judge on one predicted graph: four evaluations, each validated and retried, then scores.

A failed evaluation (the judge never produced a valid answer, or the call failed) is recorded
with its error and its ``category`` and leaves the scores that need it ``None``; the other
evaluations are kept. The category tells the two failures apart: one of the LLM client's
(:data:`~causal_datasets.errors.LLM_CATEGORIES`) when the server or the transport ended the call
(:attr:`Judgement.transport_failure`: the item is run again, not scored), else the answer's
(``no_block``, ``parse`` or ``validation``, from :func:`~causal_datasets.llm.structured.ask_structured`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from statistics import fmean, pstdev
from typing import Any

from causal_datasets.errors import LLM_CATEGORIES
from causal_datasets.graph import CausalGraph
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.structured import ask_structured
from causal_datasets.recast.judge import scoring
from causal_datasets.recast.judge.answers import EVALUATION_KINDS, answer_schema
from causal_datasets.recast.judge.prompts import judge_messages
from causal_datasets.recast.records import RecastSample
from causal_datasets.scoring.graph_compare import RATE_FIELDS

#: the judge's node and edge rates (named as the name-based ones) and its overall precision, recall, F1
SCORE_NAMES = (*RATE_FIELDS, "precision", "recall", "f1")


@dataclass
class Evaluation:
    """One of the four evaluations: per-item labels and scores, the rate, or the error and its category."""

    kind: str
    items: list[dict[str, Any]] = field(default_factory=list)
    rate: scoring.Rate | None = None
    error: str | None = None
    attempts: int = 0
    raw: list[str] = field(default_factory=list)
    category: str | None = None

    @property
    def transport_failed(self) -> bool:
        """Whether the server or the transport ended the evaluation (not the judge's answer)."""
        return self.category in LLM_CATEGORIES


@dataclass
class Judgement:
    """The four evaluations of one predicted graph and the scores computed from them."""

    sample_id: int
    evaluations: dict[str, Evaluation]
    scores: dict[str, float | None]

    @property
    def error(self) -> str | None:
        failed = [e.kind for e in self.evaluations.values() if e.error]
        return f"judge_invalid: {', '.join(failed)}" if failed else None

    @property
    def transport_failure(self) -> Evaluation | None:
        """The first evaluation the server or the transport ended, if any: the judgement is incomplete, not judged."""
        return next((e for e in self.evaluations.values() if e.transport_failed), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "scores": self.scores,
            "error": self.error,
            "evaluations": {k: asdict(v) for k, v in self.evaluations.items()},
        }


def judge_graph(
    client: ChatClient, sample: RecastSample, prediction: CausalGraph, *, max_attempts: int = 3
) -> Judgement:
    """The four evaluations of ``prediction`` against ``sample`` by the judge ``client``."""
    truth = sample.graph()
    counts = {
        "node_precision": len(prediction.nodes),
        "node_recall": len(truth.nodes),
        "edge_precision": len(prediction.edges),
        "edge_recall": len(truth.edges),
    }
    evaluations = {
        kind: _evaluate(client, sample, prediction, kind, counts[kind], max_attempts) for kind in EVALUATION_KINDS
    }
    return Judgement(sample.id, evaluations, scores_from(evaluations))


def unparsable_judgement(sample: RecastSample) -> Judgement:
    """What an unreadable prediction gets, without a judge call: every evaluation's rate 0, the worst."""
    evaluations = {kind: Evaluation(kind, rate=_rate_function(kind)([])) for kind in EVALUATION_KINDS}
    return Judgement(sample.id, evaluations, scores_from(evaluations))


def _rate_function(kind: str):
    return scoring.precision if kind.endswith("precision") else scoring.recall


def _evaluate(
    client: ChatClient, sample: RecastSample, prediction: CausalGraph, kind: str, count: int, max_attempts: int
) -> Evaluation:
    evaluation = Evaluation(kind)
    rate_of = _rate_function(kind)
    if count == 0:  # nothing to judge: an empty prediction has precision 0 and recalls nothing
        evaluation.rate = rate_of([])
        return evaluation
    answer = ask_structured(
        client,
        judge_messages(sample, prediction, kind),
        schema=answer_schema(kind, count),
        fmt="yaml",
        repair="reask",
        max_attempts=max_attempts,
    )
    evaluation.attempts, evaluation.raw = answer.attempts, list(answer.raw)
    if answer.value is None:
        evaluation.category = answer.error_kind
        evaluation.error = f"{answer.error_kind} after {answer.attempts} attempt(s): {answer.error}"
        return evaluation
    items = answer.value.items()
    evaluation.rate = rate_of(items)
    evaluation.items = [_item_record(item, kind) for item in items]
    return evaluation


def _item_record(item: Any, kind: str) -> dict[str, Any]:
    record = item.model_dump()
    if kind.endswith("precision"):
        record["score"] = scoring.precision_item(item)
    else:
        record["correctness"], record["weight"] = scoring.recall_item(item)
    return record


def scores_from(evaluations: dict[str, Evaluation]) -> dict[str, float | None]:
    """Node, edge and overall precision/recall/F1; ``None`` where a needed evaluation failed."""
    rates = {kind: e.rate for kind, e in evaluations.items()}
    scores: dict[str, float | None] = {name: None for name in SCORE_NAMES}
    for level in ("node", "edge"):
        p, r = rates[f"{level}_precision"], rates[f"{level}_recall"]
        scores[f"{level}_precision"] = p.value if p else None
        scores[f"{level}_recall"] = r.value if r else None
        if p and r:
            scores[f"{level}_f1"] = scoring.f1(p.value, r.value)
    if rates["node_precision"] and rates["edge_precision"]:
        scores["precision"] = scoring.overall_precision(rates["node_precision"], rates["edge_precision"])
    if rates["node_recall"] and rates["edge_recall"]:
        scores["recall"] = scoring.overall_recall(rates["node_recall"], rates["edge_recall"])
    if scores["precision"] is not None and scores["recall"] is not None:
        scores["f1"] = scoring.f1(scores["precision"], scores["recall"])
    return scores


def aggregate(per_sample: Sequence[dict[str, float | None]]) -> dict[str, Any]:
    """Mean and population SD of every score over the samples where it exists, with counts."""
    summary: dict[str, Any] = {}
    for name in SCORE_NAMES:
        values = [value for s in per_sample if (value := s.get(name)) is not None]
        summary[name] = fmean(values) if values else None
        summary[f"{name}_sd"] = pstdev(values) if values else None
        summary[f"{name}_n"] = len(values)
    return summary
