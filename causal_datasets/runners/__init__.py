"""Evaluation tasks and the engine that runs them.

Each benchmark module here declares ``TASK = Task(...)`` (:mod:`.task`), registered under the entry-point
group ``causal_datasets.tasks`` like any other package's; :func:`tasks` finds them all and
:func:`causal_datasets.runners.engine.run_task` runs any of them, :mod:`.rescore` scores a finished run
again. ``records`` holds the typed run records, ``results`` the run folder's files.
"""

from __future__ import annotations

from typing import Any

from causal_datasets.runners.task import Task


def tasks() -> dict[str, Task[Any, Any, Any]]:
    """Every registered task, by name (:func:`causal_datasets.registry.tasks`)."""
    from causal_datasets.registry import tasks as registered

    return registered()
