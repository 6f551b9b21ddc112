"""Each knob raises its tracked measure of difficulty (docs/generators.md), on a small sample."""

from __future__ import annotations

import pytest

from causal_datasets import gym
from causal_datasets.gym.difficulty import TRACKED, knob_levels, rises


def test_every_knob_is_tracked():
    assert {(name, knob) for name in gym.names() for knob in gym.get(name).knobs} == set(TRACKED)


@pytest.mark.parametrize(("name", "knob"), sorted(TRACKED))
def test_the_knob_raises_its_measure(name, knob):
    measure = TRACKED[(name, knob)]
    values = [measures[measure] for _, measures in knob_levels(name, knob, size=60)]
    assert rises(values), values


def test_rises():
    assert rises([0.0, 0.0, 1.0]) and not rises([0.0, 0.5, 0.4]) and not rises([1.0, 1.0])
