"""The ``cobe_edit_criteria`` metric: references checked, rewrites judged, scores summarized.

References are rows of the ``cobe/queries`` config as they load (extra columns ignored, the
``domain``, ``graph_type`` and ``phrasing`` class labels as integers or names, absent or null when
not known) or any mapping with the four criterion lists. A missing or null criterion list is an
error, never an empty one: a reference without its ``should_change`` list would skip E2 and make
every rewrite easier to pass. A rewrite that is missing, not text or empty is ``wrong`` without a
judge call (the worst score) and is counted in ``unparsable``. See :mod:`causal_datasets.scoring.inputs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from causal_datasets.agreement import agreement
from causal_datasets.cobe.judge import ChatClient, judge_all
from causal_datasets.cobe.prompts import CriteriaSet
from causal_datasets.cobe.records import CoBeQuery
from causal_datasets.cobe.scoring import rater_agreement, summarize
from causal_datasets.scoring.inputs import batch_size, class_label, number_option

LABELS = ("domain", "graph_type", "phrasing")
_LABEL_FEATURES = {name: CoBeQuery.features()[name] for name in LABELS}


@dataclass(frozen=True)
class Reference:
    """What one reference gives the judge (its criteria) and the breakdowns (its labels)."""

    criteria: CriteriaSet
    labels: dict[str, str | None]


def read_references(
    predictions: Sequence[Any], references: Sequence[Any], *, max_attempts: Any, concurrency: Any
) -> list[Reference]:
    """Every reference checked, with the batch and the options, before any judge call.

    ``ValueError`` (``TypeError`` for a wrong type) naming the argument and the item."""
    batch_size(predictions, references)
    number_option("max_attempts", max_attempts, 1, integer=True)
    number_option("concurrency", concurrency, 1, integer=True)
    return [read_reference(row, index) for index, row in enumerate(references)]


def read_reference(row: Any, index: int) -> Reference:
    where = f"references[{index}]"
    if isinstance(row, CoBeQuery):
        row = row.model_dump()
    if not isinstance(row, Mapping):
        raise TypeError(f"{where} must be a cobe queries row (a dict), not {type(row).__name__}")
    lists = []
    for name in (field.name for field in fields(CriteriaSet)):
        if row.get(name) is None:
            raise ValueError(f"{where} lacks the criterion list {name!r} (give [] when the row has none)")
        items = row[name]
        if (
            isinstance(items, (str, bytes))
            or not isinstance(items, Sequence)
            or not all(isinstance(i, str) for i in items)
        ):
            raise TypeError(f"{where}.{name} must be a list of strings, not {items!r:.60}")
        lists.append(tuple(items))
    labels: dict[str, str | None] = dict.fromkeys(LABELS)
    for name in LABELS:
        if row.get(name) not in (None, ""):  # not known: left out of that breakdown
            labels[name] = class_label(row[name], _LABEL_FEATURES[name], f"{where}.{name}")
    return Reference(CriteriaSet(*lists), labels)


def score_responses(
    client: ChatClient,
    predictions: Sequence[Any],
    references: Sequence[Reference],
    *,
    max_attempts: int,
    concurrency: int,
    reference_verdicts: Sequence[str] | None = None,
    rater_verdicts: Sequence[Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Judge each rewrite against its checked reference (:func:`read_references`) and summarize."""
    responses = [text if isinstance(text, str) else "" for text in predictions]
    judgements = judge_all(
        client, [r.criteria for r in references], responses, max_attempts=max_attempts, concurrency=concurrency
    )
    rows = [judgement.scored(**reference.labels) for judgement, reference in zip(judgements, references, strict=True)]
    result = summarize(rows) | {
        "unparsable": sum(not text.strip() for text in responses),
        "items": [judgement.to_dict() for judgement in judgements],
    }
    verdicts = [judgement.verdict for judgement in judgements]
    if reference_verdicts is not None:
        result["agreement"] = agreement(verdicts, list(reference_verdicts))
    if rater_verdicts is not None:
        result["raters"] = rater_agreement(verdicts, [list(r) for r in rater_verdicts])
    return result
