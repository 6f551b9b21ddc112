"""The CoBe judge: one T/F call per criterion a row has; a response is correct iff every criterion passes.

An answer must be a single T or F (surrounding whitespace, quotes, ``*`` and a final period are
tolerated). Anything else is re-asked in the same conversation (the invalid answer, then
:data:`~causal_datasets.cobe.prompts.REASK`) up to ``max_attempts`` times; a criterion that never
gets a valid answer, or whose call fails, is left unresolved with an error category rather than
guessed. A row with any failed criterion is ``wrong``; with all passed ``correct``; else ``unknown``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, TypeVar

from causal_datasets.cobe.prompts import REASK, CriteriaSet, Messages, applicable_criteria, judge_messages
from causal_datasets.cobe.scoring import ScoredRow
from causal_datasets.llm import LLMError
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.concurrency import map_concurrent

DEFAULT_ATTEMPTS = 3
T = TypeVar("T")
#: what may surround a T/F answer: quotes and markdown before and after, a full stop or ! after
_LEADING_DECORATION = "\"'`*_"
_TRAILING_DECORATION = "\"'`*_.!"

#: error categories of a criterion or a whole judged response
INVALID_ANSWER = "invalid_judge_answer"
EMPTY_RESPONSE = "empty_response"
JUDGE_EXCEPTION = "judge_exception"


@dataclass
class CriterionVerdict:
    """The judge's verdict on one criterion: passed True/False, or None with an ``error`` category."""

    code: str
    passed: bool | None
    answers: list[str] = field(default_factory=list)
    error: str | None = None
    error_detail: str | None = None


@dataclass
class Judgement:
    """All criterion verdicts of one response and the response's verdict."""

    verdict: str  # "correct" | "wrong" | "unknown"
    criteria: list[CriterionVerdict]
    error: str | None = None  # why the verdict is not a clean pass/fail, if it is not
    error_detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def scored(
        self, *, domain: str | None = None, graph_type: str | None = None, phrasing: str | None = None
    ) -> ScoredRow:
        """This judgement as a row for :func:`causal_datasets.cobe.scoring.summarize`."""
        passed = {c.code: c.passed for c in self.criteria}
        return ScoredRow(verdict=self.verdict, passed=passed, domain=domain, graph_type=graph_type, phrasing=phrasing)


def parse_tf(answer: str) -> bool | None:
    """``True`` for T, ``False`` for F, ``None`` for anything that is not a single T/F."""
    return {"T": True, "F": False, "TRUE": True, "FALSE": False}.get(_undecorated(answer or "").upper())


def _undecorated(text: str) -> str:
    """``text`` without whitespace and decoration at either end, in linear time (an anchored regex
    takes quadratic time on a long run of spaces)."""
    start, end = 0, len(text)
    while start < end and (text[start].isspace() or text[start] in _LEADING_DECORATION):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in _TRAILING_DECORATION):
        end -= 1
    return text[start:end]


@dataclass
class Asked(Generic[T]):
    """What :func:`ask_until_valid` got: the parsed value (None when none came), every answer, and why not."""

    value: T | None
    answers: list[str] = field(default_factory=list)
    error: str | None = None
    error_detail: str | None = None


def ask_until_valid(
    client: ChatClient,
    messages: Messages,
    parse: Callable[[str], T | None],
    reask: str,
    expected: str,
    max_attempts: int = DEFAULT_ATTEMPTS,
) -> Asked[T]:
    """Ask until ``parse`` accepts an answer or ``max_attempts`` are used; an invalid answer is sent back with
    ``reask`` in the same conversation. A failed call ends it with the call's category (``judge_<category>``),
    never raised; no valid answer is :data:`INVALID_ANSWER` (``expected`` says what was wanted)."""
    asked: Asked[T] = Asked(None)
    conversation = list(messages)
    for _ in range(max_attempts):
        try:
            answer = client.chat(conversation).text
        except LLMError as error:
            asked.error, asked.error_detail = f"judge_{error.category}", str(error)
            return asked
        asked.answers.append(answer)
        asked.value = parse(answer)
        if asked.value is not None:
            return asked
        conversation += [{"role": "assistant", "content": answer}, {"role": "user", "content": reask}]
    asked.error, asked.error_detail = INVALID_ANSWER, f"no {expected} in {max_attempts} attempts"
    return asked


def judge_criterion(
    client: ChatClient, code: str, messages: Messages, max_attempts: int = DEFAULT_ATTEMPTS
) -> CriterionVerdict:
    """Ask until a valid T/F answer or ``max_attempts``; a failed call is recorded, not raised."""
    asked = ask_until_valid(client, messages, parse_tf, REASK, "single T/F answer", max_attempts)
    return CriterionVerdict(
        code=code, passed=asked.value, answers=asked.answers, error=asked.error, error_detail=asked.error_detail
    )


def judge_response(
    client: ChatClient, criteria: CriteriaSet, response: str, max_attempts: int = DEFAULT_ATTEMPTS
) -> Judgement:
    """Judge ``response`` on every criterion the row has."""
    if not response.strip():
        return Judgement(verdict="wrong", criteria=[], error=EMPTY_RESPONSE)
    verdicts = [
        judge_criterion(client, criterion.code, judge_messages(criterion, text, response), max_attempts)
        for criterion, text in applicable_criteria(criteria)
    ]
    return Judgement(verdict=combine(v.passed for v in verdicts), criteria=verdicts, error=_first_error(verdicts))


def combine(passed) -> str:
    """Row verdict from criterion outcomes: any False → wrong; all True → correct; else unknown."""
    outcomes = list(passed)
    if any(p is False for p in outcomes):
        return "wrong"
    return "correct" if outcomes and all(p is True for p in outcomes) else "unknown"


def _first_error(criteria: list[CriterionVerdict]) -> str | None:
    return next((c.error for c in criteria if c.error), None)


def judge_all(
    client: ChatClient,
    rows: Sequence[CriteriaSet],
    responses: Sequence[str],
    *,
    max_attempts: int = DEFAULT_ATTEMPTS,
    concurrency: int = 4,
) -> list[Judgement]:
    """Judge many responses in input order; an unexpected failure on one becomes an ``unknown`` verdict."""
    if len(rows) != len(responses):
        raise ValueError(f"{len(responses)} responses for {len(rows)} rows")
    outcomes = map_concurrent(
        lambda pair: judge_response(client, pair[0], pair[1], max_attempts),
        list(zip(rows, responses, strict=True)),
        concurrency=concurrency,
        desc="judging",
    )
    return [
        outcome
        if isinstance(outcome, Judgement)
        else Judgement(
            verdict="unknown", criteria=[], error=JUDGE_EXCEPTION, error_detail=f"{type(outcome).__name__}: {outcome}"
        )
        for outcome in outcomes
    ]
