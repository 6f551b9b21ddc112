"""The import paths of modules that moved, kept working until :data:`REMOVED_IN`.

0.3 made ``docalc`` the verifier alone (the CLadder-pairs dataset code moved to
:mod:`causal_datasets.cladder_pairs`, the canonical printer joined the expression nodes) and put each
benchmark in one package (``causal_datasets/<benchmark>/``: its records, task, scoring, prompts and
generators). Importing an old path (``import causal_datasets.docalc.rows``, ``from
causal_datasets.report.views import View``) gives the module at its new path, the same object, with a
:class:`DeprecationWarning` that names it and points at the importing line. The finder runs after the
ordinary ones, so it only answers for paths whose file is gone.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: the first version without the old paths
REMOVED_IN = "0.4.0"

_DATASET_MODULES = (
    "cladder",
    "feedback",
    "judge",
    "paper_task",
    "quality",
    "rows",
    "statistics",
    "synthetic",
    "yes_no",
)
#: the benchmarks that each became one package: ``records.<x>`` → ``<x>.records``, ``runners.<x>`` → ``<x>.task``
_BENCHMARKS = ("causalab", "cladder_pairs", "cobe", "recast", "shapeworld")
#: old path → new path
MOVED = {f"causal_datasets.docalc.{name}": f"causal_datasets.cladder_pairs.{name}" for name in _DATASET_MODULES}
MOVED |= {
    f"causal_datasets.{old}.{x}": f"causal_datasets.{x}.{new}"
    for x in _BENCHMARKS
    for old, new in (("records", "records"), ("runners", "task"))
}
# the estimand task's prompt and scoring (``cladder_pairs.task`` is now the benchmark's Task declaration)
MOVED["causal_datasets.docalc.task"] = "causal_datasets.cladder_pairs.estimand_task"
# a split runner's old path gives the module of its TASK (which imports the other parts), except CausaLab's: its
# old task module's names went mostly to its summary (metrics, aggregates)
MOVED["causal_datasets.runners.causalab"] = "causal_datasets.causalab.summary"
MOVED["causal_datasets.docalc.printer"] = "causal_datasets.docalc.expr"
# the view vocabulary sits below both the tasks and the report
MOVED["causal_datasets.report.views"] = "causal_datasets.views"


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path (after the ordinary finders found no file there) and loads it as the module at its new one."""

    def find_spec(self, fullname, path, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname in MOVED else None

    def create_module(self, spec):
        return None  # an empty module, replaced by exec_module

    def exec_module(self, module) -> None:
        old = module.__name__
        new = MOVED[old]
        warnings.warn(
            f"{old} moved to {new}; import it from there ({old} stops working in {REMOVED_IN})",
            DeprecationWarning,
            stacklevel=2,
        )  # warn skips the import machinery's frames: the importing line
        sys.modules[old] = importlib.import_module(new)  # the import system returns what sys.modules holds


def install() -> None:
    """Add the finder to ``sys.meta_path`` once (after the ordinary finders)."""
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())
