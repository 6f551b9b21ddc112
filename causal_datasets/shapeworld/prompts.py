"""The prompts of the four-phase protocol (initial, choice, interaction, answer) and their variants.

Variants, as in the paper: ``basic``; ``step_limit`` (asks for the fewest steps); ``cot_step_limit``
(the step-limit prompt plus a generic "think step by step"); ``instructed_cot`` (the step-limit
prompt plus the experiment procedure spelled out, and step-by-step thinking). The JSON shapes the
model fills in are fixed by the protocol; a theme (:mod:`.entities`) renames the shapes and the noun
the text uses for them (the default gives the paper's text). Every function is pure: the same
record, theme and observations give the same text, so a ``prompts`` config can publish exactly
what a run sends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

from causal_datasets.shapeworld.entities import DEFAULT_THEME, Theme
from causal_datasets.shapeworld.generate import question_text, world_of
from causal_datasets.shapeworld.records import ShapeWorldTask, Variant
from causal_datasets.shapeworld.world import ACTIONS

VARIANTS: tuple[Variant, ...] = get_args(Variant)
Message = dict[str, str]
Observation = Sequence[tuple[str, bool]]

RULES = (
    "You are in a world of {plural}. How the {plural} move is governed by hidden causal rules. "
    "Interact with the {plural} until you can answer a question about those rules. "
    "Everything in this world is deterministic and consistent, and there is no hidden confounder.\n\n"
    "You can either 1) move a static {noun} or 2) hold a moving {noun}. "
    "A {noun} stops moving only when nothing else is still causing it to move."
)
STEP_LIMIT = "Reach your conclusion in as few steps as possible."
PROCEDURE = (
    "To find out whether the causal relation exists:\n"
    '1. Identify the cause shape and the effect shape. In "Does the circle moving cause the triangle '
    'to move?" the cause is the circle and the effect is the triangle.\n'
    "2. Make both shapes static. Other shapes may be making them move: find those causes and stop them.\n"
    "3. Move the cause shape and watch the effect shape.\n"
    "4. Answer the question."
)
REPLY_JSON_ONLY = "Reply with the filled-in JSON."
REPLY_AFTER_THINKING = "Think step by step, then end your reply with the filled-in JSON."
ACTION_JSON = '```json\n{{"{noun}": "", "action": ""}}\n```'


def system_prompt(variant: Variant, theme: Theme = DEFAULT_THEME) -> str:
    parts = [RULES.format(noun=theme.noun, plural=theme.plural)]
    if variant != "basic":
        parts.append(STEP_LIMIT)
    if variant == "instructed_cot":
        parts.append(PROCEDURE)
    return "\n\n".join(parts)


def describe(observation: Observation) -> str:
    """One ``<shape> is moving`` / ``<shape> is static`` line per shape."""
    return "\n".join(f"{shape} is {'moving' if moving else 'static'}" for shape, moving in observation)


def question_of(task: ShapeWorldTask, theme: Theme = DEFAULT_THEME) -> str:
    """The task's question, its shapes named by ``theme``."""
    if theme == DEFAULT_THEME:
        return task.question
    cause, effect = theme.rename([task.shapes[task.cause], task.shapes[task.effect]])
    return question_text(cause, effect)


def build_messages(
    task: ShapeWorldTask, variant: Variant, system_role: bool = True, theme: Theme = DEFAULT_THEME
) -> list[Message]:
    """The opening of an episode: rules, initial observations, question, first-action request.

    ``system_role=False`` puts the rules at the top of the first user message instead, for models
    without a system role (the paper does the same for such models).
    """
    world = world_of(task, theme)
    observation = world.observe(frozenset(task.initially_moving))
    user = (
        f"Here is what you observe now:\n{describe(observation)}\n\n"
        f"Interact with the {theme.plural} to answer: {question_of(task, theme)}\n\n"
        f"Propose your first interaction. {_action_request(world.listed_shapes, variant, theme)}"
    )
    rules = system_prompt(variant, theme)
    if not system_role:
        return [{"role": "user", "content": f"{rules}\n\n{user}"}]
    return [{"role": "system", "content": rules}, {"role": "user", "content": user}]


def choice_prompt(
    observation: Observation, question: str, variant: Variant, invalid: str | None = None, theme: Theme = DEFAULT_THEME
) -> str:
    """After an action: the new states (or why the action was rejected) and the continue/answer request."""
    if invalid is None:
        header = f"After your last action, the {theme.plural} are:\n{describe(observation)}"
    else:
        header = (
            f"Your last action was invalid ({invalid}); nothing changed. "
            f"The {theme.plural} are:\n{describe(observation)}"
        )
    return (
        f"{header}\n\nBased on what you have observed so far, decide whether to continue interacting "
        f"or to answer the question: {question}\n\n"
        f"{_reply_instruction(variant)}\n"
        '- "next" must be either "continue interaction" or "answer the question"\n\n'
        '```json\n{"next": ""}\n```'
    )


def interaction_prompt(shapes: Sequence[str], variant: Variant, theme: Theme = DEFAULT_THEME) -> str:
    return f"Propose your next interaction. {_action_request(shapes, variant, theme)}"


def answer_prompt(question: str, variant: Variant) -> str:
    return (
        f"You are ready to answer the question: {question}\n\n"
        f"{_reply_instruction(variant)}\n"
        '- "answer" must be "yes" or "no"\n\n'
        '```json\n{"answer": ""}\n```'
    )


def _action_request(shapes: Sequence[str], variant: Variant, theme: Theme) -> str:
    return (
        f"{_reply_instruction(variant)}\n"
        f'- "{theme.noun}" must be one of the listed {theme.plural}: {", ".join(shapes)}\n'
        f'- "action" must be one of the listed actions: {", ".join(ACTIONS)}\n\n'
        f"{ACTION_JSON.format(noun=theme.noun)}"
    )


def _reply_instruction(variant: Variant) -> str:
    thinking = REPLY_AFTER_THINKING if variant in ("cot_step_limit", "instructed_cot") else REPLY_JSON_ONLY
    return f"Fill in the JSON below. {thinking}"
