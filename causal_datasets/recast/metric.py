"""Score many predicted graphs against ReCAST samples: the judge, the name-based scores, or both.

Used by the ``recast_judge`` evaluate module and by the runner. A prediction that cannot be read
(not text, or neither relationships JSON nor edge lines) scores the worst — every judge rate 0,
without a judge call, and name-based scores of 0 with the maximal SHD — stays in
every mean and is flagged ``unreadable_prediction`` and counted in ``unparsable``; a judge failure is
kept per evaluation (see :mod:`causal_datasets.recast.judge.evaluate`). References, options and an
empty batch are checked first (:mod:`causal_datasets.scoring.inputs`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from causal_datasets.graph import CausalGraph
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.concurrency import map_concurrent
from causal_datasets.recast.dataset import load_samples
from causal_datasets.recast.deterministic import deterministic_scores, mean_scores
from causal_datasets.recast.judge.evaluate import Judgement, aggregate, judge_graph, unparsable_judgement
from causal_datasets.recast.parsing import AnswerFormatError, read_prediction
from causal_datasets.recast.records import RecastSample
from causal_datasets.records.base import record_from_input
from causal_datasets.scoring.inputs import batch_size, choice_option, number_option

Mode = Literal["judge", "deterministic"]


def resolve_references(references: Sequence[Any], location: DatasetLocation | None = None) -> list[RecastSample]:
    """Samples for references given as sample ids (int or digit strings, looked up at ``location``),
    records, dataset rows as they load (dicts) or record JSON. Ids without a ``location`` are a
    ``ValueError``: nothing is built in the working directory behind the caller's back. A reference
    that is none of these, or an id the dataset lacks, is a ``ValueError`` (``TypeError``) naming it."""
    by_id: dict[int, RecastSample] | None = None
    samples = []
    for index, reference in enumerate(references):
        where = f"references[{index}]"
        if isinstance(reference, (RecastSample, Mapping)) or (
            isinstance(reference, str) and reference.lstrip().startswith("{")
        ):
            samples.append(record_from_input(reference, RecastSample, where))
            continue
        if isinstance(reference, bool) or not isinstance(reference, (int, str)):
            raise TypeError(f"{where} must be a sample id, a recast row or its JSON, not {type(reference).__name__}")
        try:
            key = int(reference)
        except ValueError:
            raise ValueError(f"{where} is neither a sample id nor sample JSON: {reference!r:.60}") from None
        if by_id is None:
            if location is None:
                raise ValueError(
                    "references given as sample ids need the dataset they come from: pass dataset='ORG/recast' "
                    "(a pushed recast, with revision=...) or hub_dir=... (a folder holding a built recast), "
                    "or give the samples themselves as JSON"
                )
            by_id = {s.id: s for s in load_samples(location)[0]}
        if key not in by_id:
            raise ValueError(f"{where}: no ReCAST sample with id {key} in {location}")
        samples.append(by_id[key])
    return samples


@dataclass
class ItemScores:
    """One prediction's scores: its edges, the name-based scores, the judgement (with a judge) and the error.

    ``error`` is the prediction's (``unreadable_prediction: ...``) or else the judgement's."""

    sample_id: int
    prediction_edges: list[list[str]]
    error: str | None
    deterministic: dict[str, dict[str, Any]]
    judgement: Judgement | None = None

    def to_dict(self) -> dict[str, Any]:
        """The item as the metric reports it (``judge`` only when judged)."""
        item: dict[str, Any] = {
            "sample_id": self.sample_id,
            "prediction_edges": self.prediction_edges,
            "error": self.error,
            "deterministic": self.deterministic,
        }
        if self.judgement is not None:
            item["judge"] = self.judgement.to_dict()
        return item


def score_item(
    prediction: str | CausalGraph | None,
    sample: RecastSample,
    *,
    judge: ChatClient | None = None,
    reversal_cost: float = 1,
    max_attempts: int = 3,
) -> ItemScores:
    """Scores of one prediction: ``deterministic`` always, the judgement when a judge client is given."""
    error, graph = None, None
    if isinstance(prediction, CausalGraph):
        graph = prediction
    elif not isinstance(prediction, str):
        error = f"unreadable_prediction: no prediction text (got {type(prediction).__name__})"
    else:
        try:
            graph = read_prediction(prediction)
        except AnswerFormatError as problem:
            error = f"unreadable_prediction: {problem}"
    judgement = None
    if judge is not None:
        judgement = (
            judge_graph(judge, sample, graph, max_attempts=max_attempts)
            if graph is not None
            else unparsable_judgement(sample)
        )
    return ItemScores(
        sample_id=sample.id,
        prediction_edges=[list(edge) for edge in graph.edges] if graph is not None else [],
        error=error or (judgement.error if judgement is not None else None),
        deterministic=deterministic_scores(graph, sample, reversal_cost=reversal_cost),
        judgement=judgement,
    )


def score_predictions(
    predictions: Sequence[str | CausalGraph],
    samples: Sequence[RecastSample],
    *,
    mode: Mode = "judge",
    judge: ChatClient | None = None,
    reversal_cost: float = 1,
    max_attempts: int = 3,
    concurrency: int = 4,
) -> dict[str, Any]:
    """Per-item scores and their summary (judge means ± SD, name-based means, error counts)."""
    batch_size(predictions, samples)
    check_options(mode, reversal_cost, max_attempts, concurrency)
    if mode == "judge" and judge is None:
        raise ValueError("mode='judge' needs a judge model (judge_model=..., judge_base_url=...)")
    use_judge = judge if mode == "judge" else None
    outcomes = map_concurrent(
        lambda pair: score_item(
            pair[0], pair[1], judge=use_judge, reversal_cost=reversal_cost, max_attempts=max_attempts
        ).to_dict(),
        list(zip(predictions, samples, strict=True)),
        concurrency=concurrency,
        desc="recast scoring",
    )
    failed = [o for o in outcomes if isinstance(o, Exception)]
    if failed:
        raise RuntimeError(f"{len(failed)} item(s) could not be scored; first: {failed[0]!r}")
    return summarize([outcome for outcome in outcomes if not isinstance(outcome, Exception)])


def check_options(mode: Any, reversal_cost: Any, max_attempts: Any, concurrency: Any) -> None:
    """``ValueError`` naming the first option outside its range."""
    choice_option("mode", mode, ("judge", "deterministic"))
    number_option("reversal_cost", reversal_cost, 1, 2)
    number_option("max_attempts", max_attempts, 1, integer=True)
    number_option("concurrency", concurrency, 1, integer=True)


def summarize(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summary of scored items (the per-item dicts are returned under ``items``)."""
    summary: dict[str, Any] = {
        "n": len(items),
        "deterministic": mean_scores([item["deterministic"] for item in items]),
        "errors": dict(sorted(Counter(item["error"].split(":")[0] for item in items if item["error"]).items())),
        "unparsable": sum(bool(item["error"]) and item["error"].startswith("unreadable_prediction") for item in items),
        "items": list(items),
    }
    judged = [item["judge"]["scores"] for item in items if "judge" in item]
    if judged:
        summary["judge"] = aggregate(judged)
    return summary
