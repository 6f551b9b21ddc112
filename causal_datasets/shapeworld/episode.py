"""Playing a ShapeWorld task with a policy, and scoring the played episode.

A policy (chat model or reference agent) answers every turn with text; :func:`play_episode` steps the
one environment (:class:`~causal_datasets.shapeworld.env.ShapeWorldEnv`, where the protocol and its error
modes are described) with each reply until the episode ends; :func:`score_play` scores the record.
"""

from __future__ import annotations

from typing import Literal, Protocol, TypedDict, Unpack

from pydantic import BaseModel

from causal_datasets.shapeworld.entities import DEFAULT_THEME, THEMES, Theme
from causal_datasets.shapeworld.env import ERROR_MODES as ERROR_MODES
from causal_datasets.shapeworld.env import EpisodePlay, ErrorMode, ShapeWorldEnv, Turn
from causal_datasets.shapeworld.failures import FailurePattern, failure_pattern
from causal_datasets.shapeworld.generate import world_of
from causal_datasets.shapeworld.prompts import Variant
from causal_datasets.shapeworld.records import ShapeWorldTask


class PolicyFailure(RuntimeError):
    """A policy could not produce a reply (transport failure, not a model mistake)."""


class Policy(Protocol):
    """Anything that answers turns; one instance per episode (agents may keep state)."""

    def respond(self, turn: Turn) -> str: ...


class EpisodeScores(BaseModel):
    """What scoring a played episode gives: the task's facts, right or wrong, steps, errors and the
    failure pattern of a wrong answer."""

    id: str
    structure: str
    num_variables: int
    #: the initial setup: graph id and the nodes moving at the start (what the paper's error bars vary over)
    setup: str
    all_moving: bool
    gold: Literal["yes", "no"]
    prediction: Literal["yes", "no"] | None
    correct: bool
    steps: int
    step_limit: int
    invalid_actions: int
    error: ErrorMode | None
    failure_pattern: FailurePattern | None


class EpisodeResult(EpisodeScores, EpisodePlay):
    """A played episode and its scores, as one record."""


class PlaySettings(TypedDict, total=False):
    """The keyword settings of :func:`play_episode` that :func:`run_episode` passes on."""

    system_role: bool
    theme: Theme


def run_episode(
    task: ShapeWorldTask, policy: Policy, variant: Variant, policy_name: str, **settings: Unpack[PlaySettings]
) -> EpisodeResult:
    """Play ``task`` with ``policy`` to the end (:func:`play_episode`, with its ``settings``) and score it;
    never raises for anything the policy replies."""
    play = play_episode(task, policy, variant, policy_name, **settings)
    return EpisodeResult(**play.model_dump(), **score_play(task, play).model_dump(exclude={"prediction", "error"}))


def play_episode(
    task: ShapeWorldTask,
    policy: Policy,
    variant: Variant,
    policy_name: str,
    *,
    system_role: bool = True,
    theme: Theme = DEFAULT_THEME,
) -> EpisodePlay:
    """Play ``task`` with ``policy`` to the end (the environment stepped with its replies, nothing scored)."""
    env = ShapeWorldEnv(task, variant, system_role=system_role, theme=theme)
    try:
        while not env.done:
            env.step(policy.respond(env.turn()))
    except PolicyFailure as failure:
        env.end("llm_error", str(failure))
    return env.play(policy_name)


def score_play(task: ShapeWorldTask, play: EpisodePlay) -> EpisodeScores:
    """The scores of a played episode of ``task``: a pure function of the task and the play."""
    theme = play.theme_file.theme() if play.theme_file else next(t for t in THEMES.values() if t.name == play.theme)
    world = world_of(task, theme)
    initial = {world.shapes[v] for v in task.initially_moving}
    pattern = failure_pattern(
        task.answer,
        play.prediction,
        world.shapes[task.cause],
        world.shapes[task.effect],
        [initial, *(set(a.moving_after) for a in play.actions)],
        [(a.shape, a.action) for a in play.actions],
    )
    return EpisodeScores(
        id=task.id,
        structure=task.structure,
        num_variables=task.num_variables,
        setup=task.setup,
        all_moving=task.all_moving,
        gold=task.answer,
        prediction=play.prediction,
        correct=play.prediction == task.answer,
        steps=len(play.actions),
        step_limit=task.step_limit,
        invalid_actions=sum(a.invalid is not None for a in play.actions),
        error=play.error,
        failure_pattern=pattern,
    )
