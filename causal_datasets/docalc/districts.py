"""The district model: one latent source per district, Tian's factorisation as a graph.

Tian and Pearl (2002, "A general identification condition for causal effects") write every
distribution of a semi-Markovian model as a product over its districts (c-components: observed
nodes joined through latent sources) of Q-factors, each a sum over its own district's latent
values only: ``P_x(v) = prod_D Q[D]``, ``Q[D] = sum_{u_D} P(u_D) prod_{v in D} P(v | pa_v, u_D)``.
:func:`district_graph` draws that as a graph: the latent projection of :mod:`.latent`, with the
sources of each district merged into one source whose children are the whole district.

Why it may decide "equivalent". Every model of the graph is a model of its district graph, with
interventional and counterfactual distributions unchanged: let the district's one source be the
tuple of the district's sources (independent, each with its own distribution), and each node's
table read only its own sources' components. So an identity that holds on every model of the
district graph holds on every model of the graph. The district graph is decided as any graph is
(:func:`~.decide.semantic_check`: exact zeros on random models whose one source per district has the
values :mod:`.latent` proves enough for it); its tables are small where the graph's are not — a
node under ``k`` sources of ``n`` values each has ``n**k`` rows in the graph, ``n`` in the district
graph.

Why it never decides "not equivalent". The district graph has more models than the graph (its
source may make two nodes of a district dependent in ways the separate sources cannot, e.g. after
an intervention on the node that joins them), so a difference there need not be one of the graph:
:mod:`.decide` uses this model only for a pair the graph's own models are too large to decide,
and only an equality found on it.
"""

from __future__ import annotations

from causal_datasets.docalc.factorization import districts as joined_classes
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.latent import projection


def districts(graph: DoGraph) -> list[tuple[str, ...]]:
    """The districts of ``graph``'s latent projection with two or more nodes (sorted), in name order."""
    observed = {v for v in graph.nodes if v not in graph.latent}
    links = [set(children) for children in projection(graph).sources.values()]
    return sorted(tuple(sorted(d)) for d in joined_classes(observed, links) if len(d) > 1)


def district_graph(graph: DoGraph) -> DoGraph | None:
    """The district model of ``graph`` (see the module docstring): its observed nodes with their
    projected parents, and one latent source per district with the district as its children. None
    when no district has two sources (the graph's model graph is its district graph already)."""
    shape = projection(graph)
    groups = districts(graph)
    if len(groups) == len(shape.sources):  # one source per district: nothing to merge
        return None
    observed = tuple(n for n in graph.nodes if n not in graph.latent)
    edges = [(p, v) for v in observed for p in shape.parents[v]]
    names: list[str] = []
    for group in groups:
        name = "U_district_" + "_".join(group)
        while name in graph.nodes:
            name += "_"
        names.append(name)
        edges += [(name, v) for v in group]
    return DoGraph(observed + tuple(names), tuple(edges), frozenset(names), {n: graph.domain(n) for n in observed})
