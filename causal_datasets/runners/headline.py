"""The few numbers a person reads first after a run: the mean of each per-item headline score.

The headline scores of an item are its task's ``item_scores`` (the numbers inspect_ai averages too:
accuracy, edge F1 ...); their means over the scored items, each with the 95% interval the summary
holds for the metric of its name, are what ``causal-datasets eval`` prints. Every other metric and
slice is in ``summary.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from causal_datasets.runners.records import RunSummary
from causal_datasets.runners.task import Task
from causal_datasets.uncertainty.intervals import Interval


@dataclass(frozen=True)
class HeadlineScore:
    """The mean of one headline score over the ``n`` scored items that have it; ``title`` is the metrics
    field's title and ``interval`` its interval where the summary has a number of that name."""

    name: str
    title: str
    mean: float
    n: int
    interval: Interval | None = None


def headline_scores(task: Task[Any, Any, Any], summary: RunSummary[Any],
                    results: Iterable[Mapping[str, Any]]) -> list[HeadlineScore]:
    """Each of ``task``'s headline scores over the scored ``results`` (``results.jsonl`` lines, read by the task's
    result model), first seen first."""
    values: dict[str, list[float]] = {}
    for line in results:
        result = task.result_model.model_validate(line)
        if result.status == "scored":
            for name, value in task.item_scores(result.scores).items():
                values.setdefault(name, []).append(value)
    fields = type(summary.metrics).model_fields
    intervals = summary.intervals.metrics if summary.intervals is not None else {}
    return [HeadlineScore(name, (fields[name].title if name in fields else None) or name.replace("_", " "),
                          fmean(scores), len(scores), intervals.get(name))
            for name, scores in values.items()]
