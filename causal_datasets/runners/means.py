"""The numbers of a task that declares none of its own: each item's numeric scores (every field of its
``scores`` model holding a number or a truth value) and their means over the scored items, in a metrics
model made from the ``scores`` model (:class:`causal_datasets.runners.task.Task`'s defaults)."""

from __future__ import annotations

import types
from statistics import fmean
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

from pydantic import BaseModel, Field, create_model

from causal_datasets.errors import RunConfigurationError
from causal_datasets.runners.records import BenchmarkMetrics, Slices

if TYPE_CHECKING:
    from causal_datasets.runners.task import Scored, TaskContext

#: the fields every metrics model has; the others are numbers
_SHARED = frozenset(BenchmarkMetrics.model_fields)
_NUMBERS = (bool, int, float)


def numeric_fields(scores: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``scores`` that hold a number or a truth value (or None), in declaration order."""
    return tuple(name for name, info in scores.model_fields.items() if _is_numeric(info.annotation))


def _is_numeric(annotation: Any) -> bool:
    if get_origin(annotation) in (Union, types.UnionType):
        kinds = [kind for kind in get_args(annotation) if kind is not type(None)]
        return bool(kinds) and all(kind in _NUMBERS for kind in kinds)
    return annotation in _NUMBERS


def numeric_scores(scores: BaseModel) -> dict[str, float]:
    """One item's headline numbers: each numeric field of ``scores`` that has a value, as a float."""
    values = {name: getattr(scores, name) for name in numeric_fields(type(scores))}
    return {name: float(value) for name, value in values.items() if value is not None}


def mean_metrics_model(benchmark: str, scores: type[BaseModel]) -> type[BenchmarkMetrics]:
    """The metrics model of ``benchmark``: the mean of each numeric field of ``scores``, titled as the field."""
    means: dict[str, Any] = {
        name: (
            float | None,
            Field(default=None, title=scores.model_fields[name].title or name, description=f"mean {name} per item"),
        )
        for name in numeric_fields(scores)
    }
    model_name = "".join(part.capitalize() for part in benchmark.replace("-", "_").split("_")) + "Metrics"
    return create_model(model_name, __base__=BenchmarkMetrics, benchmark=(str, benchmark), **means)


def mean_summary(results: list[Scored[Any, Any]], context: TaskContext) -> tuple[BenchmarkMetrics, Slices]:
    """The task's metrics as the means of ``item_scores`` over ``results`` (a field no item has: None), no slices;
    a :class:`RunConfigurationError` when ``item_scores`` gives a number the metrics model has no field for."""
    task = context.task
    per_item = [task.item_scores(result.scores) for result in results]
    fields = [name for name in task.metrics.model_fields if name not in _SHARED]
    strangers = sorted({key for scores in per_item for key in scores} - set(fields))
    if strangers:
        raise RunConfigurationError(
            f"{task.name}: item_scores gives {strangers[0]!r}, which its metrics model has no field for "
            "(declare the task's metrics and summarize)"
        )
    means = {name: _mean([scores[name] for scores in per_item if name in scores]) for name in fields}
    return task.metrics(benchmark=task.name, count=len(results), **means), {}


def _mean(values: list[float]) -> float | None:
    return fmean(values) if values else None
