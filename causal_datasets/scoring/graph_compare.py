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
  ``"node_pairs"`` — n(n−1) with n the number of nodes in the union of both graphs after
  matching (ReCAST's normalization); ``"reference_edges"`` — |R| (ReCAST's annotator-agreement
  table). Only self-loops can push it above 1 under ``node_pairs``.
- Edge precision = TP / |P|, recall = TP / |R|, F1 = 2·TP / (|P| + |R|) (their harmonic mean).
  Nodes likewise, on the node sets (declared nodes plus edge ends; predicted nodes after
  matching, so merged spellings count once). A rate whose denominator is 0 is 1.0 when both
  sets are empty (the graphs agree) and 0.0 otherwise; nothing divides by zero.

Graphs may be given as a list of ``{"source", "target"}`` dicts, ``(source, target)`` pairs or
``"A -> B"`` strings, a whole edge-list text (``"A -> B, B -> C"``), a
:class:`~causal_datasets.CausalGraph`, or a square 0/1 adjacency matrix (numpy or scipy.sparse;
entry (i, j) = edge i → j, nodes 0…n−1). Node names are strings (whitespace-cleaned like
``CausalGraph`` names) or integers. Counting is set arithmetic on edge tuples, O(|V| + |E|); two
adjacency matrices are compared exactly on sorted int64 keys ``i·n + j`` in numpy instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass, field
from itertools import chain
from operator import itemgetter
from numbers import Integral, Real
from statistics import fmean
from typing import Any, Literal, get_args

import numpy as np

from causal_datasets.graph import CausalGraph, GraphError, parse_edge
from causal_datasets.scoring.node_matching import (
    DEFAULT_FUZZY_THRESHOLD,
    NODE_MATCHING_MODES,
    NodeMatching,
    preview,
    match_nodes,
)

Node = str | int
Edge = tuple[Node, Node]
Normalization = Literal["node_pairs", "reference_edges"]
NORMALIZATIONS: tuple[str, ...] = get_args(Normalization)


_ENDS = itemgetter("source", "target")
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


@dataclass(frozen=True, slots=True)
class ItemError:
    """A batch item that could not be compared (unreadable graph); its slot in ``items`` is None."""

    index: int
    message: str


@dataclass(frozen=True, slots=True)
class BatchComparison:
    """Per-item comparisons plus micro and macro averages over the items that could be compared.

    ``macro``: the mean over items of each rate, of ``shd`` and of ``normalized_shd``.
    ``micro``: rates from the counts pooled over items, ``normalized_shd`` = Σ shd / Σ
    max(normalizer, 1), ``shd_total`` and the pooled counts. Both carry ``count`` (items
    compared); with no comparable item every average is 0.0.
    """

    items: list[GraphComparison | None]
    errors: list[ItemError]
    micro: dict[str, float]
    macro: dict[str, float]


@dataclass(frozen=True, slots=True)
class _Unmatched:
    """A predicted node that matched no reference node; never equal to any reference name."""

    name: Node


@dataclass(slots=True)
class _Side:
    name: str
    edges: set[Edge]
    nodes: dict[Node, None]
    duplicates: list[Edge]


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
    _check_options(reversal_cost, node_matching, normalization, node_ids)
    prediction_nodes, reference_nodes = tuple(prediction_nodes), tuple(reference_nodes)
    if (node_matching == "exact" and _is_matrix(prediction) and _is_matrix(reference)
            and not prediction_nodes and not reference_nodes):
        return _compare_matrices(prediction, reference, reversal_cost, normalization)
    pred = _read_side(prediction, prediction_nodes, "prediction")
    ref = _read_side(reference, reference_nodes, "reference")
    warnings = [message for side in (pred, ref) if (message := _duplicate_warning(side))]

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
            list(pred.nodes), list(ref.nodes), node_matching,
            threshold=fuzzy_threshold, node_ids=node_ids,
        )
        warnings.extend(match.warnings)
        node_mapping = match.mapping
        rename = {n: node_mapping[n] if n in node_mapping else _Unmatched(n) for n in pred.nodes}
        pred_nodes = set(rename.values())
        pred_edges = {(rename[s], rename[t]) for s, t in pred.edges}
        if len(pred_edges) < len(pred.edges):
            warnings.append(
                f"{len(pred.edges) - len(pred_edges)} predicted edge(s) coincide after node "
                "matching and count once"
            )
    node_tp = len(node_mapping) if node_matching == "exact" else len(pred_nodes & ref.nodes.keys())
    return _result(
        _count_edge_sets(pred_edges, ref.edges), (len(pred_nodes), len(ref.nodes), node_tp),
        node_mapping, warnings, reversal_cost, normalization,
    )


def _compare_matrices(
    prediction: Any, reference: Any, reversal_cost: float, normalization: str
) -> GraphComparison:
    """Exact comparison of two adjacency matrices on sorted int64 keys ``i·n + j`` (all in numpy)."""
    n = max(_square_size(prediction, "prediction"), _square_size(reference, "reference"))
    warnings: list[str] = []
    keys = []
    for matrix, side in ((prediction, "prediction"), (reference, "reference")):
        rows, cols = _matrix_entries(matrix, side)
        sorted_keys = np.sort(rows.astype(np.int64) * n + cols)
        repeated = sorted_keys[1:] == sorted_keys[:-1]
        if repeated.any():
            warnings.append(f"{side}: {int(repeated.sum())} repeated matrix entries counted once")
            sorted_keys = sorted_keys[np.concatenate(([True], ~repeated))]
        keys.append(sorted_keys)
    n_pred, n_ref = prediction.shape[0], reference.shape[0]
    common = min(n_pred, n_ref)
    return _result(
        _count_edge_keys(keys[0], keys[1], n), (n_pred, n_ref, common),
        dict(zip(range(common), range(common))), warnings, reversal_cost, normalization,
    )


def _count_edge_sets(pred: AbstractSet[Any], ref: AbstractSet[Any]) -> tuple[int, int, int, int]:
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


def _count_edge_keys(pred: np.ndarray, ref: np.ndarray, n: int) -> tuple[int, int, int, int]:
    """:func:`_count_edge_sets` for sorted unique edge keys ``source·n + target``."""
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


def _result(
    edge_counts: tuple[int, int, int, int], node_counts: tuple[int, int, int],
    node_mapping: dict, warnings: list[str], reversal_cost: float, normalization: str,
) -> GraphComparison:
    tp, fp, fn, n_reversed = edge_counts
    n_pred_nodes, n_ref_nodes, node_tp = node_counts
    missing, extra = fn - n_reversed, fp - n_reversed
    shd = missing + extra + reversal_cost * n_reversed
    if normalization == "node_pairs":
        n = n_pred_nodes + n_ref_nodes - node_tp
        normalizer = n * (n - 1)
    else:
        normalizer = tp + fn
    node_p, node_r, node_f = _rates(node_tp, n_pred_nodes, n_ref_nodes)
    edge_p, edge_r, edge_f = _rates(tp, tp + fp, tp + fn)
    return GraphComparison(
        node_precision=node_p, node_recall=node_r, node_f1=node_f,
        edge_precision=edge_p, edge_recall=edge_r, edge_f1=edge_f,
        shd=shd, normalized_shd=shd / max(normalizer, 1),
        normalization=normalization, normalizer=normalizer, reversal_cost=reversal_cost,
        true_positives=tp, false_positives=fp, false_negatives=fn,
        reversed=n_reversed, missing=missing, extra=extra,
        node_true_positives=node_tp,
        node_false_positives=n_pred_nodes - node_tp,
        node_false_negatives=n_ref_nodes - node_tp,
        node_mapping=node_mapping, warnings=warnings,
    )


def _rates(tp: int, n_pred: int, n_ref: int) -> tuple[float, float, float]:
    """(precision, recall, F1); all 1.0 when both sets are empty, a 0 denominator gives 0.0 otherwise."""
    if not n_pred and not n_ref:
        return 1.0, 1.0, 1.0
    return (
        tp / n_pred if n_pred else 0.0,
        tp / n_ref if n_ref else 0.0,
        2 * tp / (n_pred + n_ref),
    )


def _check_options(reversal_cost: Any, node_matching: Any, normalization: Any, node_ids: Any) -> None:
    is_number = type(reversal_cost) in (int, float) or (
        isinstance(reversal_cost, Real) and not isinstance(reversal_cost, bool)
    )
    if not is_number or not reversal_cost >= 0:  # also rejects NaN
        raise ValueError(f"reversal_cost must be a number ≥ 0 (1 or 2 in use), got {reversal_cost!r}")
    if node_matching not in NODE_MATCHING_MODES:
        raise ValueError(f"unknown node_matching {node_matching!r}; choose one of {list(NODE_MATCHING_MODES)}")
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}; choose one of {list(NORMALIZATIONS)}")
    if node_matching == "ids" and node_ids is None:
        raise ValueError("node_matching='ids' needs node_ids={id: reference name}")


# ---------------------------------------------------------------- reading graphs


def _read_side(graph: Any, extra_nodes: Iterable[Node], side: str) -> _Side:
    """Edges (deduplicated), nodes in first-appearance order, and the duplicate copies seen."""
    duplicates: list[Edge] = []
    if type(graph) is list:
        pairs, declared = _pairs(graph, side), []
    elif isinstance(graph, (str, CausalGraph)):
        if isinstance(graph, str):
            graph = _parse_text(graph, side)
        if graph.bidirected:
            a, b = graph.bidirected[0]
            raise GraphError(f"{side}: {a} <-> {b} is a latent common cause, not a directed edge; it cannot be scored")
        pairs, declared = list(graph.edges), list(graph.nodes)
        duplicates = list(graph.issues.duplicate_edges)
    elif _is_matrix(graph):
        rows, cols = _matrix_entries(graph, side)
        pairs, declared = list(zip(rows.tolist(), cols.tolist())), list(range(graph.shape[0]))
    elif isinstance(graph, Iterable) and not isinstance(graph, Mapping):
        pairs, declared = _pairs(list(graph), side), []
    else:
        raise GraphError(f"{side}: cannot read a graph from {type(graph).__name__}")
    declared.extend(extra_nodes)

    ends = chain.from_iterable(pairs)
    nodes = dict.fromkeys(chain(declared, ends) if declared else ends)
    renaming = _clean_names(nodes, side)
    if renaming:
        pairs = [(renaming.get(s, s), renaming.get(t, t)) for s, t in pairs]
        nodes = dict.fromkeys(renaming.get(n, n) for n in nodes)
    edges = set(pairs)
    if len(edges) < len(pairs):
        counts = Counter(pairs)
        duplicates += [edge for edge, count in counts.items() for _ in range(count - 1)]
    return _Side(side, edges, nodes, duplicates)


def _parse_text(text: str, side: str) -> CausalGraph:
    try:
        return CausalGraph.parse(text)
    except GraphError as error:
        raise GraphError(f"{side}: {error}") from None


def _is_matrix(graph: Any) -> bool:
    return isinstance(graph, np.ndarray) or hasattr(graph, "tocoo")


def _square_size(matrix: Any, side: str) -> int:
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise GraphError(f"{side}: an adjacency matrix must be square, got shape {matrix.shape}")
    return matrix.shape[0]


def _matrix_entries(matrix: Any, side: str) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the nonzero entries of a 0/1 adjacency matrix (numpy or scipy.sparse)."""
    _square_size(matrix, side)
    if isinstance(matrix, np.ndarray):
        rows, cols = np.nonzero(matrix)
        values = matrix[rows, cols]
    else:
        coo = matrix.tocoo()
        keep = coo.data != 0
        rows, cols, values = coo.row[keep], coo.col[keep], coo.data[keep]
    if values.size and not np.all(values == 1):
        raise GraphError(f"{side}: adjacency matrix entries must be 0 or 1 (directed edges only)")
    return rows, cols


def _pairs(items: list, side: str) -> list[Edge]:
    """``(source, target)`` for every edge; uniform lists take a fast path, anything odd the careful one."""
    try:
        if items and type(items[0]) is dict:
            return list(map(_ENDS, items))
        kinds = set(map(type, items))
        if kinds == {tuple} and set(map(len, items)) == {2}:
            return items
        if kinds <= {tuple, list}:
            return [(s, t) for s, t in items]
    except (KeyError, ValueError, TypeError):
        pass
    return [_pair(item, position, side) for position, item in enumerate(items)]


def _pair(item: Any, position: int, side: str) -> Edge:
    where = f"{side} edge {position + 1}"
    if isinstance(item, str):
        try:
            return parse_edge(item)
        except GraphError as error:
            raise GraphError(f"{where}: {error}") from None
    if isinstance(item, Mapping):
        missing = {"source", "target"} - item.keys()
        if missing:
            raise GraphError(f"{where}: {dict(item)!r} lacks {sorted(missing)}")
        return item["source"], item["target"]
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return item[0], item[1]
    raise GraphError(f"{where}: cannot read an edge from {item!r}")


def _clean_names(nodes: Collection[Any], side: str) -> dict[Any, Node]:
    """Names to rewrite, old → new: whitespace-cleaned strings, numpy integers as ``int``.

    Raises on an empty name or one that is neither a string nor an integer.
    """
    if _surely_clean(nodes):
        return {}
    renaming: dict[Any, Node] = {}
    for name in nodes:
        if type(name) is int:
            continue
        if isinstance(name, Integral) and not isinstance(name, bool):
            renaming[name] = int(name)
            continue
        if type(name) is not str:
            raise GraphError(f"{side}: node names must be strings or integers, got {name!r}")
        cleaned = " ".join(name.split())
        if not cleaned:
            raise GraphError(f"{side}: empty node name")
        if cleaned != name:
            renaming[name] = cleaned
    return renaming


def _surely_clean(names: Collection[Any]) -> bool:
    """True only if every name is a string that whitespace cleaning leaves as it is and not empty.

    A fast, conservative test: in the ``|``-joined text an unclean name shows as a non-printable
    character (any whitespace but the space), a double space, or a space or ``|`` next to a
    separator or an end; a name that is not a string makes the join fail.
    """
    try:
        blob = "|".join(names)
    except TypeError:
        return False
    return not (
        not blob.isprintable() or "  " in blob or "| " in blob or " |" in blob or "||" in blob
        or blob[:1] in ("", " ", "|") or blob[-1:] in (" ", "|")
    )


def _duplicate_warning(side: _Side) -> str | None:
    if not side.duplicates:
        return None
    shown = preview(f"{s} -> {t}" for s, t in side.duplicates)
    return f"{side.name}: {len(side.duplicates)} repeated edge(s) counted once: {shown}"


# ---------------------------------------------------------------- batches


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
    """:func:`compare_graphs` on aligned pairs, plus averages; an unreadable item is reported, never fatal.

    ``node_ids`` is one id table for every item or a sequence with one table per item.
    """
    _check_options(reversal_cost, node_matching, normalization, node_ids)
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    if node_ids is None or isinstance(node_ids, Mapping):
        tables = [node_ids] * len(predictions)
    else:
        tables = list(node_ids)
        if len(tables) != len(predictions):
            raise ValueError(f"{len(tables)} node_ids tables for {len(predictions)} items")
    items: list[GraphComparison | None] = []
    errors: list[ItemError] = []
    for index, (prediction, reference, table) in enumerate(zip(predictions, references, tables)):
        try:
            items.append(compare_graphs(
                prediction, reference, reversal_cost=reversal_cost, node_matching=node_matching,
                normalization=normalization, fuzzy_threshold=fuzzy_threshold, node_ids=table,
            ))
        except (GraphError, ValueError) as error:
            items.append(None)
            errors.append(ItemError(index, str(error)))
    done = [item for item in items if item is not None]
    return BatchComparison(items, errors, _micro(done), _macro(done))


def _macro(items: list[GraphComparison]) -> dict[str, float]:
    fields = (*RATE_FIELDS, "shd", "normalized_shd")
    averages = {name: fmean(getattr(item, name) for item in items) if items else 0.0 for name in fields}
    return {**averages, "count": len(items)}


def _micro(items: list[GraphComparison]) -> dict[str, float]:
    def total(name: str) -> int:
        return sum(getattr(item, name) for item in items)

    tp, fp, fn = total("true_positives"), total("false_positives"), total("false_negatives")
    node_tp = total("node_true_positives")
    node_rates = _rates(node_tp, node_tp + total("node_false_positives"), node_tp + total("node_false_negatives"))
    edge_rates = _rates(tp, tp + fp, tp + fn)
    if not items:  # nothing compared: no agreement to report
        node_rates = edge_rates = (0.0, 0.0, 0.0)
    shd_total = total("shd")
    denominator = sum(max(item.normalizer, 1) for item in items)
    return {
        **dict(zip(("node_precision", "node_recall", "node_f1"), node_rates)),
        **dict(zip(("edge_precision", "edge_recall", "edge_f1"), edge_rates)),
        "normalized_shd": shd_total / denominator if items else 0.0,
        "shd_total": shd_total,
        "true_positives": tp, "false_positives": fp, "false_negatives": fn,
        "reversed": total("reversed"), "missing": total("missing"), "extra": total("extra"),
        "count": len(items),
    }
