"""causal_datasets: five LLM causal-reasoning benchmarks as typed Hugging Face datasets, metrics and runners."""

from importlib.metadata import PackageNotFoundError, version

from causal_datasets.graph import CausalGraph, GraphError
from causal_datasets.paths import metric_path
from causal_datasets.scoring.graph_compare import (
    BatchComparison,
    GraphComparison,
    compare_graph_batch,
    compare_graphs,
)

try:
    __version__ = version("causal-datasets")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "BatchComparison",
    "CausalGraph",
    "GraphComparison",
    "GraphError",
    "__version__",
    "compare_graph_batch",
    "compare_graphs",
    "metric_path",
]
