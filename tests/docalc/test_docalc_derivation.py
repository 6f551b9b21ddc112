"""Scoring a model-written derivation (DoVerifier App. A): each step against the rule it names."""

import pytest

from causal_datasets.cladder_pairs.cladder import family_graph, formal_expression, read_questions
from causal_datasets.cladder_pairs.rows import PROOF_LIMITS, question_rows
from causal_datasets.docalc.derivation import (
    WrittenStep,
    check_derivation,
    extract_derivation,
    rule_family,
    score_derivation,
)
from causal_datasets.docalc.verdict import check_equivalence
from tests.support.data import SHARED_DATA_DIR

CONFOUNDING = family_graph("confounding")  # V1 -> X, V1 -> Y, X -> Y
#: the back-door derivation of the confounding ATE, one rule per line
BACKDOOR = """Derivation:
E[Y | do(X=1)] - E[Y | do(X=0)]
= P(Y=1 | do(X=1)) - P(Y=1 | do(X=0))   by expectation of a binary variable
= \\sum_{V1} P(Y=1 | do(X=1), V1) * P(V1 | do(X=1)) - \\sum_{V1} P(Y=1 | do(X=0), V1) * P(V1 | do(X=0)) \
  by law of total probability
= \\sum_{V1} P(Y=1 | X=1, V1) * P(V1 | do(X=1)) - \\sum_{V1} P(Y=1 | X=0, V1) * P(V1 | do(X=0))   by rule 2
= \\sum_{V1} P(Y=1 | X=1, V1) * P(V1) - \\sum_{V1} P(Y=1 | X=0, V1) * P(V1)   by rule 3

Estimand: \\sum_{V1} P(V1) * [P(Y=1 | X=1, V1) - P(Y=1 | X=0, V1)]"""


def statuses(score):
    return [step.status for step in score.steps]


def test_a_derivation_is_read_from_a_reply():
    steps = extract_derivation("<think>Derivation: P(Y)</think>Some words.\n" + BACKDOOR.replace("\n= ", "\n2. = ", 1))
    assert len(steps) == 5 and steps[0] == WrittenStep("E[Y | do(X=1)] - E[Y | do(X=0)]", None)
    assert steps[1].rule == "expectation of a binary variable" and steps[4].rule == "rule 3"
    assert extract_derivation("Estimand: P(Y)") is None and extract_derivation("") is None
    assert extract_derivation("**Derivation:** P(Y | do(X))\nStep 1: = P(Y | X) using rule 2.\nEstimand: P(Y|X)") == [
        WrittenStep("P(Y | do(X))", None),
        WrittenStep("P(Y | X)", "rule 2"),
    ]


def test_a_valid_derivation_scores_one():
    score = score_derivation(BACKDOOR, CONFOUNDING)
    assert statuses(score) == ["valid"] * 4 and score.valid_share == 1.0 and score.first_invalid is None
    assert "(Y ⊥ X | V1) in G[underline(X)]" in score.steps[2].detail  # the condition the rule used
    assert score.to_dict()["valid_steps"] == 4


def test_syntactic_and_alpha_renaming_invariance():
    """Desiderata 1 and 2: the order inside conditioning sets and the names of summation indices do not count."""
    reordered = BACKDOOR.replace("do(X=1), V1", "V1, do(X=1)").replace("X=1, V1", "V1, X=1").replace("  by", " by")
    renamed = BACKDOOR.replace("\\sum_{V1} P(Y=1 | X=1, V1) * P(V1)", "\\sum_{V1=k} P(Y=1 | X=1, V1=k) * P(V1=k)")
    assert reordered != BACKDOOR and renamed != BACKDOOR
    for text in (reordered, renamed):
        score = score_derivation(text, CONFOUNDING)
        assert statuses(score) == statuses(score_derivation(BACKDOOR, CONFOUNDING)) and score.valid_share == 1.0


def test_rule_sensitivity_a_violated_condition_costs():
    """Desideratum 3: rule 2 without adjusting for the confounder has the rule's shape but not its condition."""
    shortcut = "Derivation:\nP(Y=1 | do(X=1))\n= P(Y=1 | X=1) by rule 2\n= P(Y=1 | X=1) by consistency"
    score = score_derivation(shortcut, CONFOUNDING)
    assert statuses(score) == ["condition_fails", "valid"] and score.first_invalid == 1 and score.valid_share == 0.5
    assert "(Y ⊥ X | ∅) in G[underline(X)]" in score.steps[0].detail and "not so in this graph" in score.steps[0].detail
    chain = score_derivation(shortcut, family_graph("chain"))  # the same step is sound without a confounder
    assert statuses(chain) == ["valid", "valid"]


def test_step_order_and_valid_alternatives_do_not_change_the_score():
    """Desiderata 4 and 5: two independent steps in either order, or another valid route, score the same."""
    both = (
        "Derivation:\nP(Y=1 | do(X=1)) - P(Y=1 | do(X=0))\n"
        "= P(Y=1 | X=1) - P(Y=1 | do(X=0)) by rule 2\n= P(Y=1 | X=1) - P(Y=1 | X=0) by rule 2"
    )
    swapped = (
        "Derivation:\nP(Y=1 | do(X=1)) - P(Y=1 | do(X=0))\n"
        "= P(Y=1 | do(X=1)) - P(Y=1 | X=0) by rule 2\n= P(Y=1 | X=1) - P(Y=1 | X=0) by rule 2"
    )
    at_once = "Derivation:\nP(Y=1 | do(X=1)) - P(Y=1 | do(X=0))\n= P(Y=1 | X=1) - P(Y=1 | X=0) by rule 2"
    chain = family_graph("chain")
    scores = [score_derivation(text, chain) for text in (both, swapped, at_once)]
    assert [s.valid_share for s in scores] == [1.0, 1.0, 1.0]


def test_each_kind_of_invalid_step():
    text = """Derivation:
P(Y=1 | do(X=1))
= P(Y=1 | X=1) by rule 3
= P(Y=0 | X=1) by algebra
= P(Y=0 | X=1 by product rule
= P(Y=0 | X=1, V2=1) by rule 1
= P(Y=0 | V2=1) by rule 1
= P(Y=0 | V2=1, X=0) by intuition"""
    score = score_derivation(text, family_graph("chain"))  # X -> V2 -> Y
    assert statuses(score) == ["wrong_rule", "not_equal", "unparsable", "condition_fails", "valid", "unknown_rule"]
    assert score.steps[1].detail.startswith("the value changes") and score.first_invalid == 1
    assert score.valid_share == pytest.approx(1 / 6) and "(Y ⊥ X | V2)" in score.steps[4].detail
    assert score_derivation("Derivation:\nP(Y=1 | do(X=1)\n= P(Y)", CONFOUNDING).error == "unparsable_start"
    assert score_derivation("no derivation here", CONFOUNDING).error == "no_derivation"
    assert score_derivation("Derivation:\nP(Y)", CONFOUNDING).valid_share is None


@pytest.mark.parametrize(
    "name, rule",
    [
        ("Rule 2 of do-calculus", "rule 2: action to observation"),
        ("do-calculus rule three", "rule 3: delete action"),
        ("the law of total probability", "law of total probability"),
        ("back-door adjustment", "rule 2: action to observation"),
        ("sum over all values", "sum over all values"),
    ],
)
def test_rule_names_a_model_writes(name, rule):
    assert rule in rule_family(name)
    assert rule_family("magic") is None and rule_family(None) is None


def test_the_verifiers_own_proofs_are_valid_derivations():
    """The rule checker agrees with the proof search: every proof found for a CLadder pair, written
    as a derivation with the rule names of its steps, is valid step by step."""
    questions = question_rows(read_questions(SHARED_DATA_DIR / "cladder"))
    wanted = {
        ("confounding", "ate"),
        ("frontdoor", "ate"),
        ("diamondcut", "ett"),
        ("chain", "ett"),
        ("mediation", "ate"),
    }
    checked = 0
    for q in questions:
        if (q.graph_id, q.query_type) not in wanted:
            continue
        wanted.discard((q.graph_id, q.query_type))
        graph = family_graph(q.graph_id)
        proof = check_equivalence(formal_expression(q), q.estimand, graph, limits=PROOF_LIMITS).proof
        steps = [WrittenStep(proof.start, None)] + [WrittenStep(s.expression, s.rule) for s in proof.steps]
        score = check_derivation(steps, graph)
        assert score.valid_share == 1.0, (
            q.id,
            [(s.number, s.rule, s.status) for s in score.steps if s.status != "valid"],
        )
        checked += len(proof.steps)
    assert not wanted and checked >= 40
