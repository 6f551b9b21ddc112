"""The import paths of modules that moved, kept working until :data:`REMOVED_IN`.

0.3 made ``docalc`` the verifier alone (the CLadder-pairs dataset code moved to
:mod:`causal_datasets.cladder_pairs`, the canonical printer joined the expression nodes) and put each
benchmark in one package (``causal_datasets/<benchmark>/``: its records, task, scoring, prompts and
generators). Importing an old path (``import causal_datasets.docalc.rows``, ``from
causal_datasets.report.views import View``) gives the module at its new path, the same object, with a
:class:`DeprecationWarning` that names it and points at the importing line. A benchmark's runner was
split by concern (:data:`SPLIT`): its old path gives a module that finds each old name in the parts,
the same objects. The finder runs after the ordinary ones, so it only answers for paths whose file is gone.
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
#: each benchmark's runner (``runners/<x>.py``) and the modules of its package it was split into
_RUNNER_PARTS = {
    "causalab": ("task", "play", "options", "scores", "summary", "estimates", "view", "upstream_scores", "sweep"),
    "cladder_pairs": ("task", "options", "replies", "generation", "scores", "metrics"),
    "cobe": ("task", "options", "scores", "summary", "estimates", "view"),
    "recast": ("task", "options", "scores", "summary", "estimates", "view"),
    "shapeworld": ("task", "summary", "view"),
}
#: old path → new path
MOVED = {f"causal_datasets.docalc.{name}": f"causal_datasets.cladder_pairs.{name}" for name in _DATASET_MODULES}
MOVED |= {f"causal_datasets.records.{x}": f"causal_datasets.{x}.records" for x in _RUNNER_PARTS}
# the estimand task's prompt and scoring (``cladder_pairs.task`` is now the benchmark's Task declaration)
MOVED["causal_datasets.docalc.task"] = "causal_datasets.cladder_pairs.estimand_task"
MOVED["causal_datasets.docalc.printer"] = "causal_datasets.docalc.expr"
# the view vocabulary sits below both the tasks and the report
MOVED["causal_datasets.report.views"] = "causal_datasets.views"
#: old path of a split module → its parts, searched in order for each old name
SPLIT = {
    f"causal_datasets.runners.{x}": tuple(f"causal_datasets.{x}.{part}" for part in parts)
    for x, parts in _RUNNER_PARTS.items()
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path (after the ordinary finders found no file there) and loads it as the module at its new one."""

    def find_spec(self, fullname, path, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname in MOVED or fullname in SPLIT else None

    def create_module(self, spec):
        return None  # an empty module, replaced by exec_module

    def exec_module(self, module) -> None:
        old = module.__name__
        new = MOVED.get(old) or f"{', '.join(SPLIT[old])} (split by concern)"
        warnings.warn(
            f"{old} moved to {new}; import it from there ({old} stops working in {REMOVED_IN})",
            DeprecationWarning,
            stacklevel=2,
        )  # warn skips the import machinery's frames: the importing line
        if old in MOVED:
            sys.modules[old] = importlib.import_module(new)  # the import system returns what sys.modules holds
        else:
            module.__getattr__ = _name_in_parts(old, SPLIT[old])


def _name_in_parts(old: str, parts: tuple[str, ...]):
    """A module ``__getattr__`` that gives an old name from the first part that has it."""

    def name_in_parts(name: str):
        for part in parts:
            module = importlib.import_module(part)
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r} (its parts: {', '.join(parts)})")

    return name_in_parts


def install() -> None:
    """Add the finder to ``sys.meta_path`` once (after the ordinary finders)."""
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())
