"""Evaluation tasks and the engine that runs them.

Each benchmark module here declares ``TASK = Task(...)`` (:mod:`.task`); :func:`tasks` finds them and
:func:`causal_datasets.runners.engine.run_task` runs any of them. ``records`` holds the typed run
records, ``results`` the run folder's files.
"""

from __future__ import annotations

import importlib
import pkgutil

from causal_datasets.runners.task import Task


def tasks() -> dict[str, Task]:
    """Every benchmark module's ``TASK``, by name."""
    found: dict[str, Task] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        task = getattr(importlib.import_module(f"{__name__}.{info.name}"), "TASK", None)
        if isinstance(task, Task):
            found[task.name] = task
    return found
