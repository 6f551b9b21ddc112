"""The dataset builders installed with this package or any other, found through entry points (the evaluation
tasks' registry, :mod:`causal_datasets.runners.registry`, finds tasks the same way).

A distribution registers a builder under the entry-point group ``causal_datasets.builders`` and a
task (a benchmark for ``causal-datasets eval``, ``report``, ``rescore`` and inspect_ai) under
``causal_datasets.tasks``::

    [project.entry-points."causal_datasets.builders"]
    shapeworld = "causal_datasets.builders.shapeworld:BUILDER"

    [project.entry-points."causal_datasets.tasks"]
    shapeworld = "causal_datasets.shapeworld.task:TASK"

so a third-party package adds a benchmark without editing this one. The entry point's name must
equal the builder's or the task's ``name``.

The builders sit below the tasks (a task reads its datasets through :mod:`causal_datasets.hub.location`,
which finds builders here), so this module never imports the tasks.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import TypeVar

from causal_datasets.builder import DatasetBuilder
from causal_datasets.errors import (
    BuilderRegistrationError,
    CausalDatasetsError,
    UnknownDataset,
)

ENTRY_POINT_GROUP = "causal_datasets.builders"

T = TypeVar("T")


@cache
def builders() -> dict[str, DatasetBuilder]:
    """Every registered builder, by dataset name (sorted)."""
    return registered(ENTRY_POINT_GROUP, DatasetBuilder, "a builder", BuilderRegistrationError)


def get_builder(name: str) -> DatasetBuilder:
    known = builders()
    if name not in known:
        raise UnknownDataset(f"unknown dataset {name!r}; known: {', '.join(known) or 'none'}")
    return known[name]


def registered(group: str, kind: type[T], what: str, error: type[CausalDatasetsError]) -> dict[str, T]:
    """Every entry point of ``group``, loaded and checked to be a ``kind`` named as its entry point, by name
    (sorted); ``error`` for one that fails to load, is something else, or repeats a name."""
    found: dict[str, T] = {}
    for entry in entry_points(group=group):
        value = _load(entry, kind, error)
        if entry.name in found:
            raise error(f"two installed packages register {what} named {entry.name!r}")
        found[entry.name] = value
    return dict(sorted(found.items()))


def _load(entry: EntryPoint, kind: type[T], error: type[CausalDatasetsError]) -> T:
    where = f"entry point {entry.name!r} ({entry.value}) of {entry.dist.name if entry.dist else 'an unknown package'}"
    try:
        value = entry.load()
    except Exception as failure:  # a broken third-party entry must name itself, not crash discovery silently
        raise error(f"{where} failed to load: {type(failure).__name__}: {failure}") from failure
    if not isinstance(value, kind):
        raise error(f"{where} is {type(value).__name__}, not a {kind.__name__}")
    if value.name != entry.name:  # type: ignore[attr-defined]
        raise error(f"{where} is named {value.name!r}; the entry point must carry the same name")  # type: ignore[attr-defined]
    return value
