"""The time budget of a verdict or identification (:mod:`causal_datasets.docalc.budget`): past it the answer is
undecided with its reason. No test times anything: the cases are far too large for their budget, or the budget
has ended before the first step."""

from __future__ import annotations

import pytest

from causal_datasets.cli import main
from causal_datasets.docalc.budget import OutOfTime, charge, remaining, within
from causal_datasets.docalc.identification import identify
from causal_datasets.docalc.verdict import check_equivalence

#: y0's SARS-CoV-2 graph (18 observed nodes, 6 latent common causes; SARS_COV2 named SARS: an underscore in a
#: summation index does not parse back): exact models of its ID estimand need
#: tens of millions of table entries, so deciding it takes far longer than the budgets below
SARS = (
    "SARS->ACE2,SARS->PRR,ACE2->Ang,Ang->AGTR1,AGTR1->ADAM17,ADAM17->EGF,ADAM17->TNF,ADAM17->Sil6r,"
    "Toci->Sil6r,Sil6r->IL6STAT3,EGF->EGFR,TNF->NFKB,EGFR->NFKB,PRR->NFKB,NFKB->IL6AMP,IL6STAT3->IL6AMP,"
    "IL6AMP->cytok,Gefi->EGFR,SARS<->Ang,ADAM17<->Sil6r,EGF<->EGFR,TNF<->EGFR,EGFR<->IL6STAT3,PRR<->NFKB"
)
QUERY = "P(cytok | do(Sil6r))"


def test_a_huge_pair_is_undecided_with_the_reason():
    estimand = identify(QUERY, SARS, check=False).estimand
    verdict = check_equivalence(QUERY, estimand, SARS, prove=False, time_limit=0.1)
    assert verdict.equivalent is None and not verdict.invalid
    assert verdict.error.startswith("undecided: time limit of 0.1 s reached before ")
    assert verdict.a == QUERY  # what was computed before the limit is kept


def test_the_command_exits_undecided(capsys):
    estimand = identify(QUERY, SARS, check=False).estimand.text
    assert main(["equiv", QUERY, estimand, "--graph", SARS, "--no-proof", "--time-limit", "0.1"]) == 3
    assert "undecided: time limit of 0.1 s reached" in capsys.readouterr().out


def test_checks_out_of_time_are_undecided():
    result = identify("P(Y | do(X))", "X->M,M->Y,X<->Y", time_limit=1e-9)  # ended before the first check
    assert result.estimand.text == "\\sum_{M} P(M | X) * (\\sum_{X} P(X) * P(Y | M, X))"
    assert {step.check for step in result.derivation} == {"undecided"}
    assert {step.check for step in identify("P(Y | do(X))", "X->M,M->Y,X<->Y").derivation} == {"rule"}


def test_budgets_nest_and_refuse_steps_that_would_overrun():
    assert remaining() is None
    charge("anything", 10**12)  # no budget: nothing is refused
    with within(1000.0):
        assert 0 < remaining() <= 1000.0
        with pytest.raises(OutOfTime, match="about 1,000,000,000,000 table entries"):
            charge("a step", 10**12)  # far more than 1000 s of work
        with within(None):  # no budget of its own: the enclosing one applies
            assert remaining() <= 1000.0
        with within(1e-9), pytest.raises(OutOfTime, match="time limit of 1e-09 s reached before a step"):
            charge("a step")
        with within(5000.0):  # the earlier end is kept
            assert remaining() <= 1000.0
    assert remaining() is None
    with pytest.raises(ValueError, match="positive"):
        with within(0):
            pass


def test_work_budgets_count_entries_in_every_open_budget():
    with within(None, entries=5_000):
        charge("a step", 3_500)
        with within(None, entries=10**9):  # the enclosing work budget still counts the inner steps
            with pytest.raises(OutOfTime, match="work limit of 5,000 table entries reached before b"):
                charge("b", 2_500)
        charge("a small step")  # counts STEP_ENTRIES
        with pytest.raises(OutOfTime, match="work limit of 5,000"):
            charge("c")
    charge("anything", 10**12)  # closed: nothing is counted or refused
    with pytest.raises(ValueError, match="work_limit must be a positive"):
        with within(None, entries=0):
            pass


def test_a_work_budget_gives_the_same_undecided_verdict_on_any_machine():
    """Counted, not timed: the same pair stops at the same step, however fast the machine or loaded."""
    estimand = identify(QUERY, SARS, check=False).estimand
    verdicts = [check_equivalence(QUERY, estimand, SARS, prove=False, work_limit=2_000_000) for _ in range(2)]
    assert verdicts[0].equivalent is None and not verdicts[0].invalid
    assert verdicts[0].error.startswith("undecided: work limit of 2,000,000 table entries reached before ")
    assert verdicts[0] == verdicts[1]


def test_the_rewards_verdicts_are_counted_not_timed(monkeypatch, caplog):
    """The rewards' verdicts run under a work budget (the same on any machine), the wall clock only far beyond it."""
    from causal_datasets import rewards
    from causal_datasets.docalc import budget

    assert budget.REWARD_WORK_LIMIT * budget.SECONDS_PER_ENTRY == pytest.approx(budget.DEFAULT_TIME_LIMIT)
    assert budget.REWARD_TIME_BACKSTOP >= 10 * budget.DEFAULT_TIME_LIMIT
    monkeypatch.setattr(rewards, "REWARD_WORK_LIMIT", 2_000_000)
    monkeypatch.setattr(rewards, "REWARD_TIME_BACKSTOP", 3600.0)  # no clock can decide it
    rewards._verdict.cache_clear()
    estimand = identify(QUERY, SARS, check=False).estimand.text
    for _ in range(2):
        rewards._verdict.cache_clear()
        caplog.clear()
        scores = rewards.estimand_equivalence_reward(
            [""], [QUERY], reference=[estimand], graph=[SARS], scoring="equivalence"
        )
        assert scores == [0.0]
        assert "undecided: 1" in caplog.text
    rewards._verdict.cache_clear()
