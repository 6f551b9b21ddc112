"""The gym generators: reproducible entries, their own answers score 1.0, empty ones 0.0, knobs checked."""

from __future__ import annotations

import json

import pytest

from causal_datasets import gym
from causal_datasets.gym.base import GymError
from causal_datasets.gym.streaming import Curriculum, iterable_dataset, stream

NAMES = gym.names()


def test_names_lists_every_generator():
    assert NAMES == ["causalab", "cladder_equivalence", "identification", "shapeworld"]


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_entries_other_seed_others(name):
    first = list(gym.make(name, seed=7, size=4))
    assert first == list(gym.make(name, seed=7, size=4))
    assert gym.make(name, seed=7, size=50)[3] == first[3]  # an entry does not depend on the size
    assert [e["question"] for e in gym.make(name, seed=8, size=4)] != [e["question"] for e in first]


@pytest.mark.parametrize("name", NAMES)
def test_own_answer_scores_one_and_empty_zero(name):
    dataset = gym.make(name, seed=3, size=6)
    for entry in dataset:
        assert set(entry) == {"question", "answer", "metadata"}
        assert entry["metadata"]["source_dataset"] == name
        assert dataset.score_answer(entry["answer"], entry) == 1.0
        assert gym.score_answer(entry["answer"], entry) == 1.0
        for empty in ("", "   ", None):
            assert dataset.score_answer(empty, entry) == 0.0


@pytest.mark.parametrize("name", NAMES)
def test_an_answer_to_another_entry_is_not_always_right(name):
    entries = list(gym.make(name, seed=5, size=12))
    scores = [gym.score_answer(other["answer"], entry) for entry, other in zip(entries, entries[1:], strict=False)]
    assert min(scores) == 0.0


@pytest.mark.parametrize("name", NAMES)
def test_every_knob_level_builds(name):
    generator = gym.get(name)
    for knob, spec in generator.knobs.items():
        for level in (spec.levels[0], spec.levels[-1]):
            entry = gym.make(name, seed=1, size=1, **{knob: level})[0]
            assert entry["metadata"]["difficulty"][knob] == level
            assert gym.score_answer(entry["answer"], entry) == 1.0


def test_a_number_names_one_difficulty_however_written():
    assert gym.make("causalab", size=2, hidden=5)[1] == gym.make("causalab", size=2)[1]
    assert (
        gym.make("identification", size=1, conditional_share=1)[0]["metadata"]["difficulty"]["conditional_share"] == 1.0
    )
    with pytest.raises(GymError, match="nodes must be one of 4..8"):
        gym.make("identification", nodes=5.5)


def test_bad_knobs_are_typed_errors():
    with pytest.raises(GymError, match="no generator"):
        gym.make("nope")
    with pytest.raises(GymError, match="no knob colour"):
        gym.make("identification", colour=3)
    with pytest.raises(GymError, match="nodes must be one of 4..8"):
        gym.make("identification", nodes=40)
    with pytest.raises(GymError, match="structure must be one of"):
        gym.make("shapeworld", structure="ring")
    with pytest.raises(GymError, match="size"):
        gym.make("causalab", size=-1)


def test_the_curriculum_raises_difficulty_on_its_schedule():
    entries = list(stream("cladder_equivalence", seed=2, limit=9, curriculum=Curriculum(("nodes", "depth"), every=3)))
    levels = [(e["metadata"]["difficulty"]["nodes"], e["metadata"]["difficulty"]["depth"]) for e in entries]
    assert levels == [(3, 1)] * 3 + [(4, 2)] * 3 + [(5, 3)] * 3
    # item i of the stream is entry i of the dataset at that item's difficulty
    assert entries[4] == gym.make("cladder_equivalence", seed=2, size=5, nodes=4, depth=2)[4]
    started = list(stream("causalab", limit=2, curriculum=Curriculum(("regime",), every=1, start={"regime": "mixed"})))
    assert [e["metadata"]["difficulty"]["regime"] for e in started] == ["mixed", "intervention-only"]
    with pytest.raises(GymError, match="no knob"):
        next(stream("causalab", curriculum=Curriculum(("colour",), every=1)))
    with pytest.raises(GymError, match="every 1 or more"):
        next(stream("causalab", curriculum=Curriculum(("nodes",), every=0)))


def test_the_iterable_dataset_streams_training_rows():
    rows = list(iterable_dataset("identification", seed=4, limit=3, latents=0))
    entries = list(gym.make("identification", seed=4, size=3, latents=0))
    assert [r["answer"] for r in rows] == [e["answer"] for e in entries]
    assert rows[0]["prompt"] == entries[0]["metadata"]["prompt"]
    assert json.loads(rows[0]["metadata"])["query"] == entries[0]["metadata"]["query"]
    with pytest.raises(GymError):
        iterable_dataset("identification", nodes=1)
