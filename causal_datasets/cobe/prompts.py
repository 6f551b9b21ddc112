"""What CoBe sends: the counterfactual request to the model, and one T/F question per criterion to the judge.

The judge prompts for connectors (E3), should-not-change (E1) and should-change (E2) are the
paper's appendix C.2 prompts Q0, Q1 and Q2, rendered verbatim (``$eq1``, ``$eq2`` and
``$response_text`` substituted). The paper does not print prompts for numerical direction (E4)
and latent factors (E5); ours follow the same form (one short example, the criterion in quotes,
the pass rule, the one-character instruction, the rewrite).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from string import Template
from typing import Any

from causal_datasets.cobe.records import CoBeQuery

Messages = list[dict[str, str]]

ONE_CHARACTER = (
    "Your entire reply must be exactly one character: T if the criterion passes for that question type, F if it fails."
)
EXAMPLES_HEADER = "Short examples (your entire output is exactly one letter):"

CONNECTORS = Template(
    'Criterion: "Every causal connector in the rewrite accurately reflects the causal relationship described."\n\n'
    "Mentally list each causal connector (so, thus, therefore, but, however, consequently, as a result, etc.). "
    "T only if every connector signals the correct causal direction; F if any connector implies a wrong or "
    "reversed relationship. If there are no causal connectors, reply T.\n\n"
    f"{ONE_CHARACTER}\n\n"
    "Rewrite:\n$response_text"
)
UNCHANGED = Template(
    f"{EXAMPLES_HEADER}\n\n"
    "Facts that should be UNCHANGED - criterion says pipe leaking and floor wet; "
    "rewrite keeps leak but floor is dry → F\n\n"
    'Criterion (facts that should be UNCHANGED):\n"$eq1"\n\n'
    "For each claim: T only if still present and correct in the rewrite, F if missing or changed.\n\n"
    f"{ONE_CHARACTER}\n\n"
    "Rewrite:\n$response_text"
)
CHANGED = Template(
    f"{EXAMPLES_HEADER}\n\n"
    "Effects that should be CHANGED - criterion says brakes failed and car hit wall; "
    "rewrite has brakes engaged and car safe → T\n\n"
    'Criterion (effects that should be CHANGED):\n"$eq2"\n\n'
    "For each claim: T only if changed or removed in the rewrite, F if it still holds as in the original.\n\n"
    f"{ONE_CHARACTER}\n\n"
    "Rewrite:\n$response_text"
)
NUMERICAL = Template(
    f"{EXAMPLES_HEADER}\n\n"
    "Quantities that should move in a stated DIRECTION - criterion says sales were lower than 100 units; "
    "rewrite reports 60 units sold → T\n\n"
    'Criterion (expected NUMERICAL change):\n"$eq3"\n\n'
    "For each quantity: T only if the rewrite moves it in the stated direction, F if it is unchanged, "
    "missing, or moves the other way.\n\n"
    f"{ONE_CHARACTER}\n\n"
    "Rewrite:\n$response_text"
)
LATENT = Template(
    f"{EXAMPLES_HEADER}\n\n"
    "LATENT conditions that should stay FIXED - criterion says the sun rises in the east; "
    "rewrite has the morning sun in the west → F\n\n"
    'Criterion (latent conditions that should stay FIXED):\n"$eq4"\n\n'
    "For each condition: T only if the rewrite is consistent with it, F if the rewrite contradicts or alters it.\n\n"
    f"{ONE_CHARACTER}\n\n"
    "Rewrite:\n$response_text"
)


@dataclass(frozen=True)
class Criterion:
    """One error type: its code, the record field holding its criteria, and its judge prompt."""

    code: str
    name: str
    field: str | None  # None: a system-level check every response gets (connectors)
    template: Template
    placeholder: str | None


CRITERIA: tuple[Criterion, ...] = (
    Criterion("E1", "non-descendants unchanged", "should_not_change", UNCHANGED, "eq1"),
    Criterion("E2", "descendants changed", "should_change", CHANGED, "eq2"),
    Criterion("E3", "connectors correct", None, CONNECTORS, None),
    Criterion("E4", "numerical direction", "numerical_change", NUMERICAL, "eq3"),
    Criterion("E5", "latent factors kept", "latent_factors", LATENT, "eq4"),
)
CRITERION_CODES: tuple[str, ...] = tuple(c.code for c in CRITERIA)

#: sent after an answer that is not a single T or F
REASK = "Reply with exactly one character: T or F."


def build_messages(query: CoBeQuery) -> Messages:
    """The model's input: the scenario text, then the counterfactual request (as a user would ask)."""
    return [{"role": "user", "content": f"{query.text}\n\n{query.query}"}]


@dataclass(frozen=True)
class CriteriaSet:
    """The criterion lists of one row (a ``CoBeQuery`` or a metric reference)."""

    should_not_change: tuple[str, ...] = ()
    should_change: tuple[str, ...] = ()
    numerical_change: tuple[str, ...] = ()
    latent_factors: tuple[str, ...] = ()

    @classmethod
    def of(cls, row: CoBeQuery | Mapping[str, Any]) -> CriteriaSet:
        get = row.get if isinstance(row, Mapping) else lambda key, default: getattr(row, key, default)
        return cls(*(tuple(get(f.name, None) or ()) for f in fields(cls)))


def applicable_criteria(criteria: CriteriaSet) -> list[tuple[Criterion, str]]:
    """The criteria a row has, each with its criterion text (list items joined by a space)."""
    chosen = []
    for criterion in CRITERIA:
        if criterion.field is None:
            chosen.append((criterion, ""))
            continue
        items = getattr(criteria, criterion.field)
        if items:
            chosen.append((criterion, " ".join(items)))
    return chosen


def judge_messages(criterion: Criterion, criterion_text: str, response: str) -> Messages:
    """The judge's input for one criterion of one response."""
    values = {"response_text": response}
    if criterion.placeholder:
        values[criterion.placeholder] = criterion_text
    return [{"role": "user", "content": criterion.template.substitute(values)}]
