"""Structural equations of an episode: evaluate a crystal, shift-style interventions' bases.

Every node is ``base + Σ (quadratic·p² + linear·p)`` over its parents, evaluated in topological
order and rounded to 2 decimals per node (downstream nodes see the rounded value); a hidden
disturbance's shift is added to the rounded value and rounded again. The sum runs left to right
in the order of the equation's terms (``base + u·p² + w·p + …``), as the reference environment
evaluates its released formulas, so readings agree with it to the last digit. Controllable nodes
take their base from the crystal; the target (and any other non-controllable node) takes the
equation's shared base.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx

from causal_datasets.causalab.records import CausaLabEpisode, Equation

DECIMALS = 2


class MechanismError(ValueError):
    """The equations do not form an acyclic SCM over the declared nodes."""


@dataclass(frozen=True)
class Mechanism:
    """The hidden SCM of an episode, ready to evaluate."""

    equations: Mapping[str, Equation]
    controllable: frozenset[str]
    order: tuple[str, ...]

    @classmethod
    def from_episode(cls, episode: CausaLabEpisode) -> Mechanism:
        return cls.build(episode.equations, episode.controllable)

    @classmethod
    def build(cls, equations: list[Equation], controllable: list[str]) -> Mechanism:
        by_node = {eq.node: eq for eq in equations}
        graph = nx.DiGraph()
        graph.add_nodes_from(by_node)
        for eq in equations:
            for term in eq.terms:
                if term.parent not in by_node:
                    raise MechanismError(f"{eq.node} depends on undeclared node {term.parent!r}")
                graph.add_edge(term.parent, eq.node)
        if not nx.is_directed_acyclic_graph(graph):
            raise MechanismError("the structural equations contain a cycle")
        order = tuple(nx.lexicographical_topological_sort(graph))
        return cls(by_node, frozenset(controllable), order)

    def node_value(self, node: str, base: float, values: Mapping[str, float], shift: float = 0.0) -> float:
        """One node's rounded value given its base, its parents' values and a disturbance shift."""
        total = base
        for term in self.equations[node].terms:
            parent = values[term.parent]
            if term.quadratic:
                total += term.quadratic * parent**2
            total += term.linear * parent
        value = round(total, DECIMALS)
        return round(value + shift, DECIMALS) if shift else value

    def evaluate(self, bases: Mapping[str, float], shifts: Mapping[str, float] | None = None) -> dict[str, float]:
        """Every node's value for a crystal with ``bases`` (controllable nodes) under ``shifts``."""
        shifts = shifts or {}
        values: dict[str, float] = {}
        for node in self.order:
            base = bases[node] if node in self.controllable else self.equations[node].base
            values[node] = self.node_value(node, base, values, shifts.get(node, 0.0))
        return values

    def contribution(self, node: str, values: Mapping[str, float]) -> float:
        """The parents' part of a node's value (unrounded), summed term by term."""
        total = 0.0
        for term in self.equations[node].terms:
            if term.quadratic:
                total += term.quadratic * values[term.parent] ** 2
            total += term.linear * values[term.parent]
        return total

    def base_for(self, node: str, target_value: float, base: float, values: Mapping[str, float]) -> float:
        """The base (rounded to 2 decimals) that makes ``node`` read ``target_value`` given its parents'
        ``values``: the parents' part is the node's rounded value minus its current ``base``."""
        if not self.equations[node].terms:
            return round(target_value, DECIMALS)
        contribution = self.node_value(node, base, values) - base
        return round(target_value - contribution, DECIMALS)
