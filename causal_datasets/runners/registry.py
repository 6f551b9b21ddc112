"""The evaluation tasks installed with this package or any other: the entry-point group ``causal_datasets.tasks``
(see :mod:`causal_datasets.registry`, which finds the builders the same way)."""

from __future__ import annotations

from functools import cache
from typing import Any

from causal_datasets.errors import TaskRegistrationError, UnknownBenchmark
from causal_datasets.registry import registered
from causal_datasets.runners.task import Task

TASK_ENTRY_POINT_GROUP = "causal_datasets.tasks"


@cache
def tasks() -> dict[str, Task[Any, Any, Any]]:
    """Every registered task, by benchmark name (sorted)."""
    return registered(TASK_ENTRY_POINT_GROUP, Task, "a task", TaskRegistrationError)


def get_task(name: str) -> Task[Any, Any, Any]:
    """The registered task of benchmark ``name``; :class:`UnknownBenchmark` if no installed package registers it."""
    known = tasks()
    if name not in known:
        raise UnknownBenchmark(
            f"unknown benchmark {name!r}: no installed package registers a task of that name "
            f"(known: {', '.join(known) or 'none'})"
        )
    return known[name]
