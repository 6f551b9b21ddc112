"""y0 (the ``y0`` extra) as a peer of ``identify``: its example graphs with their documented queries, its
graphs as edge text and its estimands as our expressions."""

from __future__ import annotations

from dataclasses import dataclass

from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.expr import Expr, Num, Prob, Sum, div, mul


@dataclass(frozen=True)
class Case:
    name: str
    graph: object  # y0.graph.NxMixedGraph
    treatments: tuple[str, ...]
    outcomes: tuple[str, ...]
    conditions: tuple[str, ...] = ()

    @property
    def query(self) -> str:
        conditions = [f"do({', '.join(self.treatments)})"] + list(self.conditions)
        return f"P({', '.join(self.outcomes)} | {', '.join(conditions)})"


def catalogue() -> list[Case]:
    """y0's example graphs (``y0.examples``) with the treatment and outcome their comments or
    ``example_queries`` give; the examples with an ``X`` and a ``Y`` and no query get ``P(Y | do(X))``;
    Shpitser & Pearl's figure 6a gets its conditional query. Cyclic graphs are left out."""
    import y0.examples as ex

    named = [
        ("backdoor", ("X",), ("Y",)),
        ("frontdoor", ("X",), ("Y",)),
        ("frontdoor_backdoor", ("X",), ("Y",)),
        ("instrumental_variable", ("X",), ("Y",)),
        ("napkin", ("X",), ("Y",)),
        ("m_graph", ("X",), ("Y",)),
    ]
    named += [(f"identifiability_{i}", ("X",), ("Y",)) for i in (1, 2, 3, 4, 7)]
    named += [("identifiability_5", ("X1", "X2"), ("Y",)), ("identifiability_6", ("X1", "X2"), ("Y",))]
    named += [("verma_1", ("V3",), ("V4",))] + [(f"verma_{i}", ("V1",), ("V5",)) for i in (2, 3, 4, 5)]
    named += [(f"z_identifiability_{i}", ("X",), ("Y",)) for i in (1, 2, 3)]
    named += [("identifiability_linear_1", ("X",), ("Y",))]
    cases = [Case(name, getattr(ex, name), t, o) for name, t, o in named]
    seen = {id(case.graph) for case in cases}
    for example in ex.examples:
        if id(example.graph) in seen or not _acyclic(example.graph):
            continue
        nodes = {str(n) for n in example.graph.nodes()}
        queries = example.example_queries or []
        for q in queries:
            cases.append(
                Case(
                    example.name,
                    example.graph,
                    tuple(sorted(str(t) for t in q.treatments)),
                    tuple(sorted(str(o) for o in q.outcomes)),
                )
            )
        if not queries and {"X", "Y"} <= nodes:
            cases.append(Case(example.name, example.graph, ("X",), ("Y",)))
    cases.append(Case("figure_6a", ex.figure_6a.graph, ("X",), ("Y",), ("Z",)))
    return cases


def _acyclic(graph) -> bool:
    import networkx as nx

    return nx.is_directed_acyclic_graph(graph.directed)


def graph_text(graph) -> str:
    edges = [f"{a}->{b}" for a, b in graph.directed.edges()] + [f"{a}<->{b}" for a, b in graph.undirected.edges()]
    touched = {str(n) for e in list(graph.directed.edges()) + list(graph.undirected.edges()) for n in e}
    return ",".join(edges + sorted(str(n) for n in graph.nodes() if str(n) not in touched))


def to_y0(graph) -> object:
    """A :class:`~tests.support.admgs.MixedGraph` as y0's ``NxMixedGraph``."""
    from y0.graph import NxMixedGraph

    return NxMixedGraph.from_str_edges(nodes=graph.nodes, directed=graph.directed, undirected=graph.bidirected)


def y0_identify(case: Case):
    """y0's estimand for the case (None: y0 says not identifiable)."""
    from y0.algorithm.identify import identify_outcomes
    from y0.dsl import Variable

    def variables(names):
        return {Variable(n) for n in names}

    conditions = variables(case.conditions) if case.conditions else None
    return identify_outcomes(case.graph, variables(case.treatments), variables(case.outcomes), conditions)


def to_expr(e) -> Expr:
    """A y0 estimand (probabilities, sums, products, fractions, one) as our expression."""
    from y0 import dsl

    if isinstance(e, dsl.Probability):
        event = tuple(Atom(str(v), str(v)) for v in e.distribution.children)
        given = tuple(Atom(str(v), str(v)) for v in e.distribution.parents)
        return Prob(event, (), given)
    if isinstance(e, dsl.Sum):
        body = to_expr(e.expression)
        for v in sorted(str(r) for r in e.ranges)[::-1]:
            body = Sum(v, v, body)
        return body
    if isinstance(e, dsl.Product):
        return mul(*(to_expr(f) for f in e.expressions))
    if isinstance(e, dsl.Fraction):
        return div(to_expr(e.numerator), to_expr(e.denominator))
    if isinstance(e, dsl.One):
        return Num(1)
    raise TypeError(f"no conversion for y0's {type(e).__name__}: {e}")
