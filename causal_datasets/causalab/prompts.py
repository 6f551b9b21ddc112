"""Prompts of the chat-model protocol: pure functions of the episode record and the lab view.

``build_messages(episode)`` is exactly what a model receives first (system + briefing);
``feedback_message(view)`` follows every step; ``reask_message`` follows a reply with no readable
step; ``VERIFICATION_PROMPT`` is the optional check of the hypothesis against past data before a
prediction is submitted.
"""

from __future__ import annotations

import json
from typing import Any

from causal_datasets.causalab.episode import LabView
from causal_datasets.causalab.lab import Lab
from causal_datasets.causalab.properties import TARGET
from causal_datasets.causalab.records import CausaLabEpisode

STEP_SCHEMA = """{
  "memory": "notes you want to keep for the rest of the episode",
  "thought": "your reading of the latest evidence",
  "past_data": [{"id": "record id", "props": {"<property>": <number>}, "freq": <number>}],
  "hypothesis": {
    "edges": [{"from": "<cause>", "to": "<effect>"}],
    "freq_equation": "resonanceFreq = base + c_<P>*<P> + ...",
    "coefficients": {"base": <number>, "c_<P>": <number>}
  },
  "experiment": {"target_prop": "<property>", "target_value": <number>, "purpose": "why"},
  "action": "intervene" | "submit",
  "prediction": <number, only with "submit">
}"""

QUADRATIC_NOTE = (
    "Each parent P of a property contributes c_P_1*P^2 + c_P_2*P, so write the frequency equation as "
    "resonanceFreq = base + c_<P>_1*<P>^2 + c_<P>_2*<P> + ... and name the coefficients c_<P>_1 (of <P>^2) "
    "and c_<P>_2 (of <P>)."
)
LINEAR_NOTE = "Each property is its base value plus a weighted sum of its direct causes (linear relationships)."

VERIFICATION_PROMPT = (
    "Before the prediction is submitted, check your hypothesis against the past data: evaluate your "
    "frequency equation on every record you have measured and compare it with the recorded frequency. "
    "If any record disagrees, revise the hypothesis (and the prediction, or run another experiment if "
    "adjustments remain). Answer with one JSON step in the same format."
)


def reask_message(error: str) -> str:
    """The user message after a reply with no readable step: why, and the format again."""
    return (
        f"Your last reply could not be read as a step ({error}). Reply again with exactly one JSON object "
        "in the step format, and nothing else."
    )


def system_prompt(episode: CausaLabEpisode) -> str:
    """The rules of the lab and the step format."""
    family = QUADRATIC_NOTE if episode.family == "quadratic" else LINEAR_NOTE
    frequency_role = (
        "The resonance frequency may itself influence other properties."
        if episode.frequency_can_be_parent
        else "The resonance frequency does not influence any other property."
    )
    return "\n".join(
        [
            "You are a scientist in a crystal laboratory. The properties of a quantum crystal are linked by a hidden "
            "causal mechanism (a directed acyclic graph with structural equations) that is the same for every crystal; "
            "each crystal has its own base values. Your goal: predict the resonance frequency "
            f"({TARGET}) of the reactor crystal, whose other properties you can see but whose frequency is hidden.",
            family,
            frequency_role,
            _adjustments(episode.budget),
            f"A prediction succeeds when it is within {episode.tolerance:g} Hz of the true value; you have "
            f"{episode.max_submissions} submissions, and once you submit the manipulator is locked.",
            "Reply at every step with exactly one JSON object in this format (no other text):",
            STEP_SCHEMA,
            'Use "action": "intervene" with an experiment to adjust a property, or "action": "submit" with your '
            "prediction. Keep your current causal hypothesis in every step.",
        ]
    )


def _adjustments(budget: int) -> str:
    if budget == 0:
        return (
            "In this episode you cannot adjust the manipulator crystal (0 adjustments): rely on the prior "
            "measurement records. The frequency cannot be set."
        )
    return (
        f"You may adjust one property of the manipulator crystal per step ({budget} adjustments in total). "
        "An adjustment to value v shifts that property's base so that it reads v; its effects then propagate to "
        "the properties it causes, and later changes of its causes still move it. The frequency cannot be set."
    )


def briefing(view: LabView) -> str:
    """The first user message: prior records, the manipulator crystal, the reactor crystal."""
    records = [_record_line(record) for record in view.prior_records] or ["- none: this episode starts without records"]
    lines = [
        f"Properties: {', '.join(view.properties)} and {TARGET}.",
        f"Adjustable on the manipulator crystal: {', '.join(view.controllable)}.",
        "Prior measurement records (other crystals):",
        *records,
        f"Manipulator crystal now: {_values(view.readings[0]['values'])}",
        f"Reactor crystal (frequency hidden): {_values(view.reactor_properties)}",
        f"Adjustments left: {view.remaining}/{view.budget}. Submissions: 0/{view.max_submissions}.",
        "What is your first step?",
    ]
    return "\n".join(lines)


def build_messages(episode: CausaLabEpisode) -> list[dict[str, str]]:
    """Exactly the opening messages the runner sends for ``episode``."""
    view = LabView.open(Lab(episode))
    return [{"role": "system", "content": system_prompt(episode)}, {"role": "user", "content": briefing(view)}]


def feedback_message(view: LabView) -> str:
    """The user message after a step: what happened and the counters."""
    event = view.event
    assert event is not None
    if event.kind == "reading":
        head = f"Manipulator crystal after the adjustment: {_values(event.values or {})}"
    elif event.kind == "submission":
        head = event.message.capitalize() + "."
    else:
        head = f"Your last step was not carried out: {event.message}."
    used = len(view.submissions)
    return (
        f"{head}\nAdjustments left: {view.remaining}/{view.budget}. "
        f"Submissions: {used}/{view.max_submissions}.\nNext step?"
    )


def _values(values: dict[str, Any]) -> str:
    return json.dumps(values, ensure_ascii=False)


def _record_line(record: dict[str, Any]) -> str:
    line = f"- {record['id']}: {_values(record['props'])}, {TARGET}={record['freq']}"
    if "intervention" in record:
        i = record["intervention"]
        line += (
            f" (measured after setting {i['target_prop']} to {i['target_value']};"
            " the trace's adjustments accumulate in order on one crystal)"
        )
    return line
