"""Exact decisions (issue #40): no float tolerance ever makes two different numbers equal.

Pairs built to hide a difference below any float error bound — a difference of zero scaled by
10^k against a constant, a constant 10^-k added, a factor 1 + 10^-k — must be "not equivalent"
for every k, on back-door, front-door, instrumental-variable and latent-confounded graphs, while
the identities they are built from stay "equivalent". The exact values themselves are checked
against an independent enumeration of the joint distribution in rationals.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import evaluate
import numpy as np
import pytest

from causal_datasets import rewards
from causal_datasets.docalc import check_equivalence, parse
from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.exact import ExactTables, counts, exact_factor
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.identification import identify
from causal_datasets.docalc.semantics import IndexDomains, TableModel, on_grid
from causal_datasets.docalc.semantics import evaluate as float_evaluate
from causal_datasets.paths import metric_path
from tests.test_rewards import trl_call

BACKDOOR = "Z->X,Z->Y,X->Y"
FRONTDOOR = "X->M,M->Y,X<->Y"

#: (graph, A, B) with A ≡ B under the graph
IDENTITIES = {
    "back-door": (BACKDOOR, "P(Y | do(X))", r"\sum_{Z} P(Y | X, Z) * P(Z)"),
    "front-door": (FRONTDOOR, "P(Y | do(X))", r"\sum_{M} P(M | X) * \sum_{X=x} P(Y | M, X=x) * P(X=x)"),
    "instrument": ("Z->X,X->Y,X<->Y", "P(Y | do(Z))", "P(Y | Z)"),
    "latent-confounded": ("Z->X,X->Y,Z<->Y", "P(Y | do(X))", r"\sum_{Z} P(Y | X, Z) * P(Z)"),
}
NAPKIN = "W->Z,Z->X,X->Y,W<->X,W<->Y"


def ten_to(k: int) -> str:
    """10^k as exact decimal text, negative k included."""
    return "1" + "0" * k if k >= 0 else "0." + "0" * (-k - 1) + "1"


def hidden_differences(a: str, b: str) -> list[tuple[str, str]]:
    """Pairs that differ, each by an amount no float comparison of these sizes can see."""
    pairs = []
    for k in range(31):
        pairs += [(f"({a} - {b}) * {ten_to(k)}", c) for c in ("1", "1000", "0.5", "-3", ten_to(-k), ten_to(k + 3))]
        pairs += [(f"{a} + {ten_to(-k)}", b), (f"{a} * (1 + {ten_to(-k)})", b)]
    return pairs


@pytest.mark.parametrize("family", sorted(IDENTITIES))
def test_no_tolerance_makes_different_numbers_equal(family):
    graph, a, b = IDENTITIES[family]
    g = DoGraph.parse(graph)
    assert check_equivalence(a, b, g, prove=False).equivalent is True
    for k in (0, 15, 30):  # the identity scaled stays an identity: zero is exactly zero
        assert check_equivalence(f"({a} - {b}) * {ten_to(k)}", "0", g, prove=False).equivalent is True
    wrong = [
        (left, right, verdict)
        for left, right in hidden_differences(a, b)
        if (verdict := check_equivalence(left, right, g, prove=False)).equivalent is not False
    ]
    assert wrong == []


def test_the_issues_pairs_and_the_arithmetic_that_decides():
    scaled = check_equivalence(f"(P(Y | do(X)) - \\sum_{{Z}} P(Y | X, Z) * P(Z)) * {ten_to(20)}", "1000", BACKDOOR)
    assert scaled.equivalent is False and scaled.arithmetic == "rational"
    assert scaled.counterexample.model["difference"] == "a - b = -1000 exactly"
    front = IDENTITIES["front-door"][2]
    assert check_equivalence(f"(P(Y | do(X)) - {front}) * {ten_to(15)}", "1", FRONTDOOR).equivalent is False
    assert check_equivalence(f"P(Y | do(X)) + {ten_to(-15)}", front, FRONTDOOR).equivalent is False
    assert check_equivalence("P(Y | do(X)) * 1.000000000000001", front, FRONTDOOR).equivalent is False
    plainly = check_equivalence("P(Y | X)", IDENTITIES["back-door"][2], BACKDOOR)
    assert plainly.equivalent is False and plainly.arithmetic == "float"  # far beyond the error bound
    equal = check_equivalence("P(Y | do(X))", front, FRONTDOOR, prove=False)
    assert equal.equivalent is True and equal.arithmetic == "rational"


def test_an_identified_estimand_and_its_hidden_mutations_under_a_latent_graph():
    estimand = identify("P(Y | do(X))", NAPKIN).estimand.text
    g = DoGraph.parse(NAPKIN)
    assert check_equivalence("P(Y | do(X))", estimand, g, prove=False).equivalent is True
    for left, right in hidden_differences("P(Y | do(X))", estimand)[::7]:
        assert check_equivalence(left, right, g, prove=False).equivalent is False, (left, right)


#: the issue's padded wrong answers: plain P(Y | X) plus or instead of 10^20 times an exact zero
PADDING = f" + {ten_to(20)} * (P(Y, Z | X) - P(Y | X, Z) * P(Z | X))"
PADDED = ["P(Y | X)" + PADDING, "0.5" + PADDING, "P(Y | X)"]


def test_padded_answers_earn_nothing_from_any_reward_metric_or_the_api():
    reference = IDENTITIES["back-door"][2]
    row = {"reference": reference, "graph": BACKDOOR, "question": "P(Y | do(X))?"}
    completions = [f"Estimand: {answer}" for answer in PADDED] + [f"Estimand: {reference}{PADDING}"]
    for scoring in ("identification", "equivalence"):
        reward = functools.partial(rewards.estimand_equivalence_reward, scoring=scoring)
        # the right estimand padded the same way is equal (the API below says so) but earns nothing either:
        # a reward refuses any constant beyond reward_guards.LARGEST_CONSTANT, a gaming shape of its own
        assert trl_call(reward, [row] * 4, completions) == [0.0, 0.0, 0.0, 0.0]
        assert trl_call(reward, [row], [f"Estimand: {reference}"]) == [1.0]
    metric = evaluate.load(str(metric_path("do_calculus_equivalence")))
    result = metric.compute(predictions=PADDED, references=[reference] * 3, graphs=[BACKDOOR] * 3)
    assert result["verdicts"] == [False, False, False] and result["accuracy"] == 0.0
    assert [check_equivalence(p, reference, BACKDOOR).equivalent for p in PADDED] == [False, False, False]
    assert check_equivalence(reference + PADDING, reference, BACKDOOR).equivalent is True  # exact, not a tolerance


# ---- the exact values, against an independent computation --------------------------------------


def joint_in_rationals(model: TableModel, member: int) -> dict[tuple[int, ...], Fraction]:
    """The joint distribution of every node (graph order) as exact rationals, by enumeration."""
    graph = model.graph
    tables = {n: model.table(n, member) for n in graph.order}
    joint = {}
    for values in itertools.product(*(range(graph.domain(n)) for n in graph.order)):
        at = dict(zip(graph.order, values, strict=True))
        joint[values] = math.prod(
            (Fraction(float(tables[n][tuple(at[p] for p in (*graph.parents(n), n))])) for n in graph.order),
            start=Fraction(1),
        )
    return joint


def test_exact_terms_match_an_enumeration_of_the_joint():
    graph = DoGraph.parse("Z->X,Z->Y,X->Y,W->Y", domains={"Z": 3})
    model = TableModel.random(graph, np.random.default_rng(7), members=2)
    exact = ExactTables(model)
    order = graph.order
    for member in range(2):
        joint = joint_in_rationals(model, member)
        assert sum(joint.values()) == 1  # grid rows sum to one exactly

        def probability(joint=joint, **fixed) -> Fraction:
            return sum(
                (p for values, p in joint.items() if all(values[order.index(v)] == x for v, x in fixed.items())),
                start=Fraction(0),
            )

        for y, x, z in itertools.product(range(2), range(2), range(3)):
            expr = parse(f"P(Y={y} | X={x}, Z={z})")
            got = exact_factor(expr, exact, graph, {}).values()[member]
            assert got == probability(Y=y, X=x, Z=z) / probability(X=x, Z=z)
        # an intervention: the truncated product, summed by hand
        want = sum(
            (probability(Z=z) * probability(Y=1, X=0, Z=z) / probability(X=0, Z=z) for z in range(3)),
            start=Fraction(0),
        )
        assert exact_factor(parse("P(Y=1 | do(X=0))"), exact, graph, {}).values()[member] == want


def test_exact_values_lie_within_the_float_error_bounds():
    graph = DoGraph.parse(FRONTDOOR)
    model = TableModel.random(DoGraph.parse("U->X,U->Y,X->M,M->Y", latent=["U"]), np.random.default_rng(3), 3)
    expr = parse(IDENTITIES["front-door"][2])
    domains = IndexDomains.of(graph, expr)
    exact = exact_factor(expr, ExactTables(model), model.graph, domains.sizes)
    assert exact.names == ("X", "Y")
    for env in domains.assignments(["X", "Y"]):
        bounded = float_evaluate(expr, model, model.graph, env, bounded=True)
        values = exact.values()[:, env["X"], env["Y"]]
        for value, error, rational in zip(bounded.value, bounded.error, values, strict=True):
            assert abs(Fraction(float(value)) - rational) <= Fraction(float(error))


def test_grid_rows_are_positive_and_sum_to_one_exactly():
    rows = on_grid(np.random.default_rng(0).dirichlet(np.ones(5), 100) * 0.9 + 0.02)
    whole = counts(rows, 20 + (5).bit_length())
    assert all(sum(row) == 1 << (20 + (5).bit_length()) for row in whole)
    assert rows.min() > 0
    with pytest.raises(ValueError, match="not on the grid"):
        counts(np.array([1 / 3, 2 / 3]), 22)


def test_a_term_read_at_once_equals_the_term_read_value_by_value():
    """ExactTables.term reads a term for every value of its indices (indexed actions included) from
    one joint count table per action value; each value must equal the term read for that value alone."""
    graph = DoGraph.parse("Z->X,Z->Y,X->Y,W->Y", domains={"Z": 3, "Y": 3})
    exact = ExactTables(TableModel.random(graph, np.random.default_rng(5), members=3))
    labels = {"x": "X", "y": "Y", "z": "Z", "w": "W"}
    cases = {
        "P(Y=y | do(X=x), Z=z)": ("x", "y", "z"),
        "P(Y=y, W=w | do(X=x))": ("w", "x", "y"),
        "P(Y=2 | Z=z, X=1)": ("z",),
        "P(Y=y, Z=z)": ("y", "z"),
    }
    for text, names in cases.items():
        term = parse(text)
        whole = exact.term(term, graph)
        assert whole is not None and whole.names == names, text
        for position in itertools.product(*(range(graph.domain(labels[n])) for n in whole.names)):
            env = dict(zip(whole.names, position, strict=True))
            event, given = (
                tuple(Atom(a.var, env.get(str(a.value), a.value)) for a in atoms) for atoms in (term.event, term.given)
            )
            do = tuple((v, env.get(str(x), x)) for v, x in term.do)
            numerator, denominator = exact.prob(event, do, given)
            want = [Fraction(n, d) for n, d in zip(numerator, denominator, strict=True)]
            assert list(whole.values()[(slice(None), *position)]) == want, (text, env)
    assert exact.term(parse("P(Y=y | X=y)"), graph) is None  # an index twice: read value by value
