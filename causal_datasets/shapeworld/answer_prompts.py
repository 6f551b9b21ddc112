"""The ``prompts`` config of ``shapeworld``: an episode's request for the answer, after an experiment.

ShapeWorld is interactive: an episode opens with a request for an action, and only its last request
asks for the yes/no answer that ``shapeworld_answer_reward`` scores; the opening observation alone
does not decide the question (the graph is hidden). A single-turn training prompt is therefore the
last request with the conversation before it: the episode as the ``strategy`` agent plays it — it
sees only the observations, never the graph, and asks to answer as soon as they settle the question
— up to and including the answer request. That is exactly what ``causal-datasets eval shapeworld``
sends a model at that point had the model acted as the agent did, and the observations it shows
decide the answer, so every row can earn the reward.
"""

from __future__ import annotations

from collections.abc import Mapping

from causal_datasets.records.prompts import chat_messages
from causal_datasets.shapeworld.agents import StrategyAgent
from causal_datasets.shapeworld.episode import play_episode
from causal_datasets.shapeworld.prompts import VARIANTS
from causal_datasets.shapeworld.records import ShapeWorldPromptRow, ShapeWorldTask, Variant


def answer_prompt_rows(tasks: Mapping[str, list[ShapeWorldTask]]) -> list[ShapeWorldPromptRow]:
    """Per config, per episode, one row per prompt variant."""
    return [
        answer_prompt_row(task, config, variant)
        for config, episodes in tasks.items()
        for task in episodes
        for variant in VARIANTS
    ]


def answer_prompt_row(task: ShapeWorldTask, config: str, variant: Variant) -> ShapeWorldPromptRow:
    """The ``strategy`` agent's episode up to the answer request; its answer (always right) is the reference."""
    episode = play_episode(task, StrategyAgent(), variant, "agent:strategy")  # played, not scored
    *prompt, reply = episode.transcript
    if episode.error is not None or episode.prediction != task.answer:  # the agent is right on every valid task
        raise AssertionError(f"the strategy agent failed {task.id} ({episode.error or 'wrong answer'})")
    return ShapeWorldPromptRow(
        id=f"{task.id}-{variant}",
        prompt=chat_messages(prompt),
        reference=reply["content"],
        task_id=task.id,
        config=config,
        variant=variant,
        structure=task.structure,
        num_variables=task.num_variables,
        steps=len(episode.actions),
        answer=task.answer,
    )
