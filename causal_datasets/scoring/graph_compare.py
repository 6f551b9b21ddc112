"""Compare a predicted directed graph with a reference graph: SHD and node/edge precision, recall, F1.

Definitions. After node matching (:mod:`causal_datasets.scoring.node_matching`) and removal of
duplicate edges, let P be the set of predicted directed edges and R the set of reference edges
(self-loops ``(a, a)`` are ordinary edges; ``a → b`` and ``b → a`` are two different edges).

- ``true_positives`` = |P ∩ R|; ``false_positives`` = |P \\ R|; ``false_negatives`` = |R \\ P|.
- ``reversed`` = the number of predicted edges ``(b, a)`` in P \\ R whose reverse ``(a, b)`` is in
  R \\ P (so ``a ≠ b``). Each reversed pair pairs one false positive with one false negative;
  when both directions are in R (a 2-cycle) a predicted direction is a true positive, never
  reversed, and a predicted 2-cycle against a single reference edge is one true positive plus
  one extra edge.
- ``extra`` = false_positives − reversed; ``missing`` = false_negatives − reversed.
- ``shd`` = missing + extra + ``reversal_cost`` × reversed. With ``reversal_cost=1`` (pcalg,
  causal-learn, gadjid, gCastle) and graphs without 2-cycles this is the number of unordered
  node pairs whose connection differs; with ``reversal_cost=2`` (cdt, ReCAST's published
  numbers) it is |P △ R|, the number of differing adjacency-matrix entries. With 2-cycles each
  direction counts as an edge of its own (a reference ``a ⇄ b`` against nothing costs 2).
- ``normalized_shd`` = shd / max(d, 1), where d is named by ``normalization``:
  ``"node_pairs"`` — n(n−1) with n the number of nodes of the reference (ReCAST divides by
  n(n−1) over the union of both graphs' nodes); ``"reference_edges"`` — |R| (ReCAST's annotator-agreement table). The
  denominator is the reference's alone, so naming nodes it does not have never lowers the
  normalized SHD: every invented edge adds to shd and nothing to d (earlier versions let n
  count the nodes of both graphs, and 1,000 edges between invented nodes scored 0.001 against
  0.5 for an empty answer). Self-loops and edges between nodes the reference lacks can push it
  above 1.
- Edge precision = TP / |P|, recall = TP / |R|, F1 = 2·TP / (|P| + |R|) (their harmonic mean).
  Nodes likewise, on the node sets (declared nodes plus edge ends; predicted nodes after
  matching, so merged spellings count once). A rate whose denominator is 0 is 1.0 when both
  sets are empty (the graphs agree) and 0.0 otherwise; nothing divides by zero.

An unparsable prediction (None, or anything :mod:`~causal_datasets.scoring.graph_reading` refuses)
gets the worst score of its item in a batch (:func:`unparsable_comparison`): every rate 0.0 and the maximal SHD,
:func:`maximal_shd` — n(n−1) for the n nodes of the reference, i.e. every ordered pair of distinct
reference nodes wrong, the most any prediction without self-loops over those nodes can score with
``reversal_cost`` ≤ 2 (and at least the number of reference edges, and at least 1, so that it never
ties a correct answer). Its counts are those of an empty answer (every reference edge and node
missed), so pooled (micro) rates treat it as one.

Graphs may be given in any form :mod:`causal_datasets.scoring.graph_reading` reads (edge lists, edge-list
text, a :class:`~causal_datasets.CausalGraph`, adjacency matrices). Counting is set arithmetic on edge tuples,
O(|V| + |E|); two adjacency matrices are compared exactly on sorted int64 keys ``i·n + j`` in numpy instead
(:mod:`causal_datasets.scoring.graph_counts`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from statistics import fmean
from typing import Any, Literal, get_args

import numpy as np

from causal_datasets.graph import GraphError
from causal_datasets.scoring.graph_counts import (
    RATE_FIELDS,
    GraphComparison,
    comparison,
    count_edge_keys,
    count_edge_sets,
    rates,
)
from causal_datasets.scoring.graph_reading import (
    Node,
    duplicate_warning,
    is_matrix,
    matrix_entries,
    read_side,
    square_size,
)
from causal_datasets.scoring.inputs import batch_size, number_option
from causal_datasets.scoring.node_matching import (
    DEFAULT_FUZZY_THRESHOLD,
    NODE_MATCHING_MODES,
    NodeMatching,
    id_table,
    match_nodes,
)

Normalization = Literal["node_pairs", "reference_edges"]
NORMALIZATIONS: tuple[str, ...] = get_args(Normalization)


@dataclass(frozen=True, slots=True)
class ItemError:
    """A batch item whose prediction could not be read; its slot in ``items`` holds the worst score."""

    index: int
    message: str


@dataclass(frozen=True, slots=True)
class BatchComparison:
    """Per-item comparisons plus micro and macro averages over every item, unparsable ones included.

    ``macro``: the mean over items of each rate, of ``shd`` and of ``normalized_shd``.
    ``micro``: rates from the counts pooled over items, ``normalized_shd`` = Σ shd / Σ
    max(normalizer, 1), ``shd_total`` and the pooled counts. Both carry ``count`` (items) and
    ``unparsable`` (items whose prediction could not be read, listed in ``errors``).
    """

    items: list[GraphComparison]
    errors: list[ItemError]
    micro: dict[str, float]
    macro: dict[str, float]


@dataclass(frozen=True, slots=True)
class _Unmatched:
    """A predicted node that matched no reference node; never equal to any reference name."""

    name: Node


def compare_graphs(
    prediction: Any,
    reference: Any,
    *,
    reversal_cost: float = 1,
    node_matching: NodeMatching = "exact",
    normalization: Normalization = "node_pairs",
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    node_ids: Mapping[Hashable, str] | None = None,
    prediction_nodes: Iterable[Node] = (),
    reference_nodes: Iterable[Node] = (),
) -> GraphComparison:
    """Compare ``prediction`` with ``reference`` (formats and definitions: module docstring).

    ``node_matching`` is ``"exact"``, ``"normalized"``, ``"fuzzy"`` (one-to-one, similarity ≥
    ``fuzzy_threshold``) or ``"ids"`` (predicted nodes are ids, ``node_ids={id: reference name}``).
    ``prediction_nodes`` / ``reference_nodes`` add nodes without edges. Raises ``GraphError`` on
    an unreadable graph and ``ValueError`` on a bad option.
    """
    _check_options(reversal_cost, node_matching, normalization, node_ids, fuzzy_threshold)
    prediction_nodes, reference_nodes = tuple(prediction_nodes), tuple(reference_nodes)
    if (
        node_matching == "exact"
        and is_matrix(prediction)
        and is_matrix(reference)
        and not prediction_nodes
        and not reference_nodes
    ):
        return _compare_matrices(prediction, reference, reversal_cost, normalization)
    pred = read_side(prediction, prediction_nodes, "prediction")
    ref = read_side(reference, reference_nodes, "reference")
    warnings = [message for side in (pred, ref) if (message := duplicate_warning(side))]

    pred_nodes: AbstractSet[Hashable]  # an _Unmatched stands for a predicted node matching none
    pred_edges: AbstractSet[tuple[Hashable, Hashable]]
    node_mapping: dict[Hashable, Hashable]
    if node_matching == "exact":
        pred_nodes = pred.nodes.keys()
        shared = list(filter(ref.nodes.__contains__, pred.nodes))
        node_mapping = dict(zip(shared, shared, strict=True))
        pred_edges = pred.edges
    else:
        match = match_nodes(
            list(pred.nodes),
            list(ref.nodes),
            node_matching,
            threshold=fuzzy_threshold,
            node_ids=node_ids,
        )
        warnings.extend(match.warnings)
        node_mapping = match.mapping
        rename = {n: node_mapping[n] if n in node_mapping else _Unmatched(n) for n in pred.nodes}
        pred_nodes = set(rename.values())
        pred_edges = {(rename[s], rename[t]) for s, t in pred.edges}
        if len(pred_edges) < len(pred.edges):
            warnings.append(
                f"{len(pred.edges) - len(pred_edges)} predicted edge(s) coincide after node matching and count once"
            )
    node_tp = len(node_mapping) if node_matching == "exact" else len(pred_nodes & ref.nodes.keys())
    return comparison(
        count_edge_sets(pred_edges, ref.edges),
        (len(pred_nodes), len(ref.nodes), node_tp),
        node_mapping,
        warnings,
        reversal_cost,
        normalization,
    )


def _compare_matrices(prediction: Any, reference: Any, reversal_cost: float, normalization: str) -> GraphComparison:
    """Exact comparison of two adjacency matrices on sorted int64 keys ``i·n + j`` (all in numpy)."""
    n = max(square_size(prediction, "prediction"), square_size(reference, "reference"))
    warnings: list[str] = []
    keys = []
    for matrix, side in ((prediction, "prediction"), (reference, "reference")):
        rows, cols = matrix_entries(matrix, side)
        sorted_keys = np.sort(rows.astype(np.int64) * n + cols)
        repeated = sorted_keys[1:] == sorted_keys[:-1]
        if repeated.any():
            warnings.append(f"{side}: {int(repeated.sum())} repeated matrix entries counted once")
            sorted_keys = sorted_keys[np.concatenate(([True], ~repeated))]
        keys.append(sorted_keys)
    n_pred, n_ref = prediction.shape[0], reference.shape[0]
    common = min(n_pred, n_ref)
    return comparison(
        count_edge_keys(keys[0], keys[1], n),
        (n_pred, n_ref, common),
        dict(zip(range(common), range(common), strict=True)),
        warnings,
        reversal_cost,
        normalization,
    )


def maximal_shd(reference_nodes: int, reference_edges: int) -> int:
    """The SHD an unparsable prediction gets: n(n−1) for n reference nodes (module docstring), at least
    the number of reference edges (an empty answer's SHD) and at least 1."""
    return max(reference_nodes * (reference_nodes - 1), reference_edges, 1)


def unparsable_comparison(
    reference: Any,
    *,
    reversal_cost: float = 1,
    normalization: Normalization = "node_pairs",
    reference_nodes: Iterable[Node] = (),
    reason: str = "the prediction could not be read",
) -> GraphComparison:
    """The worst score against ``reference``: every rate 0.0, :func:`maximal_shd`, and the counts of an
    empty answer; ``reason`` becomes its warning. Raises ``GraphError`` when ``reference`` is unreadable."""
    _check_options(reversal_cost, "exact", normalization, None)
    ref = read_side(reference, tuple(reference_nodes), "reference")
    n, n_edges = len(ref.nodes), len(ref.edges)
    shd = maximal_shd(n, n_edges)
    normalizer = n * (n - 1) if normalization == "node_pairs" else n_edges
    return GraphComparison(
        node_precision=0.0,
        node_recall=0.0,
        node_f1=0.0,
        edge_precision=0.0,
        edge_recall=0.0,
        edge_f1=0.0,
        shd=shd,
        normalized_shd=shd / max(normalizer, 1),
        normalization=normalization,
        normalizer=normalizer,
        reversal_cost=reversal_cost,
        true_positives=0,
        false_positives=0,
        false_negatives=n_edges,
        reversed=0,
        missing=n_edges,
        extra=0,
        node_true_positives=0,
        node_false_positives=0,
        node_false_negatives=n,
        warnings=[f"unparsable prediction, scored as the worst: {reason}"],
    )


def _check_options(
    reversal_cost: Any,
    node_matching: Any,
    normalization: Any,
    node_ids: Any,
    fuzzy_threshold: Any = DEFAULT_FUZZY_THRESHOLD,
) -> None:
    number_option("reversal_cost", reversal_cost, 1, 2)  # 1 (pcalg, gadjid) or 2 (cdt, ReCAST's numbers)
    number_option("fuzzy_threshold", fuzzy_threshold, 0, 1)
    if node_matching not in NODE_MATCHING_MODES:
        raise ValueError(f"unknown node_matching {node_matching!r}; choose one of {list(NODE_MATCHING_MODES)}")
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}; choose one of {list(NORMALIZATIONS)}")
    if node_matching == "ids" and node_ids is None:
        raise ValueError("node_matching='ids' needs node_ids={id: reference name}")


def compare_graph_batch(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    reversal_cost: float = 1,
    node_matching: NodeMatching = "exact",
    normalization: Normalization = "node_pairs",
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    node_ids: Mapping[Hashable, str] | Sequence[Mapping[Hashable, str] | None] | None = None,
) -> BatchComparison:
    """:func:`compare_graphs` on aligned pairs, plus averages.

    A prediction that cannot be read gets the worst score (:func:`unparsable_comparison`) and is
    listed in ``errors``; it stays in every average. An empty batch, a bad option or a reference
    that cannot be read is a ``ValueError`` (``TypeError`` for a reference of the wrong type) naming
    it. ``node_ids`` is one id table for every item or a sequence with one table per item.
    """
    _check_options(reversal_cost, node_matching, normalization, node_ids, fuzzy_threshold)
    count = batch_size(predictions, references)
    if node_ids is None or isinstance(node_ids, Mapping):
        tables = [node_ids] * count
    else:
        tables = list(node_ids)
        if len(tables) != count:
            raise ValueError(f"{len(tables)} node_ids tables for {count} items")
    for index, table in enumerate(tables):  # the caller's tables: a bad one is an error, never a worst score
        try:
            if table is not None:
                id_table(table)
        except (TypeError, ValueError) as error:
            raise type(error)(f"node_ids[{index}]: {error}") from None
    items: list[GraphComparison] = []
    errors: list[ItemError] = []
    for index, (prediction, reference, table) in enumerate(zip(predictions, references, tables, strict=True)):
        try:
            items.append(
                compare_graphs(
                    prediction,
                    reference,
                    reversal_cost=reversal_cost,
                    node_matching=node_matching,
                    normalization=normalization,
                    fuzzy_threshold=fuzzy_threshold,
                    node_ids=table,
                )
            )
        except (GraphError, ValueError, TypeError) as error:
            reason = "no prediction" if prediction is None else str(error)
            items.append(_worst_item(reference, index, reason, reversal_cost, normalization))
            errors.append(ItemError(index, reason))
    return BatchComparison(items, errors, _micro(items, len(errors)), _macro(items, len(errors)))


def _worst_item(
    reference: Any, index: int, reason: str, reversal_cost: float, normalization: Normalization
) -> GraphComparison:
    """The worst score of item ``index`` whose comparison failed; the failure is the reference's when it
    cannot be read on its own: then a ``ValueError`` (``TypeError``) naming ``references[index]``."""
    try:
        return unparsable_comparison(reference, reversal_cost=reversal_cost, normalization=normalization, reason=reason)
    except (GraphError, ValueError, TypeError) as error:
        kind = TypeError if isinstance(error, TypeError) else ValueError
        raise kind(f"references[{index}]: {str(error).removeprefix('reference: ')}") from None


def _macro(items: list[GraphComparison], unparsable: int) -> dict[str, float]:
    fields = (*RATE_FIELDS, "shd", "normalized_shd")
    averages = {name: fmean(getattr(item, name) for item in items) for name in fields}
    return {**averages, "count": len(items), "unparsable": unparsable}


def _micro(items: list[GraphComparison], unparsable: int) -> dict[str, float]:
    def total(name: str) -> int:
        return sum(getattr(item, name) for item in items)

    tp, fp, fn = total("true_positives"), total("false_positives"), total("false_negatives")
    node_tp = total("node_true_positives")
    agree = not unparsable  # nothing predicted and nothing to find agrees only when every prediction was read
    node_rates = rates(node_tp, node_tp + total("node_false_positives"), node_tp + total("node_false_negatives"), agree)
    edge_rates = rates(tp, tp + fp, tp + fn, agree)
    shd_total = total("shd")
    denominator = sum(max(item.normalizer, 1) for item in items)
    return {
        **dict(zip(("node_precision", "node_recall", "node_f1"), node_rates, strict=True)),
        **dict(zip(("edge_precision", "edge_recall", "edge_f1"), edge_rates, strict=True)),
        "normalized_shd": shd_total / denominator,
        "shd_total": shd_total,
        "true_positives": tp,
        "false_positives": fp,
        "false_negatives": fn,
        "reversed": total("reversed"),
        "missing": total("missing"),
        "extra": total("extra"),
        "count": len(items),
        "unparsable": unparsable,
    }
