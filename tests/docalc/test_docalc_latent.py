"""Numbers of values: observed domains in the question, latent causes unrestricted, exact constants,
and verdicts checked against an independent evaluator on random ADMGs (``tests/support/admg.py``)."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest

from causal_datasets.cli import main
from causal_datasets.docalc.families import random_models
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.latent import latent_values, model_graph, projection
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.semantics import evaluate
from causal_datasets.docalc.verdict import check_equivalence
from tests.support.admg import (
    ADMG,
    Term,
    corpus,
    differ,
    identify,
    mutations,
    plausible_answers,
    random_admg,
    text,
)

#: the 3x3 determinant of M[(a, x1)][(b, x2)] = P(A=a, B=b | X1=x1, X2=x2), rows (a, x1) = (0,0), (0,1),
#: (1,0) and columns (b, x2) = (0,0), (0,1), (1,0): M is a mixture over the latent's values of products
#: P(a | x1, u) * P(b | x2, u), a matrix of rank at most the number of values — so the determinant is 0
#: whenever the latent cause of A and B has two values, and not otherwise
DETERMINANT = (
    "P(A=0, B=0 | X1=0, X2=0) * P(A=0, B=0 | X1=1, X2=1) * P(A=1, B=1 | X1=0, X2=0)"
    " - P(A=0, B=0 | X1=0, X2=0) * P(A=0, B=1 | X1=1, X2=0) * P(A=1, B=0 | X1=0, X2=1)"
    " - P(A=0, B=0 | X1=0, X2=1) * P(A=0, B=0 | X1=1, X2=0) * P(A=1, B=1 | X1=0, X2=0)"
    " + P(A=0, B=0 | X1=0, X2=1) * P(A=0, B=1 | X1=1, X2=0) * P(A=1, B=0 | X1=0, X2=0)"
    " + P(A=0, B=1 | X1=0, X2=0) * P(A=0, B=0 | X1=1, X2=0) * P(A=1, B=0 | X1=0, X2=1)"
    " - P(A=0, B=1 | X1=0, X2=0) * P(A=0, B=0 | X1=1, X2=1) * P(A=1, B=0 | X1=0, X2=0)"
)
CONFOUNDED_PAIR = "X1->A,X2->B,A<->B"


def values_on(expression: str, graph: DoGraph, latent: int) -> np.ndarray:
    """The expression on the verifier's random models with every latent source at ``latent`` values."""
    relevant = graph.ancestral({"A", "B", "X1", "X2"})
    family = random_models(model_graph(relevant, dict.fromkeys(projection(relevant).sources, latent)), 0, 3, False)
    return evaluate(parse(expression), family, relevant, {})


def test_a_rank_identity_of_binary_latents_is_not_equivalence():
    graph = DoGraph.parse(CONFOUNDED_PAIR)
    assert np.abs(values_on(DETERMINANT, graph, 2)).max() < 1e-15  # what every binary-latent model says
    assert np.abs(values_on(DETERMINANT, graph, 3)).min() > 1e-6
    verdict = check_equivalence(DETERMINANT, "0", CONFOUNDED_PAIR)
    assert verdict.equivalent is False and verdict.counterexample.value_b == 0.0
    assert abs(verdict.counterexample.value_a) > 1e-6 and verdict.latent_values["U_A_B"] >= 3


def test_a_four_by_four_determinant_needs_four_latent_values():
    """With ternary X1 and X2 the moment matrix has rank up to 4: a 4x4 minor vanishes for three latent values."""
    rows, columns = [(0, 0), (0, 1), (0, 2), (1, 0)], [(0, 0), (0, 1), (0, 2), (1, 0)]
    terms = []
    for permutation in itertools.permutations(range(4)):
        sign = (-1) ** sum(permutation[i] > permutation[j] for i, j in itertools.combinations(range(4), 2))
        factors = []
        for (a, x1), (b, x2) in zip(rows, [columns[i] for i in permutation], strict=True):
            factors.append(f"P(A={a}, B={b} | X1={x1}, X2={x2})")
        terms.append(("+ " if sign > 0 else "- ") + " * ".join(factors))
    determinant = " ".join(terms)[2:]
    graph = DoGraph.parse(CONFOUNDED_PAIR, domains={"X1": 3, "X2": 3})
    assert latent_values(graph, parse(determinant), parse("0"), False)["U_A_B"] >= 4
    assert np.abs(values_on(determinant, graph, 3)).max() < 1e-15
    assert check_equivalence(determinant, "0", graph).equivalent is False


def test_the_poles_bound_keeps_a_divided_rank_identity():
    """Each determinant of P(A, B | X1, X2, W=w) is 0 for a binary latent; divided by P(A=0 | W=w), which
    depends on the latent, and summed over w, the cleared identity has degree 5 and the poles bound
    (2 + 1 + 1) is the smallest: four values, enough to refute what two values cannot."""
    inner = DETERMINANT.replace("X2=0)", "X2=0, W=w)").replace("X2=1)", "X2=1, W=w)")
    divided = rf"\sum_{{W=w}} (({inner}) / P(A=0 | W=w))"
    graph = DoGraph.parse("X1->A,X2->B,W->A,A<->B", domains={"W": 3})
    assert latent_values(graph, parse(divided), parse("0"), False) == {"U_A_B": 4}
    for latent, vanishes in [(2, True), (3, False)]:
        family = random_models(model_graph(graph, {"U_A_B": latent}), 0, 3, False)
        assert bool(np.abs(evaluate(parse(divided), family, graph, {})).max() < 1e-15) is vanishes
    verdict = check_equivalence(divided, "0", graph)
    assert verdict.equivalent is False and abs(verdict.counterexample.value_a) > 1e-6


#: a graph of the benchmark corpus where the adjustment of P(V2 | do(V4)) for V6, V5, V7, V1 (54
#: configurations) was undecided: the cleared identity has degree 55
DENSE = ADMG(
    ("V6", "V5", "V7", "V4", "V1", "V3", "V2"),
    frozenset({("V4", "V3"), ("V5", "V3"), ("V7", "V2"), ("V6", "V2"), ("V6", "V3")}),
    frozenset(
        frozenset(pair)
        for pair in [
            ("V6", "V2"),
            ("V5", "V7"),
            ("V3", "V2"),
            ("V4", "V7"),
            ("V1", "V4"),
            ("V3", "V7"),
            ("V5", "V1"),
            ("V5", "V4"),
        ]
    ),
)
DENSE_VALUES = {"V6": 3, "V5": 3, "V7": 2, "V4": 2, "V1": 3, "V3": 2, "V2": 3}


def test_adjustments_over_many_configurations_are_decided_by_the_poles_bound():
    """Every term of an adjustment divides by one probability: three values per latent decide it and
    its mutations, each verdict as the independent evaluator labels it (latents of 2-6 values)."""
    query = Term((("V2", "V2"),), (), (("V4", "V4"),))
    answers = plausible_answers(DENSE, frozenset({"V2"}), frozenset({"V4"}))
    adjustment = next(f for kind, f in answers if kind == "adjust for non-descendants")
    answers += mutations(random.Random(5), adjustment, DENSE, 4)
    for seed, (kind, answer) in enumerate(answers):
        verdict = check_equivalence(text(query), text(answer), DENSE.text(), prove=False, values=DENSE_VALUES)
        assert verdict.equivalent is not differ(query, answer, DENSE, DENSE_VALUES, seed), kind
        assert max(verdict.latent_values.values()) <= 3, kind
    assert check_equivalence(
        text(query), text(adjustment), DENSE.text(), prove=False, values=DENSE_VALUES
    ).latent_values == dict.fromkeys(["U_V1_V4", "U_V1_V5", "U_V2_V6", "U_V4_V5", "U_V4_V7", "U_V5_V7"], 3)


@pytest.mark.parametrize("values, expected", [(None, True), ({"Z": 3}, False), ({"Z": 2}, True)])
def test_a_sum_over_a_variable_counts_its_values(values, expected):
    verdict = check_equivalence(r"\sum_{Z} P(Y | X)", "2 * P(Y | X)", "X->Y,Z", values=values)
    assert verdict.equivalent is expected and verdict.domains["Z"] == (values or {"Z": 2})["Z"]
    assert expected or verdict.counterexample is not None


def test_the_values_a_variable_has_are_part_of_the_question(capsys):
    assert check_equivalence("P(X=0) + P(X=1)", "1", "X->Y").equivalent is True
    assert check_equivalence("P(X=0) + P(X=1)", "1", "X->Y", values={"X": 3}).equivalent is False
    # a value the expressions mention makes the domain large enough, unless it was given
    mentioned = check_equivalence("P(X=0) + P(X=1) + P(X=2)", "1", "X->Y")
    assert mentioned.equivalent is True and mentioned.domains == {"X": 3, "Y": 2}
    refused = check_equivalence("P(X=2)", "0", "X->Y", values={"X": 2})
    assert refused.invalid and "outside the 2 values declared for X" in refused.error
    assert main(["equiv", "P(X=0) + P(X=1)", "1", "--graph", "X->Y", "--values", "X=3", "--json"]) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["domains"] == {"X": 3, "Y": 2} and shown["arithmetic"] == "float" and shown["latent_values"] is None
    assert main(["equiv", "P(Y | do(X))", "P(Y | X)", "--graph", "X->Y,X<->Y", "--no-proof"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[3].startswith("values: X=2, Y=2; latent causes: any number of values (models with U_X_Y=")
    assert lines[4] == "arithmetic: floating point: |a - b| exceeds its rigorous rounding-error bound"


@pytest.mark.parametrize(
    "values, fragment",
    [
        ({"W": 3}, "values are given for W, which is not a node"),
        ({"U": 3}, "U is latent"),
        ({"X": 1}, "X must have between 2 and 100 values"),
        ({"X": 101}, "X must have between 2 and 100 values"),
    ],
)
def test_bad_numbers_of_values_are_bad_input(values, fragment):
    verdict = check_equivalence("P(Y | do(X))", "P(Y | X)", "U->X,U->Y,X->Y", ["U"], values=values)
    assert verdict.equivalent is None and verdict.invalid and fragment in verdict.error


def test_the_values_option(capsys):
    assert main(["equiv", "P(Y)", "P(Y)", "--graph", "Y", "--values", "Y=3,Y=4"]) == 2
    assert "error: --values: Y is given 3 and 4 values" in capsys.readouterr().err
    assert main(["equiv", "P(Y=1)", "P(Y=0)", "--graph", "Y", "--values", "Y=1"]) == 2
    assert capsys.readouterr().out.startswith("bad input: values: Y must have between 2 and 100 values")
    assert main(["equiv", "P(Y=1)", "P(Y=0)", "--graph", "Y", "--values", "Y=-3"]) == 2
    assert capsys.readouterr().out.startswith("bad input: values: Y must have between 2 and 100 values, not -3")


def test_constants_are_compared_exactly():
    near = check_equivalence("P(Y=1) + 0.0000000001", "P(Y=1)", "X->Y")
    assert near.equivalent is False and near.arithmetic == "float"  # far beyond the rounding-error bound
    tiny = check_equivalence("P(Y=1) + 0." + "0" * 40 + "1", "P(Y=1)", "X->Y")  # below any float error bound
    assert tiny.equivalent is False and tiny.arithmetic == "rational"
    assert tiny.counterexample.model["difference"] == "a - b = 1/1" + "0" * 41 + " exactly"
    assert check_equivalence("0.5 + P(Y=1) + 0.5", "P(Y=1) + 1", "X->Y").equivalent is True


def test_cancelling_large_numbers_is_no_counterexample():
    """The float error of (P(Y) + 1e8) * P(X) - 1e8 * P(X) is about 1e-8: exact arithmetic decides."""
    verdict = check_equivalence("(P(Y=1) + 100000000) * P(X=1) - 100000000 * P(X=1)", "P(Y=1) * P(X=1)", "X->Y")
    assert verdict.equivalent is True and verdict.arithmetic == "rational"
    assert (
        check_equivalence("(P(Y=1) + 100000000) * P(X=1) - 100000000 * P(X=1)", "P(Y=1) * P(X=0)", "X->Y").equivalent
        is False
    )


def test_latent_nodes_with_parents_are_projected_out():
    """X -> L -> Y and L -> Z with L latent: Y and Z share a cause besides X, as with X->Y, X->Z, Y<->Z."""
    graph = DoGraph.parse("X->L,L->Y,L->Z", latent=["L"])
    shape = projection(graph)
    assert shape.parents == {"X": (), "Y": ("X",), "Z": ("X",)} and shape.sources == {"L": ("Y", "Z")}
    admg = "X->Y,X->Z,Y<->Z"
    for a, b in [("P(Y | do(X))", "P(Y | X)"), ("P(Z | Y, X)", "P(Z | X)"), ("P(Z | do(Y), X)", "P(Z | X)")]:
        assert check_equivalence(a, b, graph).equivalent is check_equivalence(a, b, admg).equivalent is not None
    assert check_equivalence("P(Z | Y, X)", "P(Z | X)", graph).equivalent is False
    # a latent cause of one node only is its own noise: no source
    assert projection(DoGraph.parse("U->X,X->Y", latent=["U"])).sources == {}


def test_the_bound_per_latent():
    frontdoor = DoGraph.parse("X->M,M->Y,X<->Y")
    formula = parse(r"\sum_{M} P(M | X) * \sum_{X=x} P(Y | M, X=x) * P(X=x)")
    # district {X, Y}: rows of X (no observed parent) span 2 dimensions, of Y (parent M) 3
    assert latent_values(frontdoor, parse("P(Y | do(X))"), formula, False) == {"U_X_Y": 6}
    # a probability of one latent's children: degree 1, two values
    assert latent_values(frontdoor, parse("P(Y=0 | X) + P(Y=1 | X)"), parse("1"), False) == {"U_X_Y": 2}
    assert check_equivalence("P(Y | do(X))", formula, frontdoor).equivalent is True


def test_graphs_of_twelve_nodes_and_twenty_latent_edges_are_evaluated_exactly():
    graph = random_admg(random.Random(1), 12, 0.3, 20)
    assert len(graph.nodes) == 12 and len(graph.bidirected) == 20
    formula = text(identify(graph, frozenset({"V5"}), frozenset({"V8"})))  # sums over 5 variables
    proved = check_equivalence("P(V5 | do(V8))", formula, graph.text(), prove=False)
    assert proved.equivalent is True and max(proved.latent_values.values()) > 20
    conditional = check_equivalence("P(V5 | do(V8))", "P(V5 | V8)", graph.text(), prove=False)
    assert conditional.equivalent is False and conditional.latent_values  # the relevant part: 4 latent edges


def test_verdicts_match_an_independent_evaluator_on_random_admgs():
    """ID formulas, their mutations and plausible wrong answers on 4-6 nodes with up to 5 latent
    edges, observed variables with 2 or 3 values, labelled on explicit models with latents of 2-6 values."""
    pairs = corpus(11, 150)
    assert all(p.equivalent for p in pairs if p.kind == "identification formula")  # the generator is right
    assert 0.2 < sum(p.equivalent for p in pairs) / len(pairs) < 0.8
    verdicts = [check_equivalence(p.a, p.b, p.graph.text(), prove=False, values=p.domains).equivalent for p in pairs]
    wrong = [
        (p.kind, p.a, p.b, p.graph.text(), p.domains)
        for p, v in zip(pairs, verdicts, strict=True)
        if v is not p.equivalent
    ]
    assert wrong == []


def test_verdicts_match_the_independent_evaluator_on_dense_latent_graphs():
    pairs = corpus(12, 40, nodes=(7, 8), latent_edges=(10, 17), label_models=2, latent_values=(2, 3))
    verdicts = [check_equivalence(p.a, p.b, p.graph.text(), prove=False, values=p.domains).equivalent for p in pairs]
    assert [p.kind for p, v in zip(pairs, verdicts, strict=True) if v is not None and v is not p.equivalent] == []
    assert sum(v is None for v in verdicts) <= 1


def test_a_divisor_that_is_zero_in_every_model_is_undefined_not_a_counterexample():
    """In the fork X->Y<-V2, X does not depend on V2: the IV ratio divides by a difference that is
    exactly 0, which floats once turned into a huge 'counterexample' value."""
    ratio = "(P(Y=1 | V2=1) - P(Y=1 | V2=0)) / (P(X=1 | V2=1) - P(X=1 | V2=0))"
    verdict = check_equivalence("E[Y | do(X=1)] - E[Y | do(X=0)]", ratio, "X->Y,V2->Y")
    assert verdict.equivalent is None and "undefined" in verdict.error
    assert check_equivalence("E[Y | do(X=1)] - E[Y | do(X=0)]", ratio, "V2->X,X->Y").equivalent is True
