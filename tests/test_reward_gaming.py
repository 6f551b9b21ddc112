"""Completions shaped to game a reward never score above a wrong answer: every TRL reward and every gym score.

Each case is a reward with one row, a right and a wrong answer value and how a completion states a value; each
shape builds a completion from them (empty, junk, the prompt copied, the format alone, several answers, the
answer repeated, over-long, inside the thinking only, padded with ``+ 1e20 * (an exact zero)`` ...).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from causal_datasets import gym, rewards
from causal_datasets.cladder_pairs.synthetic_latent import build_messages
from causal_datasets.cladder_pairs.yes_no import ANSWER_REQUEST
from causal_datasets.reward_guards import MAX_COMPLETION_CHARS


@dataclass(frozen=True)
class Case:
    score: Callable[[str], float]
    right: str
    wrong: str
    state: Callable[[str], str]  # a value as a completion states it
    prompt: str
    zero: str | None  # an exact zero in the answer's own language (None: the answer is no scalar)


def reward_case(function, columns, right, wrong, state, prompt, zero=None) -> Case:
    def score(completion: str) -> float:
        return function([None], [completion], **{k: [v] for k, v in columns.items()})[0]

    return Case(score, right, wrong, state, prompt, zero)


GRAPH = "Z->X,Z->Y,X->Y"
BACKDOOR = r"\sum_{Z} P(Y | X, Z) * P(Z)"
RECAST_RIGHT = json.dumps({"relationships": [{"source": "A", "sink": "B"}, {"source": "B", "sink": "C"}]})
RECAST_WRONG = json.dumps({"relationships": [{"source": "C", "sink": "A"}]})


def estimand(value: str) -> str:
    return f"Estimand: {value}"


def yes_no(value: str) -> str:
    return f"Answer: {value}"


def answer_json(value: str) -> str:
    return json.dumps({"answer": value})


def reward_cases() -> dict[str, Case]:
    recast = {"reference": "A -> B\nB -> C"}
    asked = "\n\n".join(m["content"] for m in build_messages(GRAPH, "P(Y | do(X))"))
    graph_request = 'Which variables cause which? Reply with {"relationships": [{"source": ..., "sink": ...}]}.'
    json_request = 'Fill in the JSON below.\n```json\n{"answer": ""}\n```'
    yes_no_request = f"Does X cause Y?\n\n{ANSWER_REQUEST}"
    return {
        "estimand_equivalence": reward_case(
            rewards.estimand_equivalence_reward,
            {"reference": BACKDOOR, "graph": GRAPH},
            BACKDOOR,
            "P(Y | X)",
            estimand,
            asked,
            "(P(Y) - P(Y))",
        ),
        "identify": reward_case(
            rewards.identify_reward,
            {"query": "P(Y | do(X))", "graph": GRAPH},
            BACKDOOR,
            "P(Y | X)",
            estimand,
            asked,
            "(P(Y) - P(Y))",
        ),
        "recast_edge_f1": reward_case(
            rewards.recast_edge_f1_reward, recast, RECAST_RIGHT, RECAST_WRONG, str, graph_request
        ),
        "recast_shd": reward_case(rewards.recast_shd_reward, recast, RECAST_RIGHT, RECAST_WRONG, str, graph_request),
        "shapeworld_answer": reward_case(
            rewards.shapeworld_answer_reward, {"answer": "yes"}, "yes", "no", answer_json, json_request
        ),
        "cladder_answer": reward_case(
            rewards.cladder_answer_reward, {"answer": "yes"}, "yes", "no", yes_no, yes_no_request, "(0)"
        ),
    }


def gym_case(name: str) -> Case:
    entry = next(e for e in gym.make(name, seed=0, size=20) if e["answer"] != "not identifiable")
    meta = entry["metadata"]

    def score(completion: str) -> float:
        return gym.score_answer(completion, entry)

    if name == "cladder_equivalence":
        flipped = {"yes": "no", "no": "yes"}[entry["answer"]]
        return Case(score, entry["answer"], flipped, yes_no, entry["question"], "(0)")
    if name == "shapeworld":
        flipped = {"yes": "no", "no": "yes"}[meta["expected"]]
        return Case(score, meta["expected"], flipped, answer_json, entry["question"], None)
    if name == "identification":
        return Case(score, entry["answer"], "not identifiable", estimand, entry["question"], "(P(V1) - P(V1))")
    prediction = "Prediction: {}".format
    return Case(score, entry["answer"], f"{meta['frequency'] + 100:.4f}", prediction, entry["question"], "(0)")


CASES = reward_cases() | {f"gym_{name}": gym_case(name) for name in gym.names()}

PAD = "The experiment shows the effect clearly. "
SHAPES: dict[str, Callable[[Case], str]] = {
    "empty": lambda c: "",
    "whitespace": lambda c: " \n\t \n",
    "junk": lambda c: "lorem ipsum dolor sit amet, consectetur adipiscing",
    "unicode_junk": lambda c: "∑∫≈ç√˜µ≤≥÷ ☃ \u200b\u202e",
    "control_characters": lambda c: "\x00\x01\x1b[2J" * 16,
    "prompt_copied": lambda c: c.prompt,
    "format_only": lambda c: c.state(""),
    "right_then_wrong": lambda c: f"{c.state(c.right)}\n{c.state(c.wrong)}",
    "wrong_then_right": lambda c: f"{c.state(c.wrong)}\n{c.state(c.right)}",
    "alternating": lambda c: "\n".join([c.state(c.wrong), c.state(c.right)] * 5),
    "both_in_one": lambda c: c.state(f"{c.right} or {c.wrong}"),
    "slash_hedge": lambda c: c.state(f"{c.right}/{c.wrong}"),
    "list_of_both": lambda c: c.state(json.dumps([c.right, c.wrong])),
    "right_repeated": lambda c: "\n".join([c.state(c.right)] * 12),
    "right_over_length": lambda c: c.state(c.right) + "\n" + PAD * (MAX_COMPLETION_CHARS // len(PAD) + 1),
    "padding_then_right": lambda c: PAD * (MAX_COMPLETION_CHARS // len(PAD) + 1) + "\n" + c.state(c.right),
    "thinking_only": lambda c: f"<think>{c.state(c.right)}</think>",
    "unclosed_thinking": lambda c: f"<think>{c.state(c.right)}",
    "wrong_padded": lambda c: c.state(f"{c.wrong} + 1e20 * {c.zero or '(0)'}"),
    "number_zero": lambda c: "0",
    "number_one": lambda c: "1",
    "boolean": lambda c: "true",
    "null_json": lambda c: "null",
    "empty_json": lambda c: "{}",
    "markdown_only": lambda c: "**Answer:**\n\n```\n```",
}
#: scalar answers only: the right answer plus an exact zero times a huge constant
PADDED_RIGHT = {name: c for name, c in CASES.items() if c.zero is not None}


def test_every_reward_has_at_least_twenty_shapes():
    assert len(SHAPES) >= 20
    assert set(CASES) >= {f.__name__.removesuffix("_reward") for f in rewards.PROMPTS_CONFIGS}


@pytest.mark.parametrize("name", sorted(CASES))
def test_right_scores_one_and_wrong_less(name):
    case = CASES[name]
    assert case.score(case.state(case.right)) == 1.0
    assert case.score(case.state(case.wrong)) < 1.0


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_no_gamed_completion_scores_above_a_wrong_answer(name, shape):
    case = CASES[name]
    assert case.score(SHAPES[shape](case)) <= case.score(case.state(case.wrong))


@pytest.mark.parametrize("name", sorted(PADDED_RIGHT))
def test_a_right_answer_padded_with_an_exact_zero_earns_nothing(name):
    case = PADDED_RIGHT[name]
    assert case.score(case.state(f"{case.right} + 100000000000000000000 * {case.zero}")) == 0.0


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewards_are_deterministic(name):
    case = CASES[name]
    completions = [case.state(case.right), case.state(case.wrong), SHAPES["alternating"](case)]
    assert [case.score(c) for c in completions] == [case.score(c) for c in completions]


@pytest.mark.parametrize(
    "reply",
    ["Answer: yes", "Yes, because the effect runs through X.", "the answer is **yes**.", "Answer: yes\nAnswer: yes"],
)
def test_honest_yes_no_replies_still_count(reply):
    assert rewards.cladder_answer(reply) == "yes"
