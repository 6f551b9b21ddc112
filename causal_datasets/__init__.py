"""causal_datasets: five LLM causal-reasoning benchmarks as typed Hugging Face datasets, metrics and runners.

The public names load on first use (PEP 562), so a command such as ``equiv`` starts without the
graph-comparison code and ``importlib.metadata``, which only ``__version__`` needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from causal_datasets._moved import install as _install_moved_modules

if TYPE_CHECKING:  # what the names below resolve to, for type checkers and readers
    from causal_datasets.graph import CausalGraph, GraphError
    from causal_datasets.paths import metric_path
    from causal_datasets.scoring.graph_compare import (
        BatchComparison,
        GraphComparison,
        compare_graph_batch,
        compare_graphs,
    )

    __version__: str

#: every public name and the module that defines it
_SOURCES = {
    "graph": ("CausalGraph", "GraphError"),
    "paths": ("metric_path",),
    "scoring.graph_compare": ("BatchComparison", "GraphComparison", "compare_graph_batch", "compare_graphs"),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}
__all__ = sorted(["__version__", *_MODULE_OF])


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("causal-datasets")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0.0.0+unknown"


def __getattr__(name: str):
    if name == "__version__":
        value = _version()
    elif name in _MODULE_OF:
        value = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


_install_moved_modules()
