"""``identify`` (Shpitser & Pearl's ID and IDC) and ``causal-datasets identify``: textbook estimands, hedges,
random ADMGs checked by the verifier, an independent numeric evaluator and Tian's decision procedure."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causal_datasets.cli import main
from causal_datasets.docalc.admg import ADMG, CForest
from causal_datasets.docalc.expr import Prob, bound_apart
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.identification import (
    CONDITIONAL,
    FACTORIZATION,
    SUBPROBLEM,
    QueryError,
    identify,
    step_counts,
)
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.rules import DO_CALCULUS_RULES, RuleContext, do_calculus, do_calculus_rule
from causal_datasets.docalc.verdict import as_graph, check_equivalence, check_proof
from causal_datasets.graph import GraphError
from tests.support.admgs import (
    LatentModel,
    MixedGraph,
    idc_identifiable,
    largest_difference,
    query_text,
    random_admg,
    random_query,
    tian_identifiable,
)

BACKDOOR = "Z->X,Z->Y,X->Y"
FRONTDOOR = "X->M,M->Y,X<->Y"
NAPKIN = "X->Y,Z1->X,Z2->Z1,X<->Z2,Y<->Z2"


def mixed(text: str) -> MixedGraph:
    """The test's own reading of simple edge text (``A->B``, ``A<->B``) in a topological order."""
    g = as_graph(text)
    order = tuple(n for n in g.order if n not in g.latent)
    directed = tuple((a, b) for a, b in g.edges if a not in g.latent)
    bidirected = tuple(tuple(sorted(b for a, b in g.edges if a == u)) for u in sorted(g.latent))
    return MixedGraph(order, directed, bidirected)


@pytest.mark.parametrize(
    "query, graph, estimand, arbitrary",
    [
        ("P(Y | do(X))", BACKDOOR, "\\sum_{Z} P(Y | X, Z) * P(Z)", ()),
        ("P(Y | do(X))", FRONTDOOR, "\\sum_{M} P(M | X) * (\\sum_{X} P(X) * P(Y | M, X))", ()),
        (
            "P(Y | do(X))",
            NAPKIN,
            "(\\sum_{Z2} P(X | Z1, Z2) * P(Y | X, Z1, Z2) * P(Z2)) / (\\sum_{Z2} P(X | Z1, Z2) * P(Z2))",
            ("Z1",),
        ),
        ("P(Y | do(X), Z)", "X->Z,Z->Y,X<->Z", "P(Y | X, Z)", ()),
        ("P(Y=1 | do(X=0))", BACKDOOR, "\\sum_{Z} P(Y=1 | X=0, Z) * P(Z)", ()),
        ("P(Y)", BACKDOOR, "P(Y)", ()),
    ],
)
def test_textbook_estimands(query, graph, estimand, arbitrary):
    """Back-door adjustment, the front-door formula, the napkin ratio (Pearl & Mackenzie's, for any value of
    Z1), IDC's exchange: the canonical text reads back, and the verifier calls it equal to the query."""
    result = identify(query, graph)
    assert result.identifiable and result.estimand.text == estimand and result.arbitrary == arbitrary
    assert parse(result.estimand.text) == result.estimand
    assert check_equivalence(query, result.estimand, graph).equivalent is True
    difference = largest_difference(
        LatentModel(mixed(graph), np.random.default_rng(0)),
        result.estimand,
        *_roles(parse(query)),
        list(arbitrary),
        dict(result.values),
    )
    assert difference < 1e-9


def _roles(p: Prob) -> tuple[list[str], list[str], list[str]]:
    return [a.var for a in p.event], [v for v, _ in p.do], [a.var for a in p.given]


def test_the_evaluator_can_tell_a_wrong_estimand():
    """The independent evaluator is a real check: P(Y | X) is not P(Y | do(X)) under confounding."""
    model = LatentModel(mixed("X->Y,X<->Y,Z->X"), np.random.default_rng(1))
    assert largest_difference(model, parse("P(Y | X)"), ["Y"], ["X"], [], []) > 1e-3


#: non-identifiable queries: the bow, the instrument, the effect through a confounded mediator, the
#: effect on a child with a second confounded parent, Shpitser & Pearl's line-6 example, several outcomes
NON_IDENTIFIABLE = [
    ("P(Y | do(X))", "X->Y,X<->Y"),
    ("P(Y | do(X))", "Z->X,X->Y,X<->Y"),
    ("P(Y | do(X))", "X->Z,Z->Y,X<->Z"),
    ("P(Y | do(X))", "X->Y,Z->Y,X<->Z,Z<->Y"),
    ("P(Y | do(X))", "X->Y,X->Z,Z->Y,X<->Z"),
    ("P(Y | do(X))", "X->Z,X->W,Z->Y,W->Y,X<->Z,W<->Y"),
    ("P(Y1, Y2 | do(X))", "X->Y1,Y1->Y2,X<->Y1"),
    ("P(Y | do(X), Z)", "X->Y,Y->Z,X<->Y"),
    ("P(Y | do(X1, X2))", "X1->X2,X2->Y,X2<->Y"),
]


@pytest.mark.parametrize("query, graph", NON_IDENTIFIABLE)
def test_non_identifiable_queries_give_a_hedge(query, graph):
    """Never "identified"; Tian's independent procedure agrees; the hedge is two C-forests of the graph."""
    p = parse(query)
    ys, xs, zs = _roles(p)
    truth = idc_identifiable(mixed(graph), ys, xs, zs) if zs else tian_identifiable(mixed(graph), ys, xs)
    result = identify(query, graph)
    assert truth is False and not result.identifiable and result.estimand is None
    hedge = result.hedge
    outer, inner = hedge.forest, hedge.sub_forest
    assert_c_forest(outer, graph) and assert_c_forest(inner, graph)
    assert set(inner.nodes) < set(outer.nodes) and inner.roots == outer.roots
    assert set(inner.directed) <= set(outer.directed) and set(inner.bidirected) <= set(outer.bidirected)
    treatments = {v for v, _ in parse(hedge.query).do}
    assert treatments & set(outer.nodes) and not treatments & set(inner.nodes)


def assert_c_forest(forest: CForest, graph: str) -> bool:
    """Each non-root node has one edge, to a child in the set, every node reaches a root, and the
    bidirected edges (all in the graph) join every node: the definition, read independently."""
    m = mixed(graph)
    nodes = set(forest.nodes)
    child = dict(forest.directed)
    assert set(child) == nodes - set(forest.roots) and set(child.values()) <= nodes
    assert all(edge in m.directed for edge in forest.directed)
    for node in nodes:
        seen = set()
        while node not in forest.roots:
            assert node not in seen
            seen.add(node)
            node = child[node]
    assert all(tuple(sorted(e)) in {tuple(sorted(b)) for b in m.bidirected} for e in forest.bidirected)
    joined, grew = {forest.nodes[0]}, True
    while grew:
        grew = False
        for a, b in forest.bidirected:
            if (a in joined) != (b in joined):
                joined |= {a, b}
                grew = True
    assert joined == nodes
    return True


def _random_cases(seed: int, count: int, p_bidirected: float = 0.25):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        graph = random_admg(rng, int(rng.integers(4, 9)), p_bidirected=p_bidirected)
        ys, xs, zs = random_query(rng, graph, conditional=rng.random() < 0.3)
        yield graph, ys, xs, zs


def test_random_admgs_are_identified_exactly_when_identifiable_and_correctly():
    """300 random ADMGs of 4-8 nodes with a random ID or IDC query: identified exactly when Tian's procedure
    (after IDC's reduction, with networkx's d-separation) says so; every estimand equal to the query under
    the verifier and under an exact evaluator with explicit latent variables (3 values each); every hedge
    two C-forests of the graph."""
    outcomes = {True: 0, False: 0}
    for number, (graph, ys, xs, zs) in enumerate(_random_cases(seed=35, count=300)):
        query = query_text(ys, xs, zs)
        result = identify(query, graph.text, check=False)
        expected = idc_identifiable(graph, ys, xs, zs) if zs else tian_identifiable(graph, ys, xs)
        assert result.identifiable is expected, (query, graph.text)
        outcomes[expected] += 1
        if not result.identifiable:
            assert assert_c_forest(result.hedge.forest, graph.text) and assert_c_forest(
                result.hedge.sub_forest, graph.text
            )
        else:
            assert parse(result.estimand.text) == result.estimand
            assert check_equivalence(query, result.estimand, graph.text).equivalent is True, (query, graph.text)
            model = LatentModel(graph, np.random.default_rng(number))
            assert largest_difference(model, result.estimand, ys, xs, zs, list(result.arbitrary)) < 1e-9, (
                query,
                graph.text,
                result.estimand.text,
            )
    assert outcomes[True] > 150 and outcomes[False] > 30, outcomes


def test_derivations_are_checked_step_by_step():
    """On random ADMGs (every line of ID and IDC at work): every step is an application of the rule it
    names that the package's rule checker accepts (line 4's factorization and the subproblem formula of
    lines 1 and 6 after a line 7 included; IDC's ratio with several conditions may go to
    check_equivalence), and check_proof re-checks every step on random models."""
    counts: dict[str, int] = {}
    lines: set[str] = set()
    identified = line7 = factorized = substituted = 0
    for graph, ys, xs, zs in _random_cases(seed=8, count=150, p_bidirected=0.3):
        result = identify(query_text(ys, xs, zs), graph.text)
        if not result.identifiable:
            continue
        identified += 1
        for step in result.derivation:
            if step.rule == CONDITIONAL:  # one rule application for one condition, several otherwise
                assert step.check in ("rule", "equivalence"), step
            else:
                assert step.check == "rule", step
            lines.add(step.line)
            line7 += "(ID line 7)" in step.condition
            factorized += step.rule == FACTORIZATION  # Tian's factorization is a rule of the checker
            substituted += step.rule == SUBPROBLEM
        for check, n in step_counts(result).items():
            counts[check] = counts.get(check, 0) + n
        check_proof(result.proof(), as_graph(graph.text))
        assert result.proof().end == result.estimand.text
    assert identified > 40 and counts["rule"] > 10 * counts.get("equivalence", 0), counts
    assert {"ID line 1", "ID line 2", "ID line 3", "ID line 4", "ID line 6", "IDC line 1", "IDC line 2"} <= lines
    assert line7 > 0 and factorized > 0 and substituted > 0


def test_without_checks_the_steps_say_so():
    checked, unchecked = identify("P(Y | do(X))", FRONTDOOR), identify("P(Y | do(X))", FRONTDOOR, check=False)
    assert checked.estimand == unchecked.estimand
    assert {step.check for step in unchecked.derivation} == {"unchecked"}
    assert [s.expression for s in checked.derivation] == [s.expression for s in unchecked.derivation]


def test_one_rule_application_is_what_the_enumeration_gives():
    """``do_calculus_rule`` (the derivation's rule check) gives exactly the rewrites ``do_calculus`` yields,
    rule by rule and variable by variable, on terms of random graphs."""
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(60):
        graph = random_admg(rng, int(rng.integers(3, 7)))
        g = as_graph(graph.text)
        nodes = list(rng.permutation(graph.nodes))
        event, do, given = nodes[:1], nodes[1:3], nodes[3:4]
        term = parse(query_text(event, do, given))
        context = RuleContext(g, tuple((n, n) for n in graph.nodes))
        enumerated = {(r.rule, r.result.text, r.condition) for r in do_calculus(term, context)}
        one_by_one = {
            (r.rule, r.result.text, r.condition)
            for rule in DO_CALCULUS_RULES
            for n in graph.nodes
            if (r := do_calculus_rule(term, rule, n, n, context)) is not None
        }
        assert enumerated == one_by_one
        seen += len(enumerated)
    assert seen > 100


def test_several_conditions_divide_by_the_marginal():
    """P(Y | do(X), Z, W) with two conditions that stay observations: IDC's ratio, checked by check_equivalence."""
    graph = "X->Y,Y->Z,Y->W,X<->Z"
    result = identify("P(Y | do(X), W, Z)", graph)
    assert result.identifiable and result.algorithm == "IDC"
    assert any(step.rule == CONDITIONAL for step in result.derivation)
    assert check_equivalence("P(Y | do(X), W, Z)", result.estimand, graph).equivalent is True


def test_latent_nodes_are_projected():
    """Named latent nodes (a chain of two) act like the bidirected edge they project to."""
    with_chain = DoGraph.parse("U1->U2,U2->X,U1->Y,X->M,M->Y", latent=["U1", "U2"])
    assert ADMG.project(with_chain).siblings["X"] == {"Y"}
    result = identify("P(Y | do(X))", with_chain)
    reference = identify("P(Y | do(X))", FRONTDOOR)
    assert result.estimand == reference.estimand
    assert check_equivalence("P(Y | do(X))", result.estimand, with_chain).equivalent is True


@pytest.mark.parametrize(
    "query, error",
    [
        ("E[Y | do(X)]", QueryError),
        ("P(Y | do(X)) + P(Y)", QueryError),
        ("P(Y_{X=1})", QueryError),
        ("P(Y | do(X), Y)", QueryError),
        ("P(Y | do(X=2))", QueryError),
        ("P(Y=X | do(X))", QueryError),
        ("P(Q | do(X))", GraphError),
        ("P(Y | do(X)", ExprParseError),
    ],
)
def test_bad_queries_are_typed_errors(query, error):
    with pytest.raises(error):
        identify(query, "X->Y,X<->Y")


def test_an_unobserved_variable_is_no_query():
    with pytest.raises(QueryError, match="unobserved"):
        identify("P(Y | do(U))", "U->X,U->Y,X->Y", latent=["U"])


def test_a_cyclic_graph_is_a_graph_error():
    with pytest.raises(GraphError):
        identify("P(Y | do(X))", "X->Y,Y->X")


NAMES = ["A", "B", "C", "D", "E"]


@st.composite
def graphs_and_queries(draw):
    size = draw(st.integers(2, 5))
    nodes = NAMES[:size]
    pairs = [(a, b) for i, a in enumerate(nodes) for b in nodes[i + 1 :]]
    kinds = draw(
        st.lists(st.sampled_from(["none", "directed", "bidirected", "both"]), min_size=len(pairs), max_size=len(pairs))
    )
    edges = [f"{a}->{b}" for (a, b), k in zip(pairs, kinds, strict=True) if k in ("directed", "both")]
    edges += [f"{a}<->{b}" for (a, b), k in zip(pairs, kinds, strict=True) if k in ("bidirected", "both")]
    text = ",".join(edges + nodes)
    role = st.lists(st.sampled_from(nodes + ["Q"]), max_size=3)
    event, do, conditions = draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=2)), draw(role), draw(role)
    value = st.sampled_from(["", "=0", "=1", "=2"])
    parts = [f"do({', '.join(d + draw(value) for d in do)})"] if do else []
    parts += [c + draw(value) for c in conditions]
    query = f"P({', '.join(e + draw(value) for e in event)}{' | ' + ', '.join(parts) if parts else ''})"
    return query, text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(graphs_and_queries())
def test_identify_never_crashes(case):
    """Any small graph and any query over its names (roles repeated, unknown names, values out of range):
    an identification, or a typed error for bad input; an identified estimand is equal to the query."""
    query, graph = case
    try:
        result = identify(query, graph)
    except (QueryError, GraphError, ExprParseError):
        return
    if result.identifiable:
        assert check_equivalence(query, result.estimand, graph).equivalent is True
    else:
        assert result.hedge is not None


# ---- the command -----------------------------------------------------------------------------------


def test_cli_identified(capsys):
    assert main(["identify", "P(Y | do(X))", "--graph", BACKDOOR, "--proof"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("P(Y | do(X)) = \\sum_{Z} P(Y | X, Z) * P(Z)")
    assert "ID line 4, c-component factorization" in out
    assert "(checked by the rule checker)" in out and "(checked by check_equivalence)" not in out
    assert main(["identify", "P(Y | do(X))", "--graph", FRONTDOOR, "--proof"]) == 0
    out = capsys.readouterr().out  # the subproblem's formula is a rule too
    assert "formula of the subproblem's distribution" in out and "(checked by check_equivalence)" not in out
    assert main(["identify", "P(Y | do(X), W, Z)", "--graph", "X->Y,Y->Z,Y->W,X<->Z", "--proof"]) == 0
    assert "(checked by check_equivalence)" in capsys.readouterr().out  # IDC's ratio with two conditions


def test_cli_names_the_summed_copy_of_a_free_variable_apart(capsys):
    """The front-door formula's inner sum runs over X while X is the treatment outside it: printed as X=X'."""
    assert main(["identify", "P(Y | do(X))", "--graph", FRONTDOOR, "--proof"]) == 0
    out = capsys.readouterr().out
    printed = "\\sum_{M} P(M | X) * (\\sum_{X=X'} P(X=X') * P(Y | M, X=X'))"
    assert out.startswith(f"P(Y | do(X)) = {printed}\n") and out.rstrip().endswith(f"= {printed}")
    assert "\\sum_{X} P(X)" not in out.splitlines()[0]
    assert parse(printed) == identify("P(Y | do(X))", FRONTDOOR).estimand  # the same estimand, parsed again


@pytest.mark.parametrize(
    ("text", "apart"),
    [
        ("P(X) * \\sum_{X} P(X) * \\sum_{X} P(Y | X)", "P(X) * (\\sum_{X=X'} P(X=X') * (\\sum_{X=X''} P(Y | X=X'')))"),
        ("\\sum_{X} P(X) * \\sum_{X=u} P(Y | X=u)", "\\sum_{X} P(X) * (\\sum_{X=X'} P(Y | X=X'))"),
        ("\\sum_{Z} P(Y | X, Z) * P(Z)", "\\sum_{Z} P(Y | X, Z) * P(Z)"),  # nothing shadowed: as it was
        ("P(X, X') * \\sum_{X} P(Y | X)", "P(X, X') * (\\sum_{X=X''} P(Y | X=X''))"),  # X' is taken
    ],
)
def test_bound_apart_primes_only_shadowing_indices_and_keeps_the_value(text, apart):
    e = parse(text)
    assert bound_apart(e).text == apart and parse(apart) == e


def test_cli_not_identifiable_prints_the_hedge(capsys):
    assert main(["identify", "P(Y | do(X))", "--graph", "X->Y,X<->Y"]) == 1
    out = capsys.readouterr().out
    assert "not identifiable" in out and "F  = {X, Y} with root set {Y}: X -> Y, X <-> Y" in out


def test_cli_json(capsys):
    assert main(["identify", "P(Y=1 | do(X=0))", "--graph", NAPKIN.replace("Z1", "W"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["identifiable"] and data["values"] == {"Y": 1, "X": 0} and data["arbitrary"] == ["W"]
    assert data["derivation"][-1]["expression"] != data["estimand"]  # symbolic derivation, valued estimand
    assert all(step["check"] in ("rule", "equivalence") for step in data["derivation"])
    assert main(["identify", "P(Y | do(X))", "--graph", "X->Y,X<->Y", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["hedge"]["F_prime"]["nodes"] == ["Y"]


@pytest.mark.parametrize(
    "argv",
    [
        ["identify", "P(Y | do(X)", "--graph", "X->Y"],
        ["identify", "P(Y | do(Q))", "--graph", "X->Y"],
        ["identify", "E[Y | do(X)]", "--graph", "X->Y"],
        ["identify", "P(Y | do(X))", "--graph", "X->Y,Y->X"],
        ["identify", "P(Y | do(X))", "--graph", "X--Y"],
        ["identify", "P(Y | X)", "--graph", "X->Y"],
    ],
)
def test_cli_bad_input_is_one_error_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize("query", ["P(Y | X)", "P(Y)", "P(Y=1 | X=0, Z)"])
def test_cli_refuses_a_query_without_an_intervention(query, capsys):
    assert main(["identify", query, "--graph", "Z->X,X->Y"]) == 2
    assert "has no intervention: an observational probability is its own estimand" in capsys.readouterr().err
