"""Read a graph to compare, in any form it may be given, as its edges and nodes.

Graphs may be given as a list of ``{"source", "target"}`` dicts, ``(source, target)`` pairs or
``"A -> B"`` strings, a whole edge-list text (``"A -> B, B -> C"``), a
:class:`~causal_datasets.CausalGraph`, or a square 0/1 adjacency matrix (numpy or scipy.sparse;
entry (i, j) = edge i → j, nodes 0…n−1). Node names are strings (whitespace-cleaned like
``CausalGraph`` names) or integers. Edges are deduplicated (the copies are named in a warning); a
graph that cannot be read is a :class:`~causal_datasets.graph.GraphError` naming its side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from numbers import Integral
from operator import itemgetter
from typing import Any

import numpy as np

from causal_datasets.graph import CausalGraph, GraphError, parse_edge
from causal_datasets.scoring.node_matching import preview

Node = str | int
Edge = tuple[Node, Node]
_ENDS = itemgetter("source", "target")


@dataclass(slots=True)
class Side:
    """One graph as read: its edges (deduplicated), its nodes in first-appearance order, the duplicate copies."""

    name: str
    edges: set[Edge]
    nodes: dict[Node, None]
    duplicates: list[Edge]


def read_side(graph: Any, extra_nodes: Iterable[Node], side: str) -> Side:
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
    elif is_matrix(graph):
        rows, cols = matrix_entries(graph, side)
        pairs, declared = list(zip(rows.tolist(), cols.tolist(), strict=True)), list(range(graph.shape[0]))
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
    return Side(side, edges, nodes, duplicates)


def _parse_text(text: str, side: str) -> CausalGraph:
    try:
        return CausalGraph.parse(text)
    except GraphError as error:
        raise GraphError(f"{side}: {error}") from None


def is_matrix(graph: Any) -> bool:
    return isinstance(graph, np.ndarray) or hasattr(graph, "tocoo")


def square_size(matrix: Any, side: str) -> int:
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise GraphError(f"{side}: an adjacency matrix must be square, got shape {matrix.shape}")
    return matrix.shape[0]


def matrix_entries(matrix: Any, side: str) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the nonzero entries of a 0/1 adjacency matrix (numpy or scipy.sparse)."""
    square_size(matrix, side)
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
        not blob.isprintable()
        or "  " in blob
        or "| " in blob
        or " |" in blob
        or "||" in blob
        or blob[:1] in ("", " ", "|")
        or blob[-1:] in (" ", "|")
    )


def duplicate_warning(side: Side) -> str | None:
    if not side.duplicates:
        return None
    shown = preview(f"{s} -> {t}" for s, t in side.duplicates)
    return f"{side.name}: {len(side.duplicates)} repeated edge(s) counted once: {shown}"
