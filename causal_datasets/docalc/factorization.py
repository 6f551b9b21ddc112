"""Tian's c-component factorization as a rule the checker applies: ``P(s | do(x))`` as the product of one
term per district of ``s``.

J. Tian and J. Pearl, "A general identification condition for causal effects", AAAI 2002 (lemma 1), and
ID's line 4 (Shpitser & Pearl 2006): when every observed ancestor of ``S`` in the graph with the edges
into ``X`` cut lies in ``S ∪ X``, the nodes outside ``S ∪ X`` sum out of ``P(s | do(x))``, the latent
causes split into independent groups, one per district ``S_j`` of ``S`` (observed nodes joined by
latent common causes), and

    P(s | do(x)) = Π_j P(s_j | do((s ∪ x) \\ s_j)),

each factor being the sum over its own group of latent values of the product of its nodes' mechanisms.
The districts and ancestors are read from the latent projection of :mod:`.latent` (the verifier's, not
the identification algorithm's :mod:`.admg`), so a derivation step that uses the identity is checked by
code independent of the algorithm that wrote it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from causal_datasets.docalc.expr import Prob, mul
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.latent import Projection, projection
from causal_datasets.docalc.rules import Rewrite, RuleContext

RULE = "c-component factorization"


def c_component_factorization(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    """The factorization of ``p`` (an interventional term without conditions or counterfactuals, each
    variable once) into its districts, when the condition above holds and there are two or more."""
    if p.given or not p.is_interventional or any(a.cf for a in p.event):
        return
    event = {a.var for a in p.event}
    actions = {v for v, _ in p.do}
    if len(event) != len(p.event) or len(actions) != len(p.do) or event & actions:
        return
    if not isinstance(ctx.graph, DoGraph):  # statements alone have no districts
        return
    shape = projection(ctx.graph)
    if not observed_ancestors(event, actions, shape) <= event | actions:
        return
    parts = districts(event, [set(children) & event for children in shape.sources.values()])
    if len(parts) < 2:
        return
    values = {a.var: a for a in p.event}
    set_to = [(a.var, a.value) for a in p.event if a.value is not None]  # every event atom has a value
    factors = [
        Prob(tuple(values[v] for v in part), p.do + tuple(pair for pair in set_to if pair[0] not in part))
        for part in parts
    ]
    names = " | ".join("{" + ", ".join(sorted(part)) + "}" for part in parts)
    yield Rewrite(mul(*factors), RULE, f"the districts of {{{', '.join(sorted(event))}}} are {names}")


def observed_ancestors(nodes: Iterable[str], cut_in: Collection[str], shape: Projection) -> set[str]:
    """``nodes`` and their observed ancestors in the latent projection with the edges into ``cut_in`` cut."""
    found, stack = set[str](), list(nodes)
    while stack:
        node = stack.pop()
        if node in found:
            continue
        found.add(node)
        if node not in cut_in:
            stack.extend(shape.parents[node])
    return found


def districts(nodes: set[str], links: list[set[str]]) -> list[frozenset[str]]:
    """The classes of ``nodes`` joined by the ``links`` (each a set of nodes with a common latent cause)."""
    owner = {v: frozenset([v]) for v in nodes}
    for link in links:
        merged = frozenset().union(*(owner[v] for v in link)) if link else frozenset()
        for v in merged:
            owner[v] = merged
    return sorted(set(owner.values()), key=sorted)
