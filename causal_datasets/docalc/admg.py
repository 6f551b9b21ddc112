"""The acyclic directed mixed graph (ADMG) of a :class:`~.graph.DoGraph` over its observed nodes, and
the graph notions identification needs: ancestors, c-components (districts) and C-forests.

The ADMG is the latent projection (Verma & Pearl 1990): ``A -> B`` when a directed path leads from
A to B through latent nodes only, ``A <-> B`` when some latent node reaches both A and B through
latent nodes only. A latent common cause written ``A <-> B`` (the node ``U_A_B``) projects back to
the bidirected edge itself. Identification in the projection is identification in the graph with
its latent nodes (Tian & Pearl 2002).

Node sets are frozensets; every operation works on the subgraph induced by a node set, the only
kind of subgraph ID takes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from causal_datasets.docalc.graph import DoGraph


@dataclass(frozen=True)
class CForest:
    """A C-forest: its nodes are one c-component and each node has at most one child; the root set
    is the nodes without a child. ``directed`` holds one edge per non-root node, ``bidirected`` a
    spanning tree of the bidirected edges."""

    nodes: tuple[str, ...]
    roots: tuple[str, ...]
    directed: tuple[tuple[str, str], ...]
    bidirected: tuple[tuple[str, str], ...]

    def text(self) -> str:
        edges = [f"{a} -> {b}" for a, b in self.directed] + [f"{a} <-> {b}" for a, b in self.bidirected]
        return f"{{{', '.join(self.nodes)}}} with root set {{{', '.join(self.roots)}}}" + (
            f": {', '.join(edges)}" if edges else ""
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": list(self.nodes),
            "roots": list(self.roots),
            "directed": [list(e) for e in self.directed],
            "bidirected": [list(e) for e in self.bidirected],
        }


class TopologicalOrder:
    """Nodes in a topological order: sorting by it and the nodes before one (``v_π^(i-1)``)."""

    def __init__(self, order: tuple[str, ...]) -> None:
        self.order = order
        self.position = {node: i for i, node in enumerate(order)}

    def sorted(self, nodes: Iterable[str]) -> tuple[str, ...]:
        """``nodes`` in the topological order."""
        return tuple(sorted(nodes, key=self.position.__getitem__))

    def before(self, node: str, within: frozenset[str]) -> frozenset[str]:
        """The nodes of ``within`` that come before ``node`` in the topological order (v_π^(i-1))."""
        i = self.position[node]
        return frozenset(n for n in within if self.position[n] < i)


class ADMG(TopologicalOrder):
    """Observed nodes in a topological order, their observed parents, and bidirected neighbours."""

    def __init__(
        self, order: tuple[str, ...], parents: dict[str, frozenset[str]], siblings: dict[str, frozenset[str]]
    ) -> None:
        super().__init__(order)
        self.parents = parents
        self.children = {node: frozenset(c for c in order if node in parents[c]) for node in order}
        self.siblings = siblings  # bidirected neighbours

    @classmethod
    def project(cls, graph: DoGraph) -> ADMG:
        """The latent projection of ``graph`` onto its observed nodes."""
        observed = tuple(n for n in graph.order if n not in graph.latent)
        parents = {node: graph.observed_reach(node, graph.parents) for node in observed}
        siblings: dict[str, set[str]] = {n: set() for n in observed}
        for latent in graph.latent:
            reached = graph.observed_reach(latent, graph.children)
            for a in reached:
                siblings[a] |= reached - {a}
        return cls(observed, parents, {n: frozenset(s) for n, s in siblings.items()})

    def ancestors(
        self, targets: Iterable[str], within: frozenset[str], cut_in: frozenset[str] = frozenset()
    ) -> frozenset[str]:
        """``targets`` and their ancestors in the subgraph induced by ``within``, with the edges into
        ``cut_in`` removed (G[within] with X barred)."""
        found = set(targets)
        stack = list(found)
        while stack:
            node = stack.pop()
            if node in cut_in:
                continue
            for parent in self.parents[node] & within:
                if parent not in found:
                    found.add(parent)
                    stack.append(parent)
        return frozenset(found)

    def components(self, within: frozenset[str]) -> list[frozenset[str]]:
        """The c-components (bidirected-connected sets) of the subgraph induced by ``within``, in
        the order of their first node."""
        parts, seen = [], set()
        for start in self.sorted(within):
            if start in seen:
                continue
            part, stack = {start}, [start]
            while stack:
                for sibling in self.siblings[stack.pop()] & within:
                    if sibling not in part:
                        part.add(sibling)
                        stack.append(sibling)
            seen |= part
            parts.append(frozenset(part))
        return parts

    def c_forest(self, nodes: frozenset[str], roots: frozenset[str], inner: CForest | None = None) -> CForest:
        """An ``roots``-rooted C-forest on ``nodes`` (a c-component whose every node reaches ``roots``
        by a directed path inside it), extending the C-forest ``inner`` on a subset if given.

        Each non-root node keeps the edge to a child nearest the roots; the bidirected edges are a
        spanning tree grown from ``inner``'s."""
        depth = {r: 0 for r in roots}
        frontier = list(self.sorted(roots))
        while frontier:  # breadth-first from the roots, against the edges
            following = []
            for node in frontier:
                for parent in self.sorted(self.parents[node] & nodes):
                    if parent not in depth:
                        depth[parent] = depth[node] + 1
                        following.append(parent)
            frontier = following
        if set(depth) != set(nodes):
            raise ValueError(f"{sorted(set(nodes) - set(depth))} do not reach the roots {sorted(roots)}")
        chosen = dict(inner.directed) if inner else {}
        for node in self.sorted(nodes - roots):
            if node not in chosen:
                chosen[node] = min(
                    (c for c in self.children[node] & nodes if depth[c] == depth[node] - 1),
                    key=self.position.__getitem__,
                )
        tree = list(inner.bidirected) if inner else []
        reached = set(inner.nodes) if inner else {self.sorted(nodes)[0]}
        stack = list(self.sorted(reached))[::-1]
        while stack:
            node = stack.pop()
            for sibling in self.sorted(self.siblings[node] & nodes):
                if sibling not in reached:
                    reached.add(sibling)
                    first, second = self.sorted((node, sibling))
                    tree.append((first, second))
                    stack.append(sibling)
        if reached != set(nodes):
            raise ValueError(f"{sorted(nodes)} is not one c-component")
        directed = tuple(sorted(chosen.items(), key=lambda edge: self.position[edge[0]]))
        return CForest(self.sorted(nodes), self.sorted(roots), directed, tuple(tree))
