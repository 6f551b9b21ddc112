"""The seven fine-grained failure modes of CoBe (App. B.1, Fig. 9) and a judge that maps a wrong rewrite to one.

The paper sorts each invalid counterfactual edit into the semantically closest of seven manually
made failure modes. :data:`FAILURE_MODES` holds them (the paper's names; the definitions and
examples are ours); :func:`classify_failure` shows a judge model the scenario, the request, the
criteria, the rewrite and the seven definitions, and asks for the number of the closest mode (one
digit, re-asked when it is anything else). :func:`label_agreement` measures a judge against modes
labelled by hand (accuracy, Cohen's κ, confusions); ``tests/data/cobe/failure_modes.json`` holds
twenty wrong rewrites of the published responses labelled that way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from causal_datasets.agreement import cohen_kappa
from causal_datasets.cobe.judge import DEFAULT_ATTEMPTS, ask_until_valid
from causal_datasets.cobe.prompts import CriteriaSet, Messages
from causal_datasets.llm.chat import ChatClient


@dataclass(frozen=True)
class FailureMode:
    number: int
    key: str
    name: str
    definition: str


FAILURE_MODES: tuple[FailureMode, ...] = (
    FailureMode(
        1,
        "logical_dependency",
        "Mistaking causal connection for logical dependency",
        "A cause and its effect are treated as fixing each other completely, so the rewrite changes a "
        "cause to match the changed effect (the bridge held, so the storm must have been mild).",
    ),
    FailureMode(
        2,
        "correlation_as_causation",
        "Mistaking correlation for causal connection",
        "Events that only occur together, or are independent, are made to depend on one another, or a "
        "cause and its effect swap places (fewer umbrellas sold, so it stopped raining).",
    ),
    FailureMode(
        3,
        "ignored_causal_connection",
        "Ignoring causal connections",
        "The intervention is made but its consequences are not carried through: events downstream of it "
        "stay as they were or are updated only in part.",
    ),
    FailureMode(
        4,
        "natural_laws",
        "Not understanding physics/chemistry/biology",
        "The rewrite describes an outcome that physical, chemical or biological laws rule out once the "
        "intervention is made (holding a breath for an hour and feeling fine).",
    ),
    FailureMode(
        5,
        "latent_conditions",
        "Not inferring/fixing latent conditions",
        "Unstated conditions that the scenario implies (time of day, weather, an action nobody saw) are "
        "not inferred, or are changed, instead of being held fixed across the edit.",
    ),
    FailureMode(
        6,
        "wrong_causal_implication",
        "Wrong causal implication",
        "Connectors such as because, so, thanks to, despite, but state a relation between clauses that no "
        'longer holds after the edit ("due to" where "despite" is needed).',
    ),
    FailureMode(
        7,
        "wrong_causal_reason",
        "Not relying on the appropriate variables as a causal reason",
        "An outcome is explained by, or made to depend on, a variable that does not cause it (an "
        "independent event, or one cause alone) instead of its actual causes.",
    ),
)
MODES_BY_NUMBER = {mode.number: mode for mode in FAILURE_MODES}

INSTRUCTIONS = (
    "A model was asked to rewrite a short scenario as it would have been had one thing been different "
    "(a counterfactual edit). Its rewrite was judged invalid. Decide which failure mode below explains the "
    "error best."
)
REASK = "Reply with one number from 1 to 7 and nothing else."
_DIGIT = re.compile(r"[1-7]")


@dataclass(frozen=True)
class FailureCase:
    """What the judge sees: the scenario, the request, the criteria and the rewrite."""

    text: str
    query: str
    criteria: CriteriaSet
    response: str


@dataclass
class FailureModeVerdict:
    """The judge's mode (None with an ``error`` category when it gave none) and its answers."""

    mode: int | None
    answers: list[str] = field(default_factory=list)
    error: str | None = None
    error_detail: str | None = None

    @property
    def key(self) -> str | None:
        return MODES_BY_NUMBER[self.mode].key if self.mode is not None else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"key": self.key}


def classification_messages(case: FailureCase) -> Messages:
    """The judge's input: the case, then the seven modes, then the one-number instruction."""
    criteria = [
        ("Should stay as in the original", case.criteria.should_not_change),
        ("Should change", case.criteria.should_change),
        ("Expected numerical change", case.criteria.numerical_change),
        ("Latent conditions to hold fixed", case.criteria.latent_factors),
    ]
    listed = "\n".join(f"- {label}: {' '.join(items)}" for label, items in criteria if items)
    modes = "\n".join(f"{m.number}. {m.name}: {m.definition}" for m in FAILURE_MODES)
    content = (
        f"{INSTRUCTIONS}\n\nScenario:\n{case.text}\n\nRequest:\n{case.query}\n\nCriteria:\n{listed}\n\n"
        f"Rewrite:\n{case.response}\n\nFailure modes:\n{modes}\n\n"
        "Your entire reply must be the number (1 to 7) of the failure mode that fits best."
    )
    return [{"role": "user", "content": content}]


def parse_mode(answer: str) -> int | None:
    """The mode number of an answer holding exactly one digit 1–7 (``3``, ``Mode 3.``, ``**3**``); else None."""
    if len(answer) > 200:  # a judgement, not a number
        return None
    digits = set(_DIGIT.findall(answer))
    if len(digits) != 1 or re.search(r"[089]|\d\d", answer):
        return None
    return int(digits.pop())


def classify_failure(client: ChatClient, case: FailureCase, max_attempts: int = DEFAULT_ATTEMPTS) -> FailureModeVerdict:
    """The closest failure mode of a wrong rewrite by the judge ``client``; a failed call is recorded, not raised."""
    asked = ask_until_valid(client, classification_messages(case), parse_mode, REASK, "mode number 1-7", max_attempts)
    return FailureModeVerdict(
        mode=asked.value, answers=asked.answers, error=asked.error, error_detail=asked.error_detail
    )


def label_agreement(predicted: Sequence[int | None], labelled: Sequence[int]) -> dict[str, Any]:
    """A judge's modes against hand labels: accuracy and Cohen's κ over the answered cases, and the confusions."""
    if len(predicted) != len(labelled):
        raise ValueError(f"{len(predicted)} predicted modes for {len(labelled)} labels")
    pairs = [(p, t) for p, t in zip(predicted, labelled, strict=True) if p is not None]
    confusions = Counter(f"{t}→{p}" for p, t in pairs if p != t)
    return {
        "n": len(labelled),
        "answered": len(pairs),
        "accuracy": sum(p == t for p, t in pairs) / len(pairs) if pairs else None,
        "cohen_kappa": cohen_kappa([t for _, t in pairs], [p for p, _ in pairs]),
        "confusions": dict(sorted(confusions.items())),
    }
