"""ID's substitution step as a rule: a term of a call's distribution ``P(V | do(z))`` replaced by its
formula in observed probabilities, the graph conditions it rests on checked apart from ID's code.

After line 7 a call of ID works in a distribution the lines above it built from the observational
joint (:class:`~.id_distribution.Distribution`, whose ``claims`` list them): line 2 takes a marginal
(:class:`~.id_distribution.Margin`), line 7 the term of one district (:class:`~.id_distribution.Component`).
Lines 1 and 6 then replace a term by its marginal or its conditional under that distribution.
:func:`subproblem_formula` rebuilds that formula from the term, the claims, the topological order and
the graph alone, and states what it checked:

* the order is a topological order of the observed nodes in the latent projection of :mod:`.latent`
  (the verifier's, not ID's :mod:`.admg`), so the nodes before ``v_i`` (``v_π^(i-1)``) hold its parents;
* at each line 7, with ``N`` the distribution's variables and ``z`` the treatments set aside so far:
  ``N ∪ z`` holds every observed ancestor of ``N`` once the edges into ``z`` are cut, so the
  distribution ``P(N | do(z))`` is ``Q[N]`` with the graph induced on ``N``, and ``part`` is one of
  that graph's districts, so its term is ``Π_{V_i ∈ part} P(v_i | v_π^(i-1))`` (Tian's factorisation
  of ``Q[N]``: J. Tian and J. Pearl, "A general identification condition for causal effects", AAAI
  2002; Shpitser & Pearl's line 7); the treatments set aside grow by ``N \\ part``;
* the term is ``P(s | do(z))`` (line 1: a marginal) or ``P(v | do(z), w)`` (line 6: a conditional),
  ``z`` exactly the treatments the claims set aside, ``s``, ``v`` and ``w`` among the variables;
* the step's formula is exactly the expression the replay gives with the checked districts and
  predecessors.

Not re-verified per step: the algebra that writes a marginal or conditional of a product of factors
(:func:`~.id_distribution.sum_out` and :func:`~.id_distribution.divide`: sums pushed inwards, factors that
sum to one dropped, common factors cancelled) — the replay calls the same functions. That algebra holds
for every distribution whatever the graph, and is no longer confirmed on random models at each call; the
tests re-check whole derivations on random models (:func:`.verdict.check_proof`) and the estimands
against an independent evaluator of latent-variable models.
"""

from __future__ import annotations

from causal_datasets.docalc.admg import TopologicalOrder
from causal_datasets.docalc.expr import Expr, Prob
from causal_datasets.docalc.factorization import districts, observed_ancestors
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.id_distribution import Claim, Distribution, Margin
from causal_datasets.docalc.latent import Projection, projection
from causal_datasets.docalc.rules import Rewrite

RULE = "formula of the subproblem's distribution"


class NotDerivable(ValueError):
    """The claims do not hold in the graph, or the term is not one of the distribution's."""


def subproblem_formula(term: Prob, claims: tuple[Claim, ...], order: tuple[str, ...], graph: DoGraph) -> Rewrite:
    """The formula of ``term`` under the distribution ``claims`` build (in ``order``), with the conditions
    checked in ``graph`` (see the module); raises :class:`NotDerivable` naming the one that fails."""
    shape = projection(graph)
    _check_order(order, graph, shape)
    ordering = TopologicalOrder(order)
    dist, set_aside, stated = Distribution(frozenset(order)), frozenset[str](), list[str]()
    for claim in claims:
        if isinstance(claim, Margin):
            if not claim.kept <= dist.variables:
                raise NotDerivable(f"a marginal over {_names(claim.kept - dist.variables)}, not variables of the call")
            dist = dist.restricted(claim.kept, "ID line 2")
            continue
        nodes = dist.variables
        outside = observed_ancestors(nodes, set_aside, shape) - nodes - set_aside
        if outside:
            raise NotDerivable(f"{_names(outside)} are ancestors of {_names(nodes)} outside it and the treatments")
        parts = districts(set(nodes), [set(children) & nodes for children in shape.sources.values()])
        if claim.part not in parts:
            raise NotDerivable(f"{_names(claim.part)} is not a district of G[{_names(nodes)}]")
        stated.append(
            f"{_names(claim.part)} is a district of G[{_names(nodes)}], whose observed ancestors lie in it"
            + (f" or in {_names(set_aside)}" if set_aside else "")
            + " (ID line 7)"
        )
        dist = dist.component(claim.part, ordering, "ID line 7", set_aside)
        set_aside |= nodes - claim.part
    return Rewrite(_formula(term, dist, set_aside, ordering), RULE, "; ".join(stated))


def _formula(term: Prob, dist: Distribution, set_aside: frozenset[str], ordering: TopologicalOrder) -> Expr:
    """The marginal (no condition) or the conditional (one outcome) ``term`` is under ``dist``."""
    atoms = [(a.var, a.value) for a in term.event + term.given] + list(term.do)
    if any(a.cf for a in term.event + term.given) or any(value != var for var, value in atoms):
        raise NotDerivable(f"{term.text} is not a symbolic term of the distribution")
    if {var for var, _ in term.do} != set_aside or len({var for var, _ in atoms}) != len(atoms):
        raise NotDerivable(f"{term.text} does not set exactly {_names(set_aside)}")
    event, given = frozenset(a.var for a in term.event), frozenset(a.var for a in term.given)
    if not event or not (event | given) <= dist.variables:
        raise NotDerivable(f"{term.text} is not a term over {_names(dist.variables)}")
    if not given:
        return dist.marginal(event, ordering)
    if len(event) > 1:
        raise NotDerivable(f"{term.text} is a conditional of several variables")
    (var,) = event
    return dist.conditional(var, given, ordering)


def _check_order(order: tuple[str, ...], graph: DoGraph, shape: Projection) -> None:
    observed = [n for n in graph.nodes if n not in graph.latent]
    if sorted(order) != sorted(observed):
        raise NotDerivable(f"{', '.join(order)} is not an order of the observed nodes")
    position = {node: i for i, node in enumerate(order)}
    late = [(p, v) for v in order for p in shape.parents[v] if position[p] > position[v]]
    if late:
        raise NotDerivable(f"the order is not topological: {late[0][0]} is a parent of {late[0][1]}")


def _names(nodes: frozenset[str] | set[str]) -> str:
    return "{" + ", ".join(sorted(nodes)) + "}"
