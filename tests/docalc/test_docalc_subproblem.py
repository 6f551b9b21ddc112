"""The rule for ID's substitution step (:mod:`causal_datasets.docalc.subproblem`): it accepts what ID writes
and refuses mutated steps — a wrong formula, a wrong conditioning set, a wrong district, a wrong order,
a wrong set of treatments, a distribution that is not ``Q[N]`` — and a mutated algorithm is caught."""

from __future__ import annotations

import pytest

from causal_datasets.docalc import identification
from causal_datasets.docalc.admg import ADMG, TopologicalOrder
from causal_datasets.docalc.id_distribution import Component, Distribution, Margin
from causal_datasets.docalc.identification import SUBPROBLEM, UnsoundIdentification, identify
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.subproblem import NotDerivable, subproblem_formula
from causal_datasets.docalc.verdict import as_graph

FRONTDOOR = "X->M,M->Y,X<->Y"
NAPKIN = "X->Y,Z1->X,Z2->Z1,X<->Z2,Y<->Z2"
#: a line 7 after a line 2, so the district's factors keep the treatments set aside before it
LATER = "V1->V4,V1->V6,V2->V4,V3->V4,V3->V6,V4->V5,V5->V6,V1<->V3,V2<->V5,V3<->V4"


def recorded(monkeypatch, query: str, graph: str) -> list[tuple]:
    """The inputs ``identify`` gives the rule on ``query``, and the formula each step writes."""
    calls: list[tuple] = []
    real = identification.subproblem_formula

    def record(term, claims, order, g):
        found = real(term, claims, order, g)
        calls.append((term, claims, order, found.result))
        return found

    monkeypatch.setattr(identification, "subproblem_formula", record)
    result = identify(query, graph)
    assert [step.check for step in result.derivation if step.rule == SUBPROBLEM] == ["rule"] * len(calls)
    return calls


def test_what_id_writes_is_accepted(monkeypatch):
    """The front door's inner sum, the napkin's ratio and a line 7 after line 2 are derived as ID wrote them."""
    (term, claims, order, formula) = recorded(monkeypatch, "P(Y | do(X))", FRONTDOOR)[0]
    assert (term.text, formula.text) == ("P(Y | do(M))", "\\sum_{X} P(X) * P(Y | M, X)")
    assert claims == (Component(frozenset("XY")), Margin(frozenset("Y")))
    found = subproblem_formula(term, claims, order, as_graph(FRONTDOOR))
    assert found.result == formula and found.condition == "{X, Y} is a district of G[{M, X, Y}], " + (
        "whose observed ancestors lie in it (ID line 7)"
    )
    (term, claims, order, formula) = recorded(monkeypatch, "P(Y | do(X))", NAPKIN)[0]
    assert term.text == "P(Y | do(Z1), X)" and formula.text.startswith("(\\sum_{Z2} P(X | Z1, Z2) * P(Y | X, Z1, Z2)")
    (term, claims, order, formula) = recorded(monkeypatch, "P(V4, V5 | do(V2, V6))", LATER)[0]
    assert claims[0] == Margin(frozenset({"V1", "V2", "V3", "V4", "V5"})) and claims[1] == Component(
        frozenset({"V2", "V5"})
    )
    assert subproblem_formula(term, claims, order, as_graph(LATER)).result == formula


def test_a_wrong_formula_is_refused(monkeypatch):
    """The substitution replaced by another expression: the replay gives the right one, not it."""
    (term, claims, order, formula) = recorded(monkeypatch, "P(Y | do(X))", FRONTDOOR)[0]
    found = subproblem_formula(term, claims, order, as_graph(FRONTDOOR)).result
    for wrong in ("\\sum_{X} P(X) * P(Y | M)", "P(Y | M)", "\\sum_{X} P(X | M) * P(Y | M, X)", "P(Y | do(M))"):
        assert found != parse(wrong), wrong


def test_a_wrong_conditioning_set_is_refused(monkeypatch):
    """The napkin's P(Y | do(Z1), X) replaced by the formula of another conditional (no condition, or the
    condition Z2 that is not a variable of the distribution)."""
    (term, claims, order, formula) = recorded(monkeypatch, "P(Y | do(X))", NAPKIN)[0]
    graph = as_graph(NAPKIN)
    unconditioned = subproblem_formula(parse("P(Y | do(Z1))"), claims, order, graph).result
    assert unconditioned != formula
    assert subproblem_formula(term, claims, order, graph).result != unconditioned
    with pytest.raises(NotDerivable, match="not a term over"):
        subproblem_formula(parse("P(Y | do(Z1), X, Z2)"), claims, order, graph)
    # the line-7 factors' predecessors: an order that is not topological
    with pytest.raises(NotDerivable, match="not topological: Z1 is a parent of X"):
        subproblem_formula(term, claims, ("Z2", "X", "Z1", "Y"), graph)


@pytest.mark.parametrize(
    "graph, query, part",
    [
        (FRONTDOOR, "P(Y | do(X))", "XMY"),  # M is no district member: no bidirected edge
        (FRONTDOOR, "P(Y | do(X))", "Y"),  # Y alone: X<->Y joins them
        (NAPKIN, "P(Y | do(X))", "XY"),  # Z2 left out
        (LATER, "P(V4, V5 | do(V2, V6))", ["V5"]),  # V2<->V5 left out
    ],
)
def test_a_wrong_district_is_refused(monkeypatch, graph, query, part):
    (term, claims, order, _) = recorded(monkeypatch, query, graph)[0]
    wrong = tuple(Component(frozenset(part)) if isinstance(c, Component) else c for c in claims)
    with pytest.raises(NotDerivable, match="is not a district of"):
        subproblem_formula(term, wrong, order, as_graph(graph))


def test_a_distribution_that_is_not_q_of_its_variables_is_refused(monkeypatch):
    """A marginal that drops an ancestor (M of Y) before line 7: P(X, Y) is not Q[{X, Y}]."""
    (term, claims, order, _) = recorded(monkeypatch, "P(Y | do(X))", FRONTDOOR)[0]
    wrong = (Margin(frozenset("XY")),) + claims
    with pytest.raises(NotDerivable, match=r"\{M\} are ancestors of \{X, Y\}"):
        subproblem_formula(term, wrong, order, as_graph(FRONTDOOR))


def test_wrong_treatments_are_refused(monkeypatch):
    (term, claims, order, _) = recorded(monkeypatch, "P(Y | do(X))", FRONTDOOR)[0]
    graph = as_graph(FRONTDOOR)
    for wrong in ("P(Y)", "P(Y | do(M, X))", "P(Y=1 | do(M))"):
        with pytest.raises(NotDerivable):
            subproblem_formula(parse(wrong), claims, order, graph)


class _Forgetful(TopologicalOrder):
    """An order whose ``before`` forgets the nearest predecessor: line 7's factors lose a condition."""

    def before(self, node: str, within: frozenset[str]) -> frozenset[str]:
        earlier = super().before(node, within)
        return earlier - {max(earlier, key=self.position.__getitem__)} if earlier else earlier


class _NumericCheck(Exception):
    """Raised where a step reaches check_equivalence: the rule did not accept it."""


@pytest.mark.parametrize("graph", [FRONTDOOR, NAPKIN])
def test_a_mutated_algorithm_is_caught_by_the_rule(monkeypatch, graph):
    """ID's line 7 building its factors with a wrong conditioning set: the rule refuses the step (it then goes
    to check_equivalence, which here raises), and with the real check_equivalence identify raises."""
    right = identify("P(Y | do(X))", graph)
    assert all(step.check == "rule" for step in right.derivation)
    real = Distribution.component

    def mutated(self, part, order, line, context):
        if isinstance(order, ADMG):  # the algorithm's call, not the rule's replay
            order = _Forgetful(order.order)
        return real(self, part, order, line, context)

    monkeypatch.setattr(Distribution, "component", mutated)
    assert identify("P(Y | do(X))", graph, check=False).estimand != right.estimand
    with pytest.raises(UnsoundIdentification, match="formula of the subproblem's distribution"):
        identify("P(Y | do(X))", graph)

    def numeric(*args, **kwargs):
        raise _NumericCheck

    monkeypatch.setattr(identification, "check_equivalence", numeric)
    with pytest.raises(_NumericCheck):
        identify("P(Y | do(X))", graph)
