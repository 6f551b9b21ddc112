"""The counterfactual graph of a conjunction of counterfactual events (``make-cg`` of Shpitser and Pearl,
"Complete Identification Methods for the Causal Hierarchy", JMLR 2008, section 4.1).

One copy of the causal diagram per world (per distinct subscript of the event), all sharing the
exogenous variables: a node is a variable in a world, or a constant where the world sets the variable.
Two copies of one variable are the same random variable when their parents are the same nodes or attain
the same values (Lemma 24); they are merged in topological order (Lemma 25), and an event that gives the
merged node two values is inconsistent. The graph keeps the ancestors of the event's nodes.

Values are compared as they are written: two constants or two symbols are the same value when equal, and
distinct symbols of one variable stand for distinct values (the paper's ``x`` and ``x'``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from causal_datasets.docalc.admg import ADMG
from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.expr import Prob

#: a value as the query writes it (a constant or a symbol)
Value = Any
World = tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class Node:
    """A variable in a world: the counterfactual ``var_{world}`` (a world never sets its own variable)."""

    var: str
    world: World

    @property
    def text(self) -> str:
        return Prob((Atom(self.var, self.var, self.world),)).text[2:-1]


@dataclass(frozen=True)
class Fixed:
    """A variable set by its world's intervention: a constant node."""

    var: str
    value: Value


Parent = Node | Fixed


@dataclass(frozen=True)
class CounterfactualGraph:
    """Nodes in topological order with their parents (one per parent of the variable, a node or a
    constant) and the event's value of each event node; ``merged`` lists each copy merged away and
    the node it became."""

    nodes: tuple[Node, ...]
    parents: dict[Node, dict[str, Parent]]
    event: dict[Node, Value]
    admg: ADMG
    merged: tuple[tuple[Node, Node], ...]

    def node_of(self, atom: Atom) -> Node:
        """The node an atom of the event became (after merging)."""
        node = Node(atom.var, atom.cf)
        return dict(self.merged).get(node, node)

    def linked(self, a: Node, b: Node) -> bool:
        """Do ``a`` and ``b`` share exogenous variables (a bidirected edge of the graph)?"""
        return a != b and (a.var == b.var or b.var in self.admg.siblings[a.var])

    def districts(self) -> list[tuple[Node, ...]]:
        """The c-components, each in topological order, in the order of their first node."""
        parts: list[tuple[Node, ...]] = []
        seen: set[Node] = set()
        for start in self.nodes:
            if start in seen:
                continue
            part, stack = {start}, [start]
            while stack:
                node = stack.pop()
                for other in self.nodes:
                    if other not in part and self.linked(node, other):
                        part.add(other)
                        stack.append(other)
            seen |= part
            parts.append(tuple(n for n in self.nodes if n in part))
        return parts

    def descendants(self, node: Node) -> set[Node]:
        found = {node}
        for n in self.nodes:  # topological order: a parent comes first
            if any(p in found for p in self.parents[n].values()):
                found.add(n)
        return found

    def separated(self, a: Node, b: set[Node], given: set[Node]) -> bool:
        """Is ``a`` d-separated from ``b`` given ``given`` once the edges out of ``a`` are cut? (The
        moralized ancestral graph, each pair sharing exogenous variables with a latent common parent.)"""
        relevant = self._ancestors({a} | b | given, a)
        edges: dict[object, set[object]] = {n: set() for n in relevant}

        def join(x: object, y: object) -> None:
            edges.setdefault(x, set()).add(y)
            edges.setdefault(y, set()).add(x)

        for child in relevant:
            family: list[object] = [p for p in self.parents[child].values() if isinstance(p, Node) and p != a]
            family += [frozenset({child, n}) for n in relevant if self.linked(child, n)]  # the latent parents
            for i, x in enumerate(family):
                join(x, child)
                for y in family[i + 1 :]:  # parents of a common child marry
                    join(x, y)
        reached: set[object] = {a}
        stack: list[object] = [a]
        while stack:
            for n in edges[stack.pop()]:
                if n not in reached and n not in given:
                    reached.add(n)
                    stack.append(n)
        return not reached & b

    def _ancestors(self, start: set[Node], cut: Node) -> set[Node]:
        """``start`` and its ancestors once the edges out of ``cut`` are gone."""
        found, stack = set(start), list(start)
        while stack:
            for p in self.parents[stack.pop()].values():
                if isinstance(p, Node) and p != cut and p not in found:
                    found.add(p)
                    stack.append(p)
        return found


class Inconsistent(Exception):
    """The event gives one random variable two values: its probability is zero."""

    def __init__(self, node: Node, values: tuple[Value, Value]) -> None:
        super().__init__(f"{node.text} = {values[0]} and {values[1]}")
        self.node = node
        self.values = values


def make_counterfactual_graph(
    admg: ADMG, event: tuple[Atom, ...], evidence: tuple[Atom, ...] | None = None
) -> CounterfactualGraph:
    """The counterfactual graph of ``event`` (atoms whose subscripts never set their own variable) and the
    event on its nodes; raises :class:`Inconsistent` when the event gives one node two values.

    Lemma 24 merges two copies whose parents attain the same values by intervention or by observation in
    ``evidence`` (the whole event by default). IDC* passes its conditions alone: a merge that rests on
    an outcome's value holds on the joint event, not under the conditions."""
    worlds = sorted({a.cf for a in event}, key=lambda w: (len(w), repr(w)))
    nodes: list[Node] = []
    parents: dict[Node, dict[str, Parent]] = {}
    rep: dict[Node, Node] = {}

    def in_world(var: str, world: World) -> Parent:
        setting = dict(world)
        if var in setting:
            return Fixed(var, setting[var])
        return rep.get(Node(var, world), Node(var, world))

    values: dict[Node, Value] = {}
    for atom in event:
        node = Node(atom.var, atom.cf)
        if values.setdefault(node, atom.value) != atom.value:
            raise Inconsistent(node, (values[node], atom.value))
    known = {Node(a.var, a.cf): a.value for a in (event if evidence is None else evidence)}
    merged: list[tuple[Node, Node]] = []
    for var in admg.order:
        copies: list[Node] = []
        for world in worlds:
            found = in_world(var, world)
            if isinstance(found, Fixed) or found in copies:
                continue
            node = found
            parents[node] = {p: in_world(p, world) for p in admg.sorted(admg.parents[var])}
            twin = next((c for c in copies if _same_variable(parents[c], parents[node], known)), None)
            if twin is None:
                copies.append(node)
                continue
            rep[node] = twin
            merged.append((node, twin))
            if node in known:
                known[twin] = known.pop(node)
            if node in values:
                if values.setdefault(twin, values[node]) != values[node]:
                    raise Inconsistent(twin, (values[twin], values[node]))
                del values[node]
        nodes.extend(copies)
    keep: set[Node] = set()
    stack = [n for n in nodes if n in values]
    while stack:
        node = stack.pop()
        if node not in keep:
            keep.add(node)
            stack.extend(p for p in parents[node].values() if isinstance(p, Node))
    kept = tuple(n for n in nodes if n in keep)
    return CounterfactualGraph(kept, {n: parents[n] for n in kept}, values, admg, tuple(merged))


def _same_variable(a: dict[str, Parent], b: dict[str, Parent], values: dict[Node, Value]) -> bool:
    """Lemma 24: two copies of a variable are the same random variable when each pair of corresponding
    parents is one node or attains one value (set by an intervention or observed in the event)."""
    return all(a[p] == b[p] or _value(a[p], values) == _value(b[p], values) is not None for p in a)


def _value(parent: Parent, values: dict[Node, Value]) -> Value | None:
    return parent.value if isinstance(parent, Fixed) else values.get(parent)
