"""ShapeWorld as an environment: reset to a task, step with the policy's reply, get the next prompt back.

:class:`ShapeWorldEnv` is the one episode loop: ``causal-datasets eval shapeworld`` plays every
episode through it (:func:`~causal_datasets.shapeworld.episode.play_episode`), and the RL integrations
(:mod:`causal_datasets.integrations.trl_env`, :mod:`causal_datasets.integrations.verl_interaction`)
step the same class with a trained model's messages, so both see the same prompts byte for byte.
The four-phase protocol::

    action  --(action applied; steps += 1)-->  choice
    choice  --"continue interaction"-->  action      (too_many_attempts once steps == step_limit)
    choice  --"answer the question"-->   answer  --> end

A choice reply that proposes an action instead (``{"shape", "action"}``) continues with that action,
as the original runner did. The step limit is the paper's 2n actions for n shapes (``task.step_limit``).

Error modes: ``invalid_action`` (unknown shape or action: counted, state unchanged, episode goes
on, the attempt counts as a step), ``invalid_format`` (no readable JSON; the episode ends),
``too_many_attempts`` (asked to continue after 2n steps), ``invalid_answer`` (neither yes nor no),
``llm_error`` (the policy could not reply at all, e.g. the model server failed; retried on resume).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, get_args

from pydantic import BaseModel, Field

from causal_datasets.shapeworld.entities import DEFAULT_THEME, THEMES, Theme
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

Phase = Literal["action", "choice", "answer"]
ErrorMode = Literal["invalid_action", "invalid_format", "too_many_attempts", "invalid_answer", "llm_error"]
ERROR_MODES: tuple[ErrorMode, ...] = get_args(ErrorMode)


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


class ShapeWorldEnv:
    """One episode of ``task`` at a time: :meth:`reset` gives the opening messages, :meth:`step` takes the
    policy's reply and gives the next prompt (None once the episode is over), :meth:`play` the record."""

    def __init__(
        self,
        task: ShapeWorldTask,
        variant: Variant = "basic",
        *,
        system_role: bool = True,
        theme: Theme = DEFAULT_THEME,
    ):
        self.variant, self.system_role, self.theme = variant, system_role, theme
        self.task = task
        self.reset()

    def reset(self, task: ShapeWorldTask | None = None) -> list[Message]:
        """Start ``task`` (or the current one) again; the opening messages, exactly as ``eval`` sends them."""
        if task is not None:
            self.task = task
        self.world = world_of(self.task, self.theme)
        self.question = question_of(self.task, self.theme)
        self.cause, self.effect = self.world.shapes[self.task.cause], self.world.shapes[self.task.effect]
        self.state = frozenset(self.task.initially_moving)
        self.messages: list[Message] = build_messages(self.task, self.variant, self.system_role, self.theme)
        self.actions: list[ActionRecord] = []
        self.phase: Phase | None = "action"
        self.prediction: Literal["yes", "no"] | None = None
        self.error: ErrorMode | None = None
        self.detail: str | None = None
        return list(self.messages)

    @property
    def done(self) -> bool:
        return self.phase is None

    def step(self, reply: str) -> str | None:
        """Take the policy's reply to the current prompt; the next prompt, or None when the episode ended."""
        if self.phase is None:
            raise RuntimeError("the episode is over: reset the environment first")
        handlers = {"action": self._on_action, "choice": self._on_choice, "answer": self._on_answer}
        self.messages.append({"role": "assistant", "content": reply})
        self.phase = handlers[self.phase](reply)
        return None if self.phase is None else self.messages[-1]["content"]

    def end(self, error: ErrorMode | None, detail: str | None) -> None:
        """Finish the episode (``error``: why, None for an answer)."""
        self.error, self.detail, self.phase = error, detail, None

    def turn(self) -> Turn:
        """The current prompt with the facts an agent reads off it."""
        if self.phase is None:
            raise RuntimeError("the episode is over: no turn to take")
        return Turn(
            phase=self.phase,
            messages=tuple(self.messages),
            observation=tuple(self.world.observe(self.state)),
            cause=self.cause,
            effect=self.effect,
            shapes=tuple(self.world.listed_shapes),
            steps=len(self.actions),
            step_limit=self.task.step_limit,
            noun=self.theme.noun,
        )

    def play(self, policy: str) -> EpisodePlay:
        """The episode so far as the record ``eval`` keeps, played by ``policy``."""
        return EpisodePlay(
            policy=policy,
            variant=self.variant,
            theme=self.theme.name,
            theme_file=None if self.theme in THEMES.values() else ThemeSpec.of(self.theme),
            prediction=self.prediction,
            error=self.error,
            error_detail=self.detail,
            actions=list(self.actions),
            transcript=list(self.messages),
        )

    def _on_action(self, reply: str) -> Phase | None:
        parsed = parse_action(reply, self.theme.noun)
        if parsed.error:
            return self._ended(parsed.error, parsed.detail)
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
            return self._ended(parsed.error, parsed.detail)
        if parsed.value == "answer":
            self._ask(answer_prompt(self.question, self.variant))
            return "answer"
        if len(self.actions) >= self.task.step_limit:
            return self._ended(
                "too_many_attempts", f"asked to continue after {len(self.actions)} of {self.task.step_limit} steps"
            )
        if proposes_action:
            return self._on_action(reply)
        self._ask(interaction_prompt(self.world.listed_shapes, self.variant, self.theme))
        return "action"

    def _on_answer(self, reply: str) -> Phase | None:
        parsed = parse_answer(reply)
        if parsed.error:
            return self._ended(parsed.error, parsed.detail)
        self.prediction = parsed.value
        return self._ended(None, None)

    def _ended(self, error: ErrorMode | None, detail: str | None) -> Phase | None:
        """Finish the episode: no next phase."""
        self.end(error, detail)
        return None

    def _ask(self, content: str) -> None:
        self.messages.append({"role": "user", "content": content})


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)
