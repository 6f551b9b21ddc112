"""Evaluation tasks and the engine that runs them.

Each benchmark module here declares ``TASK = Task(...)`` (:mod:`.task`), registered under the entry-point
group ``causal_datasets.tasks`` like any other package's; :func:`tasks` (:mod:`.registry`) finds them all and
:func:`causal_datasets.runners.engine.run_task` runs any of them, :mod:`.rescore` scores a finished run
again. ``records`` holds the typed run records, ``results`` the run folder's files.
"""

from causal_datasets.runners.registry import get_task, tasks

__all__ = ["get_task", "tasks"]
