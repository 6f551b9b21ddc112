"""CausalGraph: named nodes and directed edges, cycles allowed; the one parser of graph text.

ReCAST graphs are causal loop diagrams, so cycles are legal here; code that needs a DAG
(do-calculus, SCM simulation) checks acyclicity itself with :meth:`CausalGraph.is_acyclic`.

Graph text, wherever a graph is read (CLI, metrics, datasets, model answers), is read here: edges
``A -> B`` (also ``→``, ``=>``), ``A <- B`` (also ``←``) and ``A <-> B`` (also ``↔``: a latent
common cause, kept apart in :attr:`CausalGraph.bidirected`), separated by commas, semicolons or
newlines, with any whitespace. A mark that looks like an edge but is none of these (``X--Y``,
``X > Y``) is an error that names it; it never becomes part of a node name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: commands that never build a networkx graph start faster
    import networkx as nx

#: an edge mark between two node names (the group is the mark itself; the names around it are
#: stripped after splitting: whitespace in the pattern would make a split quadratic in a run of spaces)
ARROW = re.compile(r"(<->|↔|->|→|=>|<-|←)")
FORWARD, BACKWARD, BIDIRECTED = frozenset({"->", "→", "=>"}), frozenset({"<-", "←"}), frozenset({"<->", "↔"})
#: what a node name in graph text may not contain: the pieces of edge marks (a dash only at its ends)
STRAY_MARK = re.compile(r"[<>←→↔=]|--|^-|-$")
EDGE_SEPARATORS = re.compile(r"[\n,;]")


class GraphError(ValueError):
    """Malformed graph input (empty names, an edge without two ends, unknown edge format)."""


@dataclass(frozen=True)
class GraphIssues:
    """What was tolerated while building a graph: reported, never silently dropped."""

    duplicate_edges: tuple[tuple[str, str], ...] = ()
    self_loops: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.duplicate_edges or self.self_loops)


@dataclass(frozen=True)
class CausalGraph:
    """A directed graph over named nodes.

    Node order is the order of first appearance (declared nodes first, then edge ends), so
    conversions are deterministic. Duplicate edges are collapsed and listed in ``issues``;
    self-loops are kept (a feedback loop is a legal causal-loop-diagram edge) and flagged.
    ``bidirected`` holds the ``A <-> B`` pairs (sorted ends): a latent common cause of A and B,
    not a directed edge; code that cannot represent one refuses the graph.
    """

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    issues: GraphIssues = field(default=GraphIssues(), compare=False)
    bidirected: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_edges(
        cls,
        edges: Iterable[Any],
        nodes: Iterable[str] = (),
        *,
        allow_self_loops: bool = True,
        bidirected: Iterable[tuple[str, str]] = (),
    ) -> CausalGraph:
        """Build from ``(source, target)`` pairs, ``{"source", "target"}`` dicts or ``"A -> B"`` strings."""
        ordered_nodes: dict[str, None] = {}
        for name in nodes:
            ordered_nodes[_clean_name(name, "node")] = None
        confounded = sorted({_unordered(_clean_name(a, "node"), _clean_name(b, "node")) for a, b in bidirected})
        for pair in confounded:
            if pair[0] == pair[1]:
                raise GraphError(f"bidirected edge {pair[0]} <-> {pair[1]} joins a node to itself")
            ordered_nodes.update(dict.fromkeys(pair))
        seen: dict[tuple[str, str], None] = {}
        duplicates: list[tuple[str, str]] = []
        loops: list[str] = []
        for raw in edges:
            source, target = _edge_ends(raw)
            if source == target:
                if not allow_self_loops:
                    raise GraphError(f"self-loop on {source!r} is not allowed here")
                loops.append(source)
            edge = (source, target)
            if edge in seen:
                duplicates.append(edge)
                continue
            seen[edge] = None
            ordered_nodes.setdefault(source, None)
            ordered_nodes.setdefault(target, None)
        return cls(
            nodes=tuple(ordered_nodes),
            edges=tuple(seen),
            issues=GraphIssues(tuple(duplicates), tuple(dict.fromkeys(loops))),
            bidirected=tuple(confounded),
        )

    @classmethod
    def parse(cls, text: str, *, allow_self_loops: bool = True, lines: bool = False) -> CausalGraph:
        """Parse graph text: ``X->V2,V2->Y``, ``X<-Z, Z->Y``, ``X<->Y`` or one edge per line.

        Parts are separated by commas, semicolons and newlines, or only by newlines with ``lines``
        (free-text names that hold commas, as in model answers; such names may also hold ``<``,
        ``>`` and ``=``). A part without an edge mark is a lone node; blank parts are ignored.
        """
        edges: list[tuple[str, str]] = []
        bidirected: list[tuple[str, str]] = []
        lone: list[str] = []
        parts = text.split("\n") if lines else EDGE_SEPARATORS.split(text)
        for position, part in enumerate(parts):
            if not part.strip():
                continue
            kind, ends = _read_part(part, f"part {position + 1}", strict=not lines)
            if kind == "node":
                lone.append(ends[0])
            else:
                first, second = ends
                (bidirected if kind == "bidirected" else edges).append((first, second))
        return cls.from_edges(edges, nodes=lone, allow_self_loops=allow_self_loops, bidirected=bidirected)

    @classmethod
    def from_networkx(cls, graph: nx.DiGraph) -> CausalGraph:
        """Build from a networkx DiGraph (node names converted to ``str``)."""
        return cls.from_edges(((str(u), str(v)) for u, v in graph.edges), nodes=(str(n) for n in graph.nodes))

    def to_networkx(self) -> nx.DiGraph:
        """A networkx DiGraph with the same nodes (in order) and edges."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        graph.add_edges_from(self.edges)
        return graph

    def to_records(self) -> list[dict[str, str]]:
        """Edges as ``[{"source": ..., "target": ...}]``, the hub column format."""
        return [{"source": s, "target": t} for s, t in self.edges]

    def to_text(self) -> str:
        """One ``source -> target`` line per edge, ``a <-> b`` per bidirected pair, lone nodes on lines of their own."""
        connected = {n for edge in (*self.edges, *self.bidirected) for n in edge}
        lines = [f"{s} -> {t}" for s, t in self.edges] + [f"{a} <-> {b}" for a, b in self.bidirected]
        lines += [n for n in self.nodes if n not in connected]
        return "\n".join(lines)

    def is_acyclic(self) -> bool:
        import networkx as nx

        return nx.is_directed_acyclic_graph(self.to_networkx())

    def num_cycles(self, limit: int | None = None) -> int:
        """Number of simple directed cycles (self-loops included), counted up to ``limit``."""
        import networkx as nx

        count = 0
        for _ in nx.simple_cycles(self.to_networkx()):
            count += 1
            if limit is not None and count >= limit:
                break
        return count

    def parents(self, node: str) -> list[str]:
        self._require(node)
        return [s for s, t in self.edges if t == node]

    def children(self, node: str) -> list[str]:
        self._require(node)
        return [t for s, t in self.edges if s == node]

    def _require(self, node: str) -> None:
        if node not in self.nodes:
            raise GraphError(f"unknown node {node!r}; nodes are {list(self.nodes)}")

    def __len__(self) -> int:
        return len(self.nodes)


def _clean_name(name: Any, what: str) -> str:
    if not isinstance(name, str):
        raise GraphError(f"{what} name must be a string, got {type(name).__name__}: {name!r}")
    cleaned = " ".join(name.split())
    if not cleaned:
        raise GraphError(f"empty {what} name")
    return cleaned


def parse_edge(text: str) -> tuple[str, str]:
    """One directed edge written ``A -> B`` or ``B <- A``, as ``(source, target)``."""
    kind, ends = _read_part(text, "edge", strict=False)
    if kind != "directed":
        raise GraphError(f"{text!r} is not of the form 'A -> B' or 'B <- A'")
    source, target = ends
    return source, target


def _read_part(part: str, where: str, *, strict: bool) -> tuple[str, tuple[str, ...]]:
    """``("directed", (source, target))``, ``("bidirected", (a, b))`` or ``("node", (name,))``.

    ``strict``: a node name may not hold a piece of an edge mark (``<``, ``>``, ``=``, ``--``).
    """
    pieces = [piece.strip() for piece in ARROW.split(part.strip())]
    if len(pieces) > 3:
        raise GraphError(f"{where} ({part.strip()!r}) has more than one edge mark; write one edge per part")
    if strict:
        for piece in pieces[::2]:
            if stray := STRAY_MARK.search(piece):
                raise GraphError(
                    f"{where} ({part.strip()!r}): {stray.group()!r} is not an edge mark; "
                    f"write A -> B, A <- B or A <-> B"
                )
    if len(pieces) == 1:
        return "node", (pieces[0],)
    first, mark, second = pieces
    if not first or not second:
        raise GraphError(f"{where} ({part.strip()!r}) has an empty end")
    if mark in BIDIRECTED:
        return "bidirected", (first, second)
    return "directed", (first, second) if mark in FORWARD else (second, first)


def _unordered(a: str, b: str) -> tuple[str, str]:
    """The pair in sorted order (a bidirected edge has no direction)."""
    return (a, b) if a <= b else (b, a)


def _edge_ends(raw: Any) -> tuple[str, str]:
    if isinstance(raw, str):
        source, target = parse_edge(raw)
    elif isinstance(raw, Mapping):
        missing = {"source", "target"} - raw.keys()
        if missing:
            raise GraphError(f"edge {dict(raw)!r} lacks {sorted(missing)}")
        source, target = raw["source"], raw["target"]
    elif isinstance(raw, (tuple, list)) and len(raw) == 2:
        source, target = raw
    else:
        raise GraphError(f"cannot read an edge from {raw!r}")
    return _clean_name(source, "edge source"), _clean_name(target, "edge target")
