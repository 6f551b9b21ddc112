"""Reading the three JSON replies of the protocol out of free model text.

A reply may wrap its JSON in prose or a code fence, and chain-of-thought replies may quote the
template before filling it in, so the *last* JSON object carrying the expected key(s) wins, a filled-in
one before an empty one; ``<think>`` sections are ignored. Values are
compared after lower-casing and trimming whitespace and trailing full stops. What cannot be read
becomes a typed failure:

* no JSON object with the expected key(s) → ``invalid_format`` (the episode ends);
* an ``answer`` that is neither yes nor no → ``invalid_answer``.

Unknown shapes or actions are not judged here: the simulator reports them (``invalid_action``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from causal_datasets.llm.structured import bare_json_values, strip_thinking

CHOICES = {"continue interaction": "continue", "answer the question": "answer"}
#: replies kept with their reading: the reference agents send a handful of distinct replies thousands of times
#: (a build's ``prompts`` rows play 5,136 episodes), and a reading is a pure function of the text
CACHED_REPLIES = 4096
ANSWERS = ("yes", "no")

ParseError = Literal["invalid_format", "invalid_answer"]


@dataclass(frozen=True)
class Parsed:
    """A reply read as one protocol message: ``value`` or ``error`` (with a human-readable ``detail``);
    one object per distinct reply text (the readings are cached), never changed."""

    value: Any = None
    error: ParseError | None = None
    detail: str = ""


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in ``text`` outside ``<think>`` sections, in order of appearance."""
    return [value for value in bare_json_values(strip_thinking(text)) if isinstance(value, dict)]


@lru_cache(maxsize=CACHED_REPLIES)
def parse_action(text: str, key: str = "shape") -> Parsed:
    """``{"shape": ..., "action": ...}`` → ``(shape, action)``, normalized but not validated; ``key``
    is the theme's noun (``{"animal": ...}`` under the animals theme)."""
    obj = _last_with(text, (key, "action"))
    if obj is None:
        return Parsed(error="invalid_format", detail=f'no JSON object with "{key}" and "action"')
    return Parsed(value=(_normal(obj[key]), _normal(obj["action"])))


@lru_cache(maxsize=CACHED_REPLIES)
def parse_choice(text: str) -> Parsed:
    """``{"next": "continue interaction" | "answer the question"}`` → ``"continue"`` or ``"answer"``."""
    obj = _last_with(text, ("next",))
    if obj is None:
        return Parsed(error="invalid_format", detail='no JSON object with "next"')
    choice = CHOICES.get(_normal(obj["next"])) if isinstance(obj["next"], str) else None
    if choice is None:
        return Parsed(error="invalid_format", detail=f'"next" is {obj["next"]!r}, not one of {list(CHOICES)}')
    return Parsed(value=choice)


@lru_cache(maxsize=CACHED_REPLIES)
def parse_answer(text: str) -> Parsed:
    """``{"answer": "yes" | "no"}`` → ``"yes"`` or ``"no"``."""
    obj = _last_with(text, ("answer",))
    if obj is None:
        return Parsed(error="invalid_format", detail='no JSON object with "answer"')
    answer = _normal(obj["answer"])
    if answer not in ANSWERS:
        return Parsed(error="invalid_answer", detail=f'"answer" is {obj["answer"]!r}, not "yes" or "no"')
    return Parsed(value=answer)


def _last_with(text: str, keys: tuple[str, ...]) -> dict[str, Any] | None:
    candidates = [obj for obj in json_objects(text) if all(key in obj for key in keys)]
    filled = [obj for obj in candidates if any(_normal(obj[key]) for key in keys)]
    found = filled or candidates
    return found[-1] if found else None


def normal_text(text: str) -> str:
    """How a reply's value is compared: lower-cased, whitespace runs as one space, no trailing full stop."""
    return " ".join(text.split()).lower().rstrip(".")


def _normal(value: Any) -> Any:
    return normal_text(value) if isinstance(value, str) else value
