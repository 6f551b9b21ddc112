"""Scoring shared by several benchmarks (graph comparison). Benchmark-specific metrics live in their own rooms."""

from causal_datasets.scoring.graph_compare import (
    BatchComparison,
    GraphComparison,
    ItemError,
    compare_graph_batch,
    compare_graphs,
    maximal_shd,
    unparsable_comparison,
)
from causal_datasets.scoring.node_matching import NodeMatch, match_nodes, normalize_name

__all__ = [
    "BatchComparison",
    "GraphComparison",
    "ItemError",
    "NodeMatch",
    "compare_graph_batch",
    "compare_graphs",
    "match_nodes",
    "maximal_shd",
    "normalize_name",
    "unparsable_comparison",
]
