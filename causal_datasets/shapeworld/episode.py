"""The episode loop: one task, one policy, the four-phase protocol, a classified result.

A policy (chat model or reference agent) answers every turn with text; the loop parses it, applies
actions to the simulator and writes the next prompt. Phases::

    action  --(action applied; steps += 1)-->  choice
    choice  --"continue interaction"-->  action      (too_many_attempts once steps == step_limit)
    choice  --"answer the question"-->   answer  --> end

A choice reply that proposes an action instead (``{"shape", "action"}``) continues with that action,
as the original runner did.

Error modes: ``invalid_action`` (unknown shape or action: counted, state unchanged, episode goes
on, the attempt counts as a step), ``invalid_format`` (no readable JSON; the episode ends),
``too_many_attempts`` (asked to continue after 2n steps), ``invalid_answer`` (neither yes nor no),
``llm_error`` (the policy could not reply at all, e.g. the model server failed; retried on resume).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, Protocol, TypedDict, Unpack, get_args

from pydantic import BaseModel, Field

from causal_datasets.shapeworld.entities import DEFAULT_THEME, THEMES, Theme
from causal_datasets.shapeworld.failures import FailurePattern, failure_pattern
from causal_datasets.shapeworld.generate import world_of
from causal_datasets.shapeworld.parsing import parse_action, parse_answer, parse_choice
from causal_datasets.shapeworld.prompts import (
    Message,
    Variant,
    answer_prompt,
    build_messages,
    choice_prompt,
    interaction_prompt,
    question_of,
)
from causal_datasets.shapeworld.records import ShapeWorldTask
from causal_datasets.shapeworld.theme_file import ThemeSpec
from causal_datasets.shapeworld.world import World

Phase = Literal["action", "choice", "answer"]
ErrorMode = Literal["invalid_action", "invalid_format", "too_many_attempts", "invalid_answer", "llm_error"]
ERROR_MODES: tuple[ErrorMode, ...] = get_args(ErrorMode)


class PolicyFailure(RuntimeError):
    """A policy could not produce a reply (transport failure, not a model mistake)."""


@dataclass(frozen=True)
class Turn:
    """What a policy sees: the conversation so far (ending with the prompt to answer) and, for
    agents, the same facts already parsed — the current observation and the question's shapes."""

    phase: Phase
    messages: tuple[Message, ...]
    observation: tuple[tuple[str, bool], ...]
    cause: str
    effect: str
    shapes: tuple[str, ...]
    steps: int
    step_limit: int
    noun: str = "shape"  # the JSON key of an action (the theme's noun)

    def moving(self, shape: str) -> bool:
        return dict(self.observation)[shape]


class Policy(Protocol):
    """Anything that answers turns; one instance per episode (agents may keep state)."""

    def respond(self, turn: Turn) -> str: ...


class ActionRecord(BaseModel):
    """One proposed action and the moving shapes after it (canonical order)."""

    step: int
    shape: str
    action: str
    invalid: str | None = None
    moving_after: list[str]


class EpisodePlay(BaseModel):
    """What playing an episode produced, before any scoring: who played with which prompts and names,
    the answer (or the error that ended the episode), the actions and the whole conversation."""

    policy: str
    variant: Variant
    theme: str
    theme_file: ThemeSpec | None = Field(
        default=None, description="the theme of an --entities-file, whole (None: the built-in theme named)"
    )
    prediction: Literal["yes", "no"] | None
    error: ErrorMode | None
    error_detail: str | None
    actions: list[ActionRecord]
    transcript: list[Message]


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
    """Play ``task`` with ``policy`` to the end (the episode loop alone, nothing scored)."""
    episode = _Episode(task, world_of(task, theme), variant, system_role, theme)
    try:
        episode.play(policy)
    except PolicyFailure as failure:
        episode.end("llm_error", str(failure))
    return EpisodePlay(
        policy=policy_name,
        variant=variant,
        theme=theme.name,
        theme_file=None if theme in THEMES.values() else ThemeSpec.of(theme),
        prediction=episode.prediction,
        error=episode.error,
        error_detail=episode.detail,
        actions=episode.actions,
        transcript=episode.messages,
    )


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


class _Episode:
    def __init__(self, task: ShapeWorldTask, world: World, variant: Variant, system_role: bool, theme: Theme):
        self.task, self.world, self.variant, self.theme = task, world, variant, theme
        self.question = question_of(task, theme)
        self.cause, self.effect = world.shapes[task.cause], world.shapes[task.effect]
        self.state = frozenset(task.initially_moving)
        self.messages: list[Message] = build_messages(task, variant, system_role, theme)
        self.actions: list[ActionRecord] = []
        self.prediction: str | None = None
        self.error: ErrorMode | None = None
        self.detail: str | None = None

    def play(self, policy: Policy) -> None:
        handlers = {"action": self._on_action, "choice": self._on_choice, "answer": self._on_answer}
        phase: Phase | None = "action"
        while phase is not None:
            reply = policy.respond(self._turn(phase))
            self.messages.append({"role": "assistant", "content": reply})
            phase = handlers[phase](reply)

    def _on_action(self, reply: str) -> Phase | None:
        parsed = parse_action(reply, self.theme.noun)
        if parsed.error:
            return self.end(parsed.error, parsed.detail)
        shape, action = parsed.value
        transition = self.world.apply(self.state, shape, action)
        self.state = transition.state
        self.actions.append(
            ActionRecord(
                step=len(self.actions) + 1,
                shape=_text(shape),
                action=_text(action),
                invalid=transition.invalid,
                moving_after=[s for s, moving in self.world.observe(self.state) if moving],
            )
        )
        self._ask(
            choice_prompt(self.world.observe(self.state), self.question, self.variant, transition.invalid, self.theme)
        )
        return "choice"

    def _on_choice(self, reply: str) -> Phase | None:
        parsed = parse_choice(reply)
        proposes_action = parsed.error is not None and parse_action(reply, self.theme.noun).error is None
        if parsed.error and not proposes_action:
            return self.end(parsed.error, parsed.detail)
        if parsed.value == "answer":
            self._ask(answer_prompt(self.question, self.variant))
            return "answer"
        if len(self.actions) >= self.task.step_limit:
            return self.end(
                "too_many_attempts", f"asked to continue after {len(self.actions)} of {self.task.step_limit} steps"
            )
        if proposes_action:
            return self._on_action(reply)
        self._ask(interaction_prompt(self.world.listed_shapes, self.variant, self.theme))
        return "action"

    def _on_answer(self, reply: str) -> Phase | None:
        parsed = parse_answer(reply)
        if parsed.error:
            return self.end(parsed.error, parsed.detail)
        self.prediction = parsed.value
        return self.end(None, None)

    def end(self, error: ErrorMode | None, detail: str | None) -> Phase | None:
        """Finish the episode: no next phase (a handler returning ``None`` ends the loop)."""
        self.error, self.detail = error, detail
        return None

    def _ask(self, content: str) -> None:
        self.messages.append({"role": "user", "content": content})

    def _turn(self, phase: Phase) -> Turn:
        return Turn(
            phase=phase,
            messages=tuple(self.messages),
            observation=tuple(self.world.observe(self.state)),
            cause=self.cause,
            effect=self.effect,
            shapes=tuple(self.world.listed_shapes),
            steps=len(self.actions),
            step_limit=self.task.step_limit,
            noun=self.theme.noun,
        )


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)
