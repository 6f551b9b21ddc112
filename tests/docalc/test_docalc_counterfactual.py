"""Counterfactual identification (ID*, IDC*) and ``causal-datasets identify`` on counterfactual queries: textbook
answers, the JMLR paper's example, 200 random queries against the numeric oracle (exact evaluation on random
structural models, :func:`check_equivalence`), the derivation's checks, the command and a fuzz test."""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causal_datasets.cli import main
from causal_datasets.docalc.admg import ADMG
from causal_datasets.docalc.counterfactual_graph import Inconsistent, Node, make_counterfactual_graph
from causal_datasets.docalc.counterfactual_identification import (
    CounterfactualStep,
    checked_steps,
    identify_counterfactual,
    instances,
)
from causal_datasets.docalc.expr import Num, Prob, substitute
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.identification import QueryError, UnsoundIdentification, identify
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.verdict import as_graph, check_equivalence
from causal_datasets.graph import GraphError
from tests.support.admgs import random_admg, random_query

BACKDOOR = "Z->X,Z->Y,X->Y"
FRONTDOOR = "X->M,M->Y,X<->Y"
#: Shpitser & Pearl (JMLR 2008) figure 9a, and Tikka's (2022) variant with X->Y where the same query fails
FIGURE_9A = "X->W,W->Y,D->Z,Z->Y,X<->Y"
TIKKA = "X->W,W->Y,D->Z,Z->Y,X->Y,X<->Y"


def oracle(query, estimand, graph, values=None) -> bool | None:
    """Is the estimand the query's value on random structural models of the graph?"""
    return check_equivalence(query, estimand, graph, prove=False, values=values).equivalent


@pytest.mark.parametrize(
    "query, graph, estimand, observational",
    [
        (  # the effect of treatment on the treated under a back-door graph
            "P(Y_{X=1}=1 | X=0)",
            BACKDOOR,
            "(\\sum_{Z} P(X=0 | do(Z)) * P(Y=1 | do(X=1, Z)) * P(Z)) / (\\sum_{Z} P(X=0 | do(Z)) * P(Z))",
            "(\\sum_{Z} P(X=0 | Z) * P(Y=1 | X=1, Z) * P(Z)) / (\\sum_{Z} P(X=0 | Z) * P(Z))",
        ),
        ("P(Y_{X=1}=1 | X=0)", "X->Y", "P(Y=1 | do(X=1))", "P(Y=1 | X=1)"),
        ("P(Y_{X=1}=1, X=0)", "X->Y", "P(X=0) * P(Y=1 | do(X=1))", "P(X=0) * P(Y=1 | X=1)"),
        ("P(Y_{X=1}=1, X=1)", "X->Y,X<->Y", "P(X=1, Y=1)", "P(X=1, Y=1)"),  # consistency: Y_x = Y where X = x
        (
            "P(Y_{X=1}=1 | X=0)",
            FRONTDOOR,
            "(\\sum_{M} P(M | do(X=1)) * P(X=0, Y=1 | do(M))) / P(X=0)",
            "(\\sum_{M} P(M | X=1) * P(X=0) * P(Y=1 | M, X=0)) / P(X=0)",
        ),
    ],
)
def test_textbook_answers(query, graph, estimand, observational):
    result = identify_counterfactual(query, graph)
    assert result.status == "identified"
    assert result.estimand.text == estimand and result.observational.text == observational
    assert oracle(query, result.estimand, graph) is True and oracle(query, result.observational, graph) is True
    assert result.derivation and all(step.check == "equivalence" for step in result.derivation)


def test_ett_with_symbols_holds_where_they_differ():
    """``x`` and ``x'`` are distinct values: the estimand is checked at both assignments that keep them apart."""
    result = identify_counterfactual("P(Y_{X=x} | X=x')", BACKDOOR)
    assert result.distinct == (("X", ("X", "x'")),)
    assert instances(result.distinct, as_graph(BACKDOOR)) == [{"X": 0, "x'": 1}, {"X": 1, "x'": 0}]
    for values in instances(result.distinct, as_graph(BACKDOOR)):
        query = substitute(parse(result.query), values)
        assert oracle(query, substitute(result.observational, values), BACKDOOR) is True


@pytest.mark.parametrize(
    "query, graph, variable",
    [
        ("P(Y_{X=1}=1 | X=0)", "X->Y,X<->Y", "X"),  # ETT under confounding
        ("P(Y_{X=1}=1, Y_{X=0}=0)", "X->Y", "X"),  # the probability of necessity and sufficiency
        ("P(Y_{X=0}=1, Y=1)", "X->Y", "X"),  # Y and Y_{X=0} share U_Y; X is summed and also set to 0
        ("P(Y_{X=1}=1 | X=0)", "X->Z,Z->Y,X<->Z", "X"),  # y0's figure 6a graph
        ("P(Y_{X=1}=1 | Z_{X=0}=0, X=0)", "X->Z,Z->Y,X->Y", "X"),  # a cross-world mediator
        ("P(Y_{X=x}=y | X=x', Z_{D=d}=z, D=d)", TIKKA, "X"),
    ],
)
def test_not_identifiable_carries_the_conflict(query, graph, variable):
    result = identify_counterfactual(query, graph)
    assert result.status == "not identifiable" and not result.identifiable and result.estimand is None
    witness = result.witness
    assert witness.variable == variable and witness.district and witness.values[0] != witness.values[1]
    assert "ID* line 8" in witness.text()


def test_the_papers_example_is_identified():
    """Figure 9a: P(y_x | x', z_d, d) (Shpitser & Pearl's worked example of IDC*): line 4 moves D and Z into
    the subscript, and the answer holds on the oracle at both distinct readings of x and x'."""
    query = "P(Y_{X=x}=y | X=x', Z_{D=d}=z, D=d)"
    result = identify_counterfactual(query, FIGURE_9A)
    assert result.status == "identified" and result.algorithm == "IDC*"
    assert [step.line for step in result.derivation].count("IDC* line 4") == 2
    for values in instances(result.distinct, as_graph(FIGURE_9A)):
        query_at = substitute(parse(result.query), values)
        assert oracle(query_at, substitute(result.estimand, values), FIGURE_9A) is True


@pytest.mark.parametrize(
    "query, graph",
    [("P(X_{X=1}=0, Y=1)", "X->Y"), ("P(Y_{X=1}=1, Y=0 | X=1)", "X->Y"), ("P(Y_{X=1}=0, Y_{X=1}=1)", "X->Y")],
)
def test_inconsistent_events_are_zero(query, graph):
    result = identify_counterfactual(query, graph)
    assert result.status == "inconsistent" and result.estimand == Num(0) and result.identifiable
    assert oracle(query, Num(0), graph) is True


def test_latex_shows_the_derivation_or_the_status():
    ett = identify_counterfactual("P(Y_{X=1}=1 | X=0)", BACKDOOR)
    latex = ett.to_latex()
    assert latex.startswith("\\begin{aligned}") and "IDC* line 5" in latex and latex.count("\\\\") == 6
    assert "not identifiable, X in conflict" in identify_counterfactual("P(Y_{X=1}=1 | X=0)", "X->Y,X<->Y").to_latex()


def test_inconsistent_conditions_are_undefined():
    result = identify_counterfactual("P(Y_{X=1}=1 | X_{X=0}=1)", "X->Y")
    assert result.status == "undefined" and "IDC* line 1" in result.note
    assert oracle("P(X_{X=0}=1)", Num(0), "X->Y") is True


# ---- random queries against the oracle ----------------------------------------------------------------


def _graph_text(graph) -> str:
    return ",".join(
        [f"{a}->{b}" for a, b in graph.directed] + [f"{a}<->{b}" for a, b in graph.bidirected] + list(graph.nodes)
    )


def _random_atom(rng, nodes) -> str:
    var = str(rng.choice(nodes))
    others = [n for n in nodes if n != var or rng.random() < 0.1]  # now and then a variable in its own subscript
    size = min(int(rng.integers(0, 3)), len(others))
    subscript = sorted({str(n) for n in rng.choice(others, size=size, replace=False)}) if size else []
    shown = f"_{{{', '.join(f'{v}={int(rng.integers(0, 2))}' for v in subscript)}}}" if subscript else ""
    return f"{var}{shown}={int(rng.integers(0, 2))}"


def random_cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        graph = random_admg(rng, int(rng.integers(3, 5)), 0.45, 0.3, 2)
        nodes = list(graph.nodes)
        event = [_random_atom(rng, nodes) for _ in range(int(rng.integers(1, 3)))]
        conditions = [_random_atom(rng, nodes) for _ in range(int(rng.integers(0, 3)))]
        yield f"P({', '.join(event)}{' | ' + ', '.join(conditions) if conditions else ''})", _graph_text(graph)


def test_200_random_queries_agree_with_the_oracle():
    """Every identified answer (interventional and observational) equals the query on random structural models;
    an inconsistent one is 0 there; undefined ones have conditions of probability 0; the others carry a conflict."""
    statuses = collections.Counter()
    for query, graph in random_cases(200, seed=40):
        result = identify_counterfactual(query, graph, check=False)
        statuses[result.status] += 1
        if result.status in ("identified", "inconsistent"):
            assert oracle(query, result.estimand, graph) is True, (query, graph, result.estimand.text)
            if result.observational is not None:
                assert oracle(query, result.observational, graph) is True, (query, graph)
        elif result.status == "undefined":
            assert oracle(Prob(parse(query).given), Num(0), graph) is True, (query, graph)
        else:
            assert result.witness is not None and result.witness.district, (query, graph)
    assert sum(statuses.values()) == 200
    assert all(statuses[s] >= 5 for s in ("identified", "inconsistent", "not identifiable", "undefined")), statuses


def _symbolic_atom(rng, nodes) -> str:
    """An atom whose values are symbols: ``v`` or ``v'`` for a variable ``V``."""

    def value(var: str) -> str:
        return var.lower() + ("'" if rng.random() < 0.5 else "")

    var = str(rng.choice(nodes))
    others = [n for n in nodes if n != var]
    size = min(int(rng.integers(0, 3)), len(others))
    subscript = sorted({str(n) for n in rng.choice(others, size=size, replace=False)}) if size else []
    shown = f"_{{{', '.join(f'{v}={value(v)}' for v in subscript)}}}" if subscript else ""
    return f"{var}{shown}={value(var)}"


def test_random_symbolic_queries_hold_where_symbols_differ():
    """Symbolic values: every step checked (``check=True``), and each answer equal to the query at every
    assignment that keeps a variable's symbols apart."""
    rng = np.random.default_rng(42)
    statuses = collections.Counter()
    for _ in range(60):
        graph = _graph_text(random_admg(rng, int(rng.integers(3, 5)), 0.45, 0.3, 2))
        nodes = [n for n in as_graph(graph).order if n not in as_graph(graph).latent]
        event = ", ".join(_symbolic_atom(rng, nodes) for _ in range(int(rng.integers(1, 3))))
        conditions = ", ".join(_symbolic_atom(rng, nodes) for _ in range(int(rng.integers(0, 3))))
        query = f"P({event}{' | ' + conditions if conditions else ''})"
        result = identify_counterfactual(query, graph)
        statuses[result.status] += 1
        if result.estimand is None:
            continue
        for values in instances(result.distinct, as_graph(graph)):
            at = substitute(parse(result.query), values)
            assert oracle(at, substitute(result.estimand, values), graph) is True, (query, graph, values)
    assert statuses["identified"] >= 20 and statuses["not identifiable"] >= 5, statuses


def _separations(cg, rng, tries: int):
    """(node, picked, given) triples to compare, drawn at random."""
    for node in cg.nodes:
        others = [n for n in cg.nodes if n != node]
        for _ in range(tries):
            picked = {n for n in others if rng.random() < 0.4}
            observed = {n for n in others if n not in picked and rng.random() < 0.6}
            if picked:
                yield node, picked, observed


def test_d_separation_in_the_counterfactual_graph_matches_bayes_ball():
    """IDC*'s line 4 test (moralization) against :meth:`DoGraph.d_separated` (the reachability algorithm) on the
    counterfactual graph written as a DAG, one latent parent per pair of nodes sharing exogenous variables: on
    random events, and on the factual event of random ADMGs (one world: the graph itself)."""
    rng = np.random.default_rng(43)
    cases = [(parse(query), graph) for query, graph in random_cases(60, seed=44)]
    cases += [(parse(f"P({', '.join(f'{v}=0' for v in g.nodes)})"), _graph_text(g)) for g in _admgs(rng, 150)]
    compared = 0
    for term, graph in cases:
        atoms = tuple(a for a in term.event + term.given if a.var not in dict(a.cf))
        try:
            cg = make_counterfactual_graph(ADMG.project(as_graph(graph)), atoms)
        except Inconsistent:
            continue
        name = {node: f"N{i}" for i, node in enumerate(cg.nodes)}
        pairs = [(x, y) for i, x in enumerate(cg.nodes) for y in cg.nodes[i + 1 :] if cg.linked(x, y)]
        edges = [(name[p], name[n]) for n in cg.nodes for p in cg.parents[n].values() if isinstance(p, Node)]
        edges += [(f"U{i}", name[end]) for i, pair in enumerate(pairs) for end in pair]
        dag = DoGraph(tuple(name.values()) + tuple(f"U{i}" for i in range(len(pairs))), tuple(edges))
        for node, picked, observed in _separations(cg, rng, 4):
            expected = dag.d_separated(
                {name[node]}, {name[n] for n in picked}, {name[n] for n in observed}, cut_out={name[node]}
            )
            assert cg.separated(node, picked, observed) is expected, (term.text, graph, node, picked, observed)
            compared += 1
    assert compared > 1000


def _admgs(rng, count: int):
    return [random_admg(rng, int(rng.integers(4, 6)), 0.4, 0.35, 4) for _ in range(count)]


def test_one_world_queries_agree_with_id():
    """``P(Y_{X=1}=1)`` is ``P(Y=1 | do(X=1))``, an element of ``P_*``: ID* always answers it, and its observational
    form exists exactly where ID identifies the interventional query."""
    rng = np.random.default_rng(45)
    outcomes = collections.Counter()
    for _ in range(100):
        graph = random_admg(rng, int(rng.integers(3, 6)), 0.4, 0.35, 4)
        ys, xs, _ = random_query(rng, graph, False)
        subscript = ", ".join(f"{x}=1" for x in xs)
        ours = identify_counterfactual(
            "P(" + ", ".join(f"{y}_{{{subscript}}}=1" for y in ys) + ")", _graph_text(graph), check=False
        )
        theirs = identify(f"P({', '.join(f'{y}=1' for y in ys)} | do({subscript}))", _graph_text(graph), check=False)
        assert ours.status == "identified" and (ours.observational is not None) is theirs.identifiable
        outcomes[theirs.identifiable] += 1
    assert outcomes[True] >= 20 and outcomes[False] >= 10, outcomes


def test_derivation_steps_are_each_checked():
    for query, graph in list(random_cases(40, seed=41)):
        result = identify_counterfactual(query, graph)
        assert all(step.check == "equivalence" for step in result.derivation), (query, graph)


def test_a_wrong_step_is_refuted():
    graph = as_graph("X->Y,X<->Y")
    wrong = CounterfactualStep("ID* line 9", "made up", "", parse("P(Y_{X=1}=1 | X=0)"), parse("P(Y=1 | X=1)"))
    with pytest.raises(UnsoundIdentification):
        checked_steps([wrong], graph, (), seed=0)


@pytest.mark.parametrize(
    "query, error",
    [
        ("P(Y_{X=1, M_{X=0}}=1)", QueryError),  # nested: path-specific, outside ID*
        ("E[Y_{X=1}]", QueryError),
        ("P(Y_{X=2}=1)", QueryError),
        ("P(Y_{X=x}=1, X=0)", QueryError),  # X written both as a symbol and a constant
        ("P(Y_{X=x}=1, Y_{X=x'}=1, Y_{X=x''}=0)", QueryError),  # three distinct values of a binary X
        ("P(Y_{Q=1}=1)", GraphError),
        ("P(Y_{X=1}=1", ExprParseError),
    ],
)
def test_bad_queries_raise_typed_errors(query, error):
    with pytest.raises(error):
        identify_counterfactual(query, "X->Y,M->Y,X->M")


# ---- the command --------------------------------------------------------------------------------------------


def test_cli_ett_with_the_derivation(capsys):
    assert main(["identify", "P(Y_{X=x} | X=x')", "--graph", BACKDOOR, "--proof"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("P(Y_{X} | X=x') = ")
    assert "(\\sum_{Z} P(X=x' | Z) * P(Y | X, Z) * P(Z)) / (\\sum_{Z} P(X=x' | Z) * P(Z))" in out
    assert "derivation (IDC*, Shpitser & Pearl 2008)" in out and "checked by check_equivalence" in out
    assert "X != x'" in out


def test_cli_outcomes_and_json(capsys):
    assert main(["identify", "P(Y_{X=1}=1 | X=0)", "--graph", "X->Y,X<->Y"]) == 1
    assert "ID* line 8" in capsys.readouterr().out
    assert main(["identify", "P(Y_{X=1}=1 | X_{X=0}=1)", "--graph", "X->Y"]) == 1
    assert capsys.readouterr().out.startswith("undefined: ")
    assert main(["identify", "P(X_{X=1}=0)", "--graph", "X->Y"]) == 0
    assert "= 0  (an inconsistent event)" in capsys.readouterr().out
    assert main(["identify", "P(Y_{X=1}=1 | do(Z=0), X=0)", "--graph", BACKDOOR + ",W->X"]) == 0
    out = capsys.readouterr().out  # ID's estimand of P(Y=1 | do(X=1, Z=0)) keeps W at any value
    assert "= P(Y=1 | W, X=1, Z=0)" in out and "the same for every value of W" in out
    assert main(["identify", "P(Y_{X=1}=1 | X=0)", "--graph", BACKDOOR, "--json", "--no-check"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "identified" and data["algorithm"] == "IDC*"
    assert {step["check"] for step in data["derivation"]} == {"unchecked"}


@pytest.mark.parametrize(
    "query", ["P(Y_{X=1, M_{X=0}}=1)", "P(Y_{X=1}=1", "P(Y_{X=7}=1 | X=0)", "P(Y_{Q=1}=1)", "P(Y_{X=x}, X=1)"]
)
def test_cli_bad_counterfactual_input_is_one_line(query, capsys):
    assert main(["identify", query, "--graph", "X->M,M->Y,X->Y"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


_NAMES = st.sampled_from(["X", "Y", "Z", "Q", "x", "x'", "0", "1", "2"])
_SUBSCRIPT = st.lists(st.tuples(_NAMES, _NAMES), max_size=3).map(
    lambda pairs: "_{" + ", ".join(f"{a}={b}" for a, b in pairs) + "}" if pairs else ""
)
_ATOM = st.tuples(_NAMES, _SUBSCRIPT, st.sampled_from(["", "=0", "=1", "=x", "=Z_{X=0}"])).map("".join)
_QUERY = st.tuples(
    st.lists(_ATOM, min_size=1, max_size=3),
    st.lists(_ATOM, max_size=2),
    st.sampled_from(["", ")", "|", " do(X=1)", "_{", "}"]),
).map(lambda p: f"P({', '.join(p[0])}{' | ' + ', '.join(p[1]) if p[1] else ''}){p[2]}")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=_QUERY)
def test_fuzz_counterfactual_queries(query, capsys):
    """Any query text: an answer (exit 0/1) or one error line (exit 2), never a crash."""
    code = main(["identify", query, "--graph", "Z->X,Z->Y,X->Y", "--no-check"])
    captured = capsys.readouterr()
    assert code in (0, 1, 2)
    if code == 2:
        assert captured.err.startswith("error: ") and captured.err.count("\n") == 1
    else:
        assert captured.out
