"""ShapeWorld as a single-turn generator: the episode so far, then the yes/no question.

ShapeWorld is interactive, and its opening observation alone does not decide the question (the graph is
hidden). An entry is therefore the ``prompts`` config's row (:mod:`~causal_datasets.shapeworld.answer_prompts`):
the conversation the ``strategy`` reference agent plays from the observations alone — never the graph — up to
the request for the answer, which those observations decide. Its ``answer`` is the agent's final reply (always
right), scored by :func:`~causal_datasets.rewards.shapeworld_answer_reward` against the task's yes/no. The
knobs: ``structure`` (one of the four core graphs, or a random graph) and ``variables`` (the random graph's
size; a core graph has its own). ``question`` is the conversation as text, each message under its role;
``metadata["prompt"]`` holds it as chat messages.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from statistics import fmean

from causal_datasets.gym.base import Difficulty, Entry, Generator, Knob
from causal_datasets.rewards import shapeworld_answer_reward
from causal_datasets.shapeworld.answer_prompts import answer_prompt_row
from causal_datasets.shapeworld.generate import CORE_GRAPHS, advanced_shard, core_tasks

#: the structures, easiest first (docs/generators.md measures them)
STRUCTURES = (*CORE_GRAPHS, "random")


def flatten(messages: Sequence[dict[str, str]]) -> str:
    """A conversation as one text: each message under its role."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)


def _entry(rng: random.Random, difficulty: Difficulty) -> Entry:
    seed = rng.randrange(2**31)
    if difficulty["structure"] == "random":
        tasks = advanced_shard(seed, (difficulty["variables"], 0, 1))
    else:
        tasks = [task for task in core_tasks(seed) if task.structure == difficulty["structure"]]
    task = rng.choice(tasks)
    row = answer_prompt_row(task, "advanced" if task.structure == "random" else "core", "basic")
    prompt = [{"role": m.role, "content": m.content} for m in row.prompt]
    return {
        "question": flatten(prompt),
        "answer": row.reference,
        "metadata": {
            "prompt": prompt,
            "task_id": task.id,
            "expected": task.answer,
            "num_variables": task.num_variables,
            "edges": len(task.edges),
            "agent_steps": row.steps,
        },
    }


def _score(answer: str, entry: Entry) -> float:
    return shapeworld_answer_reward([None], [answer], answer=[entry["metadata"]["expected"]])[0]


def _measure(entries: Sequence[Entry]) -> dict[str, float]:
    return {
        "agent_steps": fmean(e["metadata"]["agent_steps"] for e in entries),
        "edges": fmean(e["metadata"]["edges"] for e in entries),
        "prompt_characters": fmean(len(e["question"]) for e in entries),
    }


SHAPEWORLD = Generator(
    name="shapeworld",
    description="does shape A moving cause shape B to move? after the reference agent's experiment (yes/no JSON)",
    knobs={
        "structure": Knob("random", STRUCTURES, "a core graph (its own size) or a random graph"),
        "variables": Knob(4, (2, 3, 4, 5, 6, 7, 8), "shapes of a random graph"),
    },
    build=_entry,
    score=_score,
    measure=_measure,
)
