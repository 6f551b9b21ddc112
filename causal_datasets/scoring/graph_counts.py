"""The counts of one comparison (true and false positives, reversed edges) and the SHD and rates they give,
as :class:`GraphComparison`; the definitions are in :mod:`causal_datasets.scoring.graph_compare`.

Two edge sets are counted with set arithmetic; two adjacency matrices on sorted int64 keys ``i·n + j`` in numpy.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from causal_datasets.scoring.graph_reading import Node

RATE_FIELDS = ("node_precision", "node_recall", "node_f1", "edge_precision", "edge_recall", "edge_f1")


@dataclass(slots=True)
class GraphComparison:
    """The comparison of one predicted graph with one reference graph (module docstring defines each field).

    Not frozen: building a frozen 22-field instance costs about as much as the comparison itself.
    """

    node_precision: float
    node_recall: float
    node_f1: float
    edge_precision: float
    edge_recall: float
    edge_f1: float
    shd: float
    normalized_shd: float
    normalization: str
    normalizer: int
    reversal_cost: float
    true_positives: int
    false_positives: int
    false_negatives: int
    reversed: int
    missing: int
    extra: int
    node_true_positives: int
    node_false_positives: int
    node_false_negatives: int
    node_mapping: dict[Node, Node] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def count_edge_sets(pred: AbstractSet[Any], ref: AbstractSet[Any]) -> tuple[int, int, int, int]:
    """(true positives, false positives, false negatives, reversed) of two edge sets."""
    extra = pred - ref
    fp = len(extra)
    tp = len(pred) - fp
    fn = len(ref) - tp
    n_reversed = 0
    if fp and fn:
        missing = ref - pred
        n_reversed = sum((t, s) in missing for s, t in extra)
    return tp, fp, fn, n_reversed


def count_edge_keys(pred: np.ndarray, ref: np.ndarray, n: int) -> tuple[int, int, int, int]:
    """:func:`count_edge_sets` for sorted unique edge keys ``source·n + target``."""
    in_ref = _member(pred, ref)
    tp = int(np.count_nonzero(in_ref))
    fp, fn = pred.size - tp, ref.size - tp
    n_reversed = 0
    if fp and fn:
        extra = pred[~in_ref]
        missing = ref[~_member(ref, pred)]
        n_reversed = int(np.count_nonzero(_member((extra % n) * n + extra // n, missing)))
    return tp, fp, fn, n_reversed


def _member(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean mask: which ``values`` occur in the sorted array ``sorted_keys`` (binary search)."""
    if not sorted_keys.size:
        return np.zeros(values.shape, dtype=bool)
    where = np.minimum(np.searchsorted(sorted_keys, values), sorted_keys.size - 1)
    return sorted_keys[where] == values


def comparison(
    edge_counts: tuple[int, int, int, int],
    node_counts: tuple[int, int, int],
    node_mapping: dict,
    warnings: list[str],
    reversal_cost: float,
    normalization: str,
) -> GraphComparison:
    tp, fp, fn, n_reversed = edge_counts
    n_pred_nodes, n_ref_nodes, node_tp = node_counts
    missing, extra = fn - n_reversed, fp - n_reversed
    shd = missing + extra + reversal_cost * n_reversed
    if normalization == "node_pairs":  # the reference's nodes only: invented ones never widen the denominator
        normalizer = n_ref_nodes * (n_ref_nodes - 1)
    else:
        normalizer = tp + fn
    node_p, node_r, node_f = rates(node_tp, n_pred_nodes, n_ref_nodes)
    edge_p, edge_r, edge_f = rates(tp, tp + fp, tp + fn)
    return GraphComparison(
        node_precision=node_p,
        node_recall=node_r,
        node_f1=node_f,
        edge_precision=edge_p,
        edge_recall=edge_r,
        edge_f1=edge_f,
        shd=shd,
        normalized_shd=shd / max(normalizer, 1),
        normalization=normalization,
        normalizer=normalizer,
        reversal_cost=reversal_cost,
        true_positives=tp,
        false_positives=fp,
        false_negatives=fn,
        reversed=n_reversed,
        missing=missing,
        extra=extra,
        node_true_positives=node_tp,
        node_false_positives=n_pred_nodes - node_tp,
        node_false_negatives=n_ref_nodes - node_tp,
        node_mapping=node_mapping,
        warnings=warnings,
    )


def rates(tp: int, n_pred: int, n_ref: int, empty_agrees: bool = True) -> tuple[float, float, float]:
    """(precision, recall, F1); all 1.0 when both sets are empty (unless not ``empty_agrees``), a 0
    denominator gives 0.0 otherwise."""
    if not n_pred and not n_ref:
        return (1.0, 1.0, 1.0) if empty_agrees else (0.0, 0.0, 0.0)
    return (
        tp / n_pred if n_pred else 0.0,
        tp / n_ref if n_ref else 0.0,
        2 * tp / (n_pred + n_ref),
    )
