"""The verifier's diagnosis of a wrong estimand (DoVerifier §4.3, App. H): what it finds, and that it never
leaks the answer."""

import re

import pytest

from causal_datasets.cladder_pairs.cladder import family_graph, formal_expression, read_questions
from causal_datasets.cladder_pairs.feedback import diagnose, feedback_message
from causal_datasets.cladder_pairs.rows import question_rows
from causal_datasets.docalc.baselines import normalize_string
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.verdict import check_equivalence
from tests.support.data import SHARED_DATA_DIR

FORMAT = "End your reply with one line `Estimand: <expression>`."


@pytest.fixture(scope="module")
def questions():
    return question_rows(read_questions(SHARED_DATA_DIR / "cladder"))


def kinds(expression, family, query_type="ate"):
    return [f.kind for f in diagnose(expression, family_graph(family), query_type=query_type)]


@pytest.mark.parametrize(
    ("family", "query_type", "answer", "expected"),
    [
        ("confounding", "ate", "P(Y=1|X=1) - P(Y=1|X=0)", ["missing_confounder"]),
        ("confounding", "ate", "E[Y | do(X = 1)] - E[Y | do(X = 0)]", ["missing_confounder"]),
        ("chain", "ate", "E[Y | do(X = 1)] - E[Y | do(X = 0)]", ["do_should_be_conditioning"]),
        ("chain", "ate", "\\sum_{V2=v} P(V2=v)*[P(Y=1|V2=v,X=1) - P(Y=1|V2=v,X=0)]", ["mediator_conditioned"]),
        ("IV", "ate", "P(Y=1|X=1) - P(Y=1|X=0)", ["latent_confounding"]),
        ("IV", "ate", "\\sum_{V1} P(V1)*P(Y|X,V1)", ["unobserved_variable"]),
        ("collision", "ate", "P(Y=1|X=1,V3=1) - P(Y=1|X=0,V3=1)", ["collider_conditioned"]),
        ("collision", "ate", "P(Y=1|do(V3=1))", ["do_without_effect"]),
        ("chain", "correlation", "P(Y=1|do(X=1))", ["intervention_in_association"]),
        ("mediation", "nde", "E[Y_{X=1, V2=0} - Y_{X=0, V2=0}]", ["counterfactual_left"]),
        ("chain", "ate", None, ["no_expression"]),
        ("chain", "ate", "P(Y=1|X=", ["unparsable"]),
        ("chain", "ate", "P(Q=1) - P(W)", ["unknown_variable"]),
        # App. H's checks of the conditioning set of a do-term: a mediator, a confounder of the treatment
        ("chain", "ate", "P(Y=1|do(X=1), V2=1)", ["mediator_conditioned", "do_should_be_conditioning"]),
        ("confounding", "ate", "P(Y=1|do(X=1), V1=1)", ["confounder_conditioned", "do_should_be_conditioning"]),
    ],
)
def test_what_the_diagnosis_finds(family, query_type, answer, expected):
    assert kinds(answer, family, query_type) == expected


def test_right_formulas_draw_no_structural_finding():
    """The front-door and mediation formulas condition on mediators and sum over the treatment on
    purpose: nothing in them is flagged, so the graph-only loop stops at them."""
    frontdoor = "\\sum_{V3=v} [P(V3=v|X=1) - P(V3=v|X=0)] * [\\sum_{X=h} P(Y=1|X=h,V3=v)*P(X=h)]"
    assert kinds(frontdoor, "frontdoor") == []
    nde = "\\sum_{V2=v} P(V2=v|X=0)*[P(Y=1|X=1,V2=v) - P(Y=1|X=0,V2=v)]"
    assert kinds(nde, "mediation", "nde") == []
    assert kinds("\\sum_{V1=v} P(V1=v)*[P(Y=1|V1=v,X=1) - P(Y=1|V1=v,X=0)]", "confounding") == []


def test_findings_state_facts_about_the_graph():
    (finding,) = diagnose("P(Y=1|X=1) - P(Y=1|X=0)", family_graph("confounding"), query_type="ate")
    assert "X <- V1 -> Y" in finding.message and finding.variables == ("V1",)
    (mediator,) = diagnose("P(Y=1|X=1,V2=1)", family_graph("chain"), query_type="ate")
    assert "X -> V2 -> Y" in mediator.message
    message = feedback_message([finding], FORMAT)
    assert message.splitlines()[0] == "The verifier did not accept your expression."
    assert message.splitlines()[2].startswith("1. P(Y | X, ...) is not the effect of X")
    assert message.endswith(FORMAT)
    assert "no single faulty term" in feedback_message([], FORMAT)


def test_a_suggested_exchange_is_an_equality(questions):
    """Where the diagnosis says do(X) can become conditioning on X, making that change keeps the
    value under the graph (rule 2 holds), for every family and query type that has a do()."""
    checked = 0
    for q in {(q.graph_id, q.query_type): q for q in questions if q.rung == 2}.values():
        graph = family_graph(q.graph_id)
        query = formal_expression(q)
        for finding in diagnose(query.text, graph, query_type=q.query_type):
            if finding.kind == "do_should_be_conditioning":
                (var,) = finding.variables
                exchanged = re.sub(rf"do\({var}=(\d)\)", rf"{var}=\1", query.text)
                assert exchanged != query.text
                assert check_equivalence(query.text, exchanged, graph).equivalent is True, (q.id, exchanged)
                checked += 1
    assert checked >= 3


def test_feedback_never_contains_the_reference(questions):
    """For every question and the usual answers (the correlation, the queried quantity copied, the
    estimand of another family, nonsense, nothing), right or wrong, the feedback text of either loop
    holds neither the reference as written nor its canonical form."""
    others, distinct = {}, {}
    for q in questions:
        others.setdefault(q.graph_id, q.estimand)
        distinct.setdefault((q.graph_id, q.query_type, q.estimand, q.formal_form), q)  # the feedback depends on no more
    sent = 0
    for q in distinct.values():
        graph = family_graph(q.graph_id)
        reference, canonical = normalize_string(q.estimand), normalize_string(parse(q.estimand).text)
        wrong = [
            "P(Y=1|X=1) - P(Y=1|X=0)",
            formal_expression(q).text,
            "P(Y=1|X=",
            None,
            *(estimand for family, estimand in others.items() if family != q.graph_id),
        ]
        for answer in wrong:
            findings = diagnose(answer, graph, query_type=q.query_type)
            for graph_only in (True, False):
                text = normalize_string(feedback_message(findings, FORMAT, graph_only=graph_only))
                assert reference not in text and canonical not in text, (q.id, answer)
            sent += 1
    assert len(distinct) >= 40 and sent > 10 * len(distinct)
