"""What a completion must be to earn any reward, beyond being right: not over-long, one answer stated.

Every reward in :mod:`causal_datasets.rewards` and every ``score_answer`` of :mod:`causal_datasets.gym` gives
the lowest reward to a completion longer than :data:`MAX_COMPLETION_CHARS` (the answer appended to padding, or
padding appended to it, is not an answer a trainer should pay for), to one stating several different answers
(``Answer: no`` then ``Answer: yes``; two JSON answers; a yes-or-no hedge) or the same one more than
:data:`MAX_STATEMENTS` times, and, for an expression, to one
holding a numeric constant no estimand needs (beyond ``10**6`` or below ``10**-6`` in magnitude, such as
``+ 1e20 * (P(Y) - P(Y))``): a verifier's arithmetic is exact, but a padded answer is a shape a policy can
learn to exploit wherever a check is not. tests/test_reward_gaming.py holds the shapes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from causal_datasets.docalc.expr import Expr, Num, children

#: the longest completion any reward pays for (about 8,000 tokens)
MAX_COMPLETION_CHARS = 32_000
#: the magnitudes an estimand's numeric constants stay within
LARGEST_CONSTANT = 10**6
#: the most times a completion may state its answer (a final line and a restatement or two)
MAX_STATEMENTS = 3


def over_length(text: str) -> bool:
    return len(text) > MAX_COMPLETION_CHARS


def statement_problem(values: Iterable[Any]) -> str | None:
    """What is wrong with the answers a completion states (``values``, in order), as a reward's reason:
    ``several_answers`` (different ones), ``repeated_answers`` (more than :data:`MAX_STATEMENTS`), or None."""
    values = list(values)
    if several(values):
        return "several_answers"
    return "repeated_answers" if len(values) > MAX_STATEMENTS else None


def several(values: Iterable[Any]) -> bool:
    """Whether ``values`` (answers a completion states) hold more than one answer: texts compared with case and
    whitespace ignored, anything else as sorted JSON."""
    return len({_normal(value) for value in values}) > 1


def _normal(value: Any) -> str:
    if isinstance(value, str):
        return " ".join(value.split()).lower().rstrip(".")
    return json.dumps(value, sort_keys=True, default=str)


def extreme_constant(expression: Expr) -> bool:
    """Whether ``expression`` holds a nonzero number beyond :data:`LARGEST_CONSTANT` or below its inverse."""
    if isinstance(expression, Num) and expression.value:
        return not 1 / LARGEST_CONSTANT <= abs(expression.value) <= LARGEST_CONSTANT
    return any(extreme_constant(child) for child in children(expression))
