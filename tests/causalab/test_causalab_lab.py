"""The CausaLab lab: exact replay of the real sample episode and of every Golden chain of the
release, shift-style interventions, the hidden disturbance, refusals and submissions."""

from __future__ import annotations

import pytest

from causal_datasets.causalab.crystals import crystal_reading
from causal_datasets.causalab.lab import Lab, Reading, Refusal, SubmissionResult
from causal_datasets.causalab.mechanism import Mechanism
from causal_datasets.causalab.records import Disturbance
from causal_datasets.causalab.upstream import import_config, load_suite
from causal_datasets.causalab.upstream_run import read_upstream_run
from tests.causalab.data import RELEASE, SAMPLE


def test_sample_run_is_the_released_4nodes_0():
    run = read_upstream_run(SAMPLE)
    released = load_suite(RELEASE, "4nodes")[0]
    assert import_config(run.config, "4nodes").equations == released.equations


def test_replaying_the_sample_interventions_reproduces_its_readings_exactly(sample):
    run, episode = sample
    assert len(run.interventions) == 3 and len(run.readings) == 4
    lab = Lab(episode)
    assert lab.manipulator_values() == run.readings[0]
    for (prop, value), recorded in zip(run.interventions, run.readings[1:], strict=True):
        reading = lab.intervene(prop, value)
        assert isinstance(reading, Reading)
        assert reading.values == recorded


def test_sample_reactor_frequency_matches_the_scorecard(sample):
    run, episode = sample
    mechanism = Mechanism.from_episode(episode)
    values = mechanism.evaluate({b.name: b.value for b in episode.reactor.bases})
    assert {k: v for k, v in values.items() if k != "resonanceFreq"} == run.reactor
    assert values["resonanceFreq"] == run.reactor_frequency == episode.reactor_frequency == 156.0


def test_sample_prior_observations_follow_the_mechanism():
    # task text: Observation 1 {density 14, moisture 3} -> 42.0; Observation 2 {35, 31} -> 91.0
    episode = load_suite(RELEASE, "4nodes")[0]
    mechanism = Mechanism.from_episode(episode)
    for density, moisture, quantum, freq in ((14, 3, 95, 42.0), (35, 31, 129, 91.0)):
        bases = {"density": density, "moisture": moisture, "quantumSize": quantum - density}
        assert mechanism.evaluate(bases)["resonanceFreq"] == freq


@pytest.mark.parametrize("suite", ["4nodes_golden", "6nodes_golden"])
def test_every_released_golden_chain_replays_exactly(suite):
    replayed = 0
    for episode in load_suite(RELEASE, suite):
        first = episode.prior_records[2]  # the trace's first record (after the two observations)
        start = {p.name: p.value for p in first.properties} | {"resonanceFreq": first.frequency}
        chain = crystal_reading(Mechanism.from_episode(episode), "chain", start)
        lab = Lab(episode.model_copy(update={"manipulator": chain}))
        assert lab.manipulator_values() == start
        for record in episode.prior_records[4:]:
            reading = lab.intervene(record.intervention.target_prop, record.intervention.target_value)
            expected = {p.name: p.value for p in record.properties} | {"resonanceFreq": record.frequency}
            assert reading.values == expected, record.id
            replayed += 1
    assert replayed > 200


def test_intervention_is_shift_style_not_surgery():
    episode = load_suite(RELEASE, "4nodes")[0]  # density -> quantumSize (weight 1)
    lab = Lab(episode)
    assert lab.intervene("quantumSize", 50).values["quantumSize"] == 50
    moved = lab.intervene("density", lab.manipulator_values()["density"] + 10).values
    assert moved["quantumSize"] == 60  # its cause still acts on it


def test_refusals_are_reported_not_raised():
    episode = load_suite(RELEASE, "3nodes")[0]
    lab = Lab(episode)
    assert lab.intervene("colour", 3).reason == "unknown_property"
    assert lab.intervene("frequency", 3).reason == "not_controllable"
    assert lab.intervene(episode.controllable[0], "lots").reason == "invalid_value"
    assert lab.intervene(episode.controllable[0], float("nan")).reason == "invalid_value"
    for _ in range(episode.budget):
        assert isinstance(lab.intervene(episode.controllable[0], 5), Reading)
    assert lab.intervene(episode.controllable[0], 5).reason == "budget_exhausted"
    assert lab.uses == episode.budget


def test_every_submission_counts_and_the_manipulator_locks():
    episode = load_suite(RELEASE, "3nodes")[0]
    truth = episode.reactor_frequency
    lab = Lab(episode)
    first = lab.submit(truth + 5.0)  # the tolerance is strict: exactly 5 Hz off fails
    assert isinstance(first, SubmissionResult) and not first.success
    assert lab.intervene(episode.controllable[0], 1).reason == "manipulator_locked"
    assert not lab.submit(truth - 50).success
    third = lab.submit(truth + 4.99)
    assert third.success and third.submissions == 3 == episode.max_submissions
    assert lab.solved and lab.finished
    assert isinstance(lab.submit(truth), Refusal)


def test_hidden_disturbance_is_redrawn_seeded_and_propagates():
    base = load_suite(RELEASE, "4nodes")[0]  # density -> quantumSize, density/moisture -> freq
    disturbance = Disturbance(value_space=[-5.0, 0.0, 5.0], weight=1.0, affected_nodes=["density"], initial_value=0.0)
    episode = base.model_copy(update={"disturbance": disturbance})
    plain, noisy, again = Lab(base), Lab(episode), Lab(episode)
    assert noisy.manipulator_values() == plain.manipulator_values()  # H starts at its initial value 0
    shifts = []
    for value in (10, 20, 30, 40, 50, 60, 70, 80):
        a, b, c = (
            plain.intervene("moisture", value).values,
            noisy.intervene("moisture", value).values,
            again.intervene("moisture", value).values,
        )
        assert b == c  # seeded redraws
        h = b["density"] - a["density"]
        assert h in (-5.0, 0.0, 5.0)
        assert b["quantumSize"] - a["quantumSize"] == h and b["resonanceFreq"] - a["resonanceFreq"] == h
        shifts.append(h)
    assert len(set(shifts)) > 1
