"""The paper's failure patterns (its Table 2), read off a wrong answer and the states the model saw.

Checked in this order on a wrong yes/no answer:

* ``illusive_confounder`` — a false "no" although the evidence for "yes" was observed: the effect
  started moving when the cause was moved with both static, or stopped when the cause was held;
* ``root_cause`` — a false "no" after every shape had become static;
* ``reverse_collider`` — a false "no" while the cause and the effect were last seen out of sync;
* ``correlation`` — a false "yes" where the cause and the effect always had the same state;
* ``uncategorized`` — any other wrong answer.

Episodes answered correctly or without a valid answer have no pattern (``None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Literal, get_args

FailurePattern = Literal["illusive_confounder", "root_cause", "reverse_collider", "correlation", "uncategorized"]
FAILURE_PATTERNS: tuple[FailurePattern, ...] = get_args(FailurePattern)


def failure_pattern(
    gold: str,
    prediction: str | None,
    cause: str,
    effect: str,
    observations: Sequence[set[str]],
    actions: Sequence[tuple[str, str]],
) -> FailurePattern | None:
    """``observations[i]``: the moving shapes before action ``i`` (one more observation than actions)."""
    if prediction is None or prediction == gold:
        return None
    last = observations[-1]
    if prediction == "no":
        if _saw_yes_evidence(cause, effect, observations, actions):
            return "illusive_confounder"
        if not last:
            return "root_cause"
        if (cause in last) != (effect in last):
            return "reverse_collider"
        return "uncategorized"
    if all((cause in seen) == (effect in seen) for seen in observations):
        return "correlation"
    return "uncategorized"


def _saw_yes_evidence(
    cause: str, effect: str, observations: Sequence[set[str]], actions: Sequence[tuple[str, str]]
) -> bool:
    for (before, after), (shape, action) in zip(pairwise(observations), actions, strict=True):
        if shape != cause:
            continue
        if action == "move" and not {cause, effect} & before and effect in after:
            return True
        if action == "hold" and {cause, effect} <= before and not {cause, effect} & after:
            return True
    return False
