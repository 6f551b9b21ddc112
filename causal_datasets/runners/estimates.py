"""The intervals of a run's summary, from the task's declaration (:class:`~causal_datasets.runners.task.Estimates`).

The numbers are read off each scored item's typed scores (the task's ``scores`` model). Every item has
*units*: its ``cluster`` (the unit it shares with other items) and its slice ``groups``
(``{slice: [entry key, ...]}``). :func:`item_units` computes them from the dataset row when the item's
result line is written, so the line carries them and later readers (``compare``, inspect_ai's clustered
``stderr``) need no dataset.

:func:`summary_intervals` gives the summary's :class:`~causal_datasets.runners.records.RunIntervals`. The
numbers it can estimate are the means of ``item_scores`` (one per key) and the task's own estimators
(which replace a mean of the same name); each gets an interval where the summary holds it as a number:
in ``metrics`` by name or dotted path (``failure_rate.E1``), and in every slice entry, over the items the
groups put there (a crossed mapping in an entry, e.g. CoBe's ``model_accuracy``, over the entry's items in
each entry of the other slice). A number the summary does not hold is not estimated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
from pydantic import BaseModel

from causal_datasets.runners.records import RunIntervals, Slices
from causal_datasets.runners.task import Item, Task, TaskContext
from causal_datasets.uncertainty import ITEM, Estimator, Interval, Mean, cluster_codes, interval, item_values

Units = dict[str, Any]


def item_cluster(task: Task[Any, Any, Any], item: Item) -> str:
    """The unit ``item`` shares with other items (its id when the task shares none)."""
    spec = task.estimates
    return str(spec.cluster(item) if spec is not None and spec.cluster is not None else item.id)


def item_units(task: Task[Any, Any, Any], item: Item, context: TaskContext) -> Units:
    """``{"cluster": ..., "groups": {slice: [keys]}}`` of one item (its id as cluster when the task shares none)."""
    spec = task.estimates
    groups = spec.groups(item, context) if spec is not None and spec.groups is not None else {}
    return {
        "cluster": item_cluster(task, item),
        "groups": {
            name: [keys] if isinstance(keys, str) else [str(k) for k in keys]
            for name, keys in groups.items()
            if keys is not None
        },
    }


def line_units(line: Mapping[str, Any]) -> Units:
    """The units a result line carries (a line written before format 3: its own cluster, no groups)."""
    return {"cluster": line.get("cluster") or line["id"], "groups": line.get("groups") or {}}


def unit_name(task: Task[Any, Any, Any]) -> str:
    return task.estimates.unit if task.estimates is not None else ITEM


def estimators(task: Task[Any, Any, Any], results: Sequence[Any]) -> list[Estimator]:
    """The means of every ``item_scores`` key the results have, then the task's own estimators (a declared
    estimator replaces the mean of the same name)."""
    declared = list(task.estimates.estimators) if task.estimates is not None else []
    names = {estimator.name for estimator in declared}
    keys = dict.fromkeys(key for result in results for key in task.item_scores(result))
    means = [Mean(key, partial(_item_score, task.item_scores, key)) for key in keys if key not in names]
    return [*means, *declared]


def _item_score(scores: Callable[[Any], dict[str, float]], key: str, result: Any) -> float | None:
    return scores(result).get(key)


def members(units: Sequence[Units], slice_name: str) -> dict[str, list[int]]:
    """Per entry key of ``slice_name``: the positions of the items the groups put there."""
    entries: dict[str, list[int]] = {}
    for position, unit in enumerate(units):
        for key in unit["groups"].get(slice_name, ()):
            entries.setdefault(key, []).append(position)
    return entries


def summary_intervals(
    task: Task[Any, Any, Any], metrics: BaseModel, slices: Slices, results: Sequence[Any], units: Sequence[Units]
) -> RunIntervals:
    """The intervals of every number of ``metrics`` and ``slices`` an estimator gives, over the scored items'
    ``results`` (their typed scores; ``units[i]`` those of ``results[i]``)."""
    unit = unit_name(task)
    codes = cluster_codes([u["cluster"] for u in units])
    found = estimators(task, results)
    values = {estimator.name: item_values(estimator, results) for estimator in found}

    def intervals(numbers: Mapping[str, Any], rows: np.ndarray | slice) -> dict[str, Interval]:
        flat = flatten(numbers)
        estimated = {
            e.name: interval(e, values[e.name][rows], codes[rows], unit) for e in found if _is_number(flat.get(e.name))
        }
        return {name: value for name, value in estimated.items() if value is not None}

    crossed = task.estimates.crossed if task.estimates is not None else {}
    by_estimator = {estimator.name: estimator for estimator in found}

    def crossed_intervals(entry: Mapping[str, Any], rows: list[int]) -> dict[str, Interval]:
        """``field.key`` of each crossed field in the entry: its number over the entry's items in ``slice[key]``."""
        out: dict[str, Interval] = {}
        for field, (other, number) in crossed.items():
            inner = members(units, other)
            for key in entry.get(field) or {}:
                both = np.array(sorted(set(rows) & set(inner.get(key, ()))), dtype=np.intp)
                if number in by_estimator and len(both):
                    result = interval(by_estimator[number], values[number][both], codes[both], unit)
                    if result is not None:
                        out[f"{field}.{key}"] = result
        return out

    by_slice: dict[str, dict[str, dict[str, Interval]]] = {}
    for name, entries in slices.items():
        positions = members(units, name)
        table = {
            key: intervals(entry, np.array(rows, dtype=np.intp)) | crossed_intervals(entry, rows)
            for key, entry in entries.items()
            if isinstance(entry, Mapping) and (rows := positions.get(key))
        }
        if any(table.values()):
            by_slice[name] = {key: found_here for key, found_here in table.items() if found_here}
    return RunIntervals(
        unit=unit,
        clusters=len(set(codes.tolist())),
        metrics=intervals(metrics.model_dump(), slice(None)),
        slices=by_slice,
    )


def flatten(entry: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}, "c": 2}`` → ``{"a.b": 1, "c": 2}``."""
    flat: dict[str, Any] = {}
    for key, value in entry.items():
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
