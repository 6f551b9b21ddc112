"""Fuzzing the answer readers the gym and the rewards added: on any text they return a value, never raise."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from causal_datasets import gym
from causal_datasets.gym.causalab import prediction
from causal_datasets.rewards import cladder_answer

ANSWER_TEXT = st.text(alphabet=st.sampled_from(list('Prediction:Answer yes no 0123456789.-+e*/()<think></think>\n{}"')))
ANY_TEXT = st.one_of(ANSWER_TEXT, st.text())
ENTRIES = {name: gym.make(name, seed=0, size=1)[0] for name in gym.names()}


@settings(max_examples=300, deadline=2000)
@given(ANY_TEXT)
@example("Prediction: " + "9" * 5000)
@example("yes " * 5000)
@example("Answer: " + "yes/" * 3000)
def test_readers_return_a_value(text):
    value = prediction(text)
    assert value is None or isinstance(value, float)
    assert cladder_answer(text) in (None, "yes", "no")


@settings(max_examples=60, deadline=5000)
@given(ANY_TEXT)
def test_every_score_is_in_the_unit_interval(text):
    for entry in ENTRIES.values():
        assert 0.0 <= gym.score_answer(text, entry) <= 1.0
