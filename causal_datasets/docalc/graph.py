"""The causal DAG of a do-calculus question: nodes, latent nodes, value domains, cached d-separation.

Built once from an edge list (``X->V2,V2->Y``), pairs, or a :class:`~causal_datasets.graph.CausalGraph`;
acyclicity is checked here, once (the standard library's graphlib, which also gives the topological
order), so d-separation queries never re-check it. d-separation is the
reachability ("Bayes ball") algorithm on the mutilated graph, on node sets as bit masks, memoized per query.
"""

from __future__ import annotations

import graphlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from causal_datasets.docalc.expr import Expr, variables
from causal_datasets.graph import CausalGraph, GraphError

#: a set of node names, in any iterable
Nodes = Iterable[str]
#: an edge as :meth:`CausalGraph.from_edges` takes it: a ``(source, target)`` pair, a
#: ``{"source": ..., "target": ...}`` mapping or ``"A -> B"`` text
EdgeForm = tuple[str, str] | Mapping[str, str] | str


class RuleGraph(Protocol):
    """What the rules ask of a graph: a :class:`~.graph.DoGraph`, or statements that answer the same
    questions soundly (:class:`~.independence.StatementGraph`)."""

    @property
    def latent(self) -> frozenset[str]: ...

    def d_separated(self, xs: Nodes, ys: Nodes, zs: Nodes = (), cut_in: Nodes = (), cut_out: Nodes = ()) -> bool: ...

    def ancestors(self, nodes: Nodes, cut_in: Nodes = ()) -> frozenset[str]: ...

    def descendants(self, nodes: Nodes) -> frozenset[str]: ...

    def domain(self, node: str) -> int: ...


class UnknownVariable(GraphError):
    """An expression names a variable that is not a node of the graph."""


@dataclass(frozen=True, eq=False)
class DoGraph:
    """A validated DAG. ``latent`` nodes are part of the model but unobserved.

    ``_cache`` memoizes work that depends only on the graph: d-separation answers and the seeded
    random models of :mod:`.semantics`."""

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    latent: frozenset[str] = frozenset()
    domains: Mapping[str, int] = field(default_factory=dict)
    #: memoized work, each entry of its own kind (its key's owner knows which): the values are arbitrary
    _cache: dict[Hashable, Any] = field(default_factory=dict, repr=False)
    # derived in __post_init__
    _order: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _parents: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    _children: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    _bit: dict[str, int] = field(init=False, repr=False, compare=False)
    _parent_bits: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _child_bits: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parents: dict[str, list[str]] = {n: [] for n in self.nodes}
        children: dict[str, list[str]] = {n: [] for n in self.nodes}
        for source, target in self.edges:
            parents[target].append(source)
            children[source].append(target)
        sorter = graphlib.TopologicalSorter(parents)
        try:
            sorter.prepare()
        except graphlib.CycleError as error:
            cycle = error.args[1]  # [a, ..., a], each node a parent of the next
            raise GraphError(f"the graph has a cycle: {' -> '.join(cycle)}") from None
        unknown = sorted(set(self.latent) - set(self.nodes))
        if unknown:
            raise UnknownVariable(f"latent node(s) {unknown} are not in the graph; nodes are {list(self.nodes)}")
        bad = {n: d for n, d in self.domains.items() if n not in self.nodes or not (isinstance(d, int) and d >= 2)}
        if bad:
            raise GraphError(f"domains must map graph nodes to sizes >= 2; bad entries {bad}")
        order: list[str] = []
        while sorter.is_active():  # layer by layer, each layer sorted: one order per graph, whatever the input order
            ready = sorted(sorter.get_ready())
            order.extend(ready)
            sorter.done(*ready)
        object.__setattr__(self, "_order", tuple(order))
        object.__setattr__(self, "_parents", {n: tuple(sorted(p)) for n, p in parents.items()})
        object.__setattr__(self, "_children", {n: tuple(sorted(c)) for n, c in children.items()})
        bit = {n: 1 << i for i, n in enumerate(self.nodes)}
        object.__setattr__(self, "_bit", bit)
        object.__setattr__(self, "_parent_bits", tuple(_mask(bit, parents[n]) for n in self.nodes))
        object.__setattr__(self, "_child_bits", tuple(_mask(bit, children[n]) for n in self.nodes))

    # -- construction --
    @classmethod
    def parse(cls, text: str, latent: Iterable[str] = (), domains: Mapping[str, int] | None = None) -> DoGraph:
        """From edge-list text such as ``X->V2,V2->Y`` (lone names are isolated nodes)."""
        return cls.from_causal_graph(CausalGraph.parse(text, allow_self_loops=False), latent, domains)

    @classmethod
    def from_edges(
        cls,
        edges: Iterable[EdgeForm],
        nodes: Iterable[str] = (),
        latent: Iterable[str] = (),
        domains: Mapping[str, int] | None = None,
    ) -> DoGraph:
        """From ``(source, target)`` pairs (or any edge form :class:`CausalGraph` accepts)."""
        return cls.from_causal_graph(CausalGraph.from_edges(edges, nodes, allow_self_loops=False), latent, domains)

    @classmethod
    def from_causal_graph(
        cls, graph: CausalGraph, latent: Iterable[str] = (), domains: Mapping[str, int] | None = None
    ) -> DoGraph:
        """Each bidirected pair ``A <-> B`` becomes an explicit latent node ``U_A_B`` with edges to A and B."""
        if not graph.nodes:
            raise GraphError("the graph is empty")
        nodes, edges, hidden = list(graph.nodes), list(graph.edges), set(latent)
        for a, b in graph.bidirected:
            name = f"U_{a}_{b}"
            while name in nodes:
                name += "'"
            nodes.append(name)
            edges += [(name, a), (name, b)]
            hidden.add(name)
        return cls(tuple(nodes), tuple(edges), frozenset(hidden), dict(domains or {}))

    # -- structure --
    @property
    def order(self) -> tuple[str, ...]:
        """A deterministic topological order."""
        return self._order

    def parents(self, node: str) -> tuple[str, ...]:
        return self._parents[node]

    def children(self, node: str) -> tuple[str, ...]:
        return self._children[node]

    def domain(self, node: str) -> int:
        return self.domains.get(node, 2)

    def edge_text(self) -> str:
        return ",".join(f"{s}->{t}" for s, t in self.edges)

    def check_variables(self, e: Expr) -> None:
        """Raise :class:`UnknownVariable` if ``e`` mentions a name that is not a node."""
        unknown = sorted(variables(e) - set(self.nodes))
        if unknown:
            raise UnknownVariable(f"variable(s) {unknown} are not in the graph; nodes are {list(self.nodes)}")

    def ancestors(self, nodes: Nodes, cut_in: Nodes = ()) -> frozenset[str]:
        """``nodes`` and their ancestors in the graph with edges into ``cut_in`` removed."""
        return self._names(_closure(self._bits(nodes), self._parent_bits, stop=self._bits(cut_in)))

    def ancestral(self, nodes: Iterable[str]) -> DoGraph:
        """The subgraph on ``nodes`` and their ancestors (this graph itself when that is every node),
        kept in the cache: distributions of these nodes, under any intervention on them, are the
        same in the subgraph as in the whole graph."""
        keep = self.ancestors(nodes)
        if len(keep) == len(self.nodes):
            return self
        key = ("ancestral", keep)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = DoGraph(
                tuple(n for n in self.nodes if n in keep),
                tuple((s, t) for s, t in self.edges if t in keep),
                self.latent & keep,
                {n: d for n, d in self.domains.items() if n in keep},
            )
        return found

    def descendants(self, nodes: Nodes) -> frozenset[str]:
        """``nodes`` and their descendants."""
        return self._names(_closure(self._bits(nodes), self._child_bits))

    def observed_reach(self, start: str, step: Callable[[str], tuple[str, ...]]) -> frozenset[str]:
        """The observed nodes one ``step`` (:meth:`parents` or :meth:`children`) from ``start``,
        passing through latent nodes only."""
        found, stack, seen = set(), list(step(start)), set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node in self.latent:
                stack.extend(step(node))
            else:
                found.add(node)
        return frozenset(found)

    # -- node sets as bit masks (bit i: the i-th node) --
    def _bits(self, names: Iterable[str]) -> int:
        try:
            return _mask(self._bit, names)
        except KeyError as error:
            raise UnknownVariable(
                f"{error.args[0]!r} is not a node of the graph; nodes are {list(self.nodes)}"
            ) from None

    def _names(self, mask: int) -> frozenset[str]:
        return frozenset(self.nodes[i] for i in _indices(mask))

    # -- d-separation --
    def d_separated(self, xs: Nodes, ys: Nodes, zs: Nodes = (), cut_in: Nodes = (), cut_out: Nodes = ()) -> bool:
        """Is ``xs`` d-separated from ``ys`` given ``zs`` in the graph with edges into ``cut_in``
        and out of ``cut_out`` removed (Pearl's G_{\\bar{cut_in}, \\underline{cut_out}})?"""
        given = self._bits(zs)
        key = (
            "d-separation",
            self._bits(xs) & ~given,
            self._bits(ys) & ~given,
            given,
            self._bits(cut_in),
            self._bits(cut_out),
        )
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._reachable_separated(*key[1:])
        return cached

    def _reachable_separated(self, xs: int, ys: int, zs: int, cut_in: int, cut_out: int) -> bool:
        """The reachability ("Bayes ball") test on bit masks: no active trail from ``xs`` reaches ``ys``."""
        if not xs or not ys:
            return True
        if xs & ys:
            return False
        # in the mutilated graph node i has no parents if i is in cut_in and no children if it is in
        # cut_out; no edge starts in cut_out or ends in cut_in
        parents, children = self._parent_bits, self._child_bits
        opens_collider = _closure(zs, parents, stop=cut_in, drop=cut_out)  # zs and their ancestors
        seen_up = seen_down = 0  # nodes reached going up (from a child) / going down (from a parent)
        up, down = xs, 0
        while up or down:
            up, down = up & ~seen_up, down & ~seen_down
            if (up | down) & ys & ~zs:
                return False
            seen_up, seen_down = seen_up | up, seen_down | down
            next_up = next_down = 0
            for i in _indices(up & ~zs & ~cut_in | down & opens_collider & ~cut_in):
                next_up |= parents[i]
            for i in _indices((up | down) & ~zs & ~cut_out):
                next_down |= children[i]
            up, down = next_up & ~cut_out, next_down & ~cut_in
        return True


def _closure(start: int, steps: tuple[int, ...], stop: int = 0, drop: int = 0) -> int:
    """Every node reachable from the mask ``start`` (included), where ``steps[i]`` is the mask one
    step from node i, never stepping from a node in ``stop`` nor to a node in ``drop``."""
    seen = frontier = start
    while frontier:
        reached = 0
        for i in _indices(frontier & ~stop):
            reached |= steps[i]
        frontier = reached & ~drop & ~seen
        seen |= frontier
    return seen


def _indices(mask: int) -> Iterator[int]:
    """The bit positions set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _mask(bit: Mapping[str, int], names: Iterable[str]) -> int:
    mask = 0
    for name in names:
        mask |= bit[name]
    return mask
