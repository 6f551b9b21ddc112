"""The normalization loop: an LLM removes explicit references to the causal graph through
``normalize(start, end, replacement)`` edits that code checks before applying.

Each round asks for edits to the current text. A round's edits are accepted only together and
only if every ``start`` occurs in the text, an ``end`` follows it, and no two spans overlap;
otherwise the model is told what was wrong and asked again (up to ``max_attempts``). Accepted
edits are applied at once; rounds repeat until the model returns no edits (converged) or
``max_rounds`` is reached.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from pydantic import BaseModel, ConfigDict

from causal_datasets.llm.chat import ChatClient
from causal_datasets.recast.raw.prompts import NORMALIZE, ask_json, normalize_request


class Edit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: str
    end: str
    replacement: str


class EditBatch(BaseModel):
    model_config = ConfigDict(extra="ignore")
    normalizations: list[Edit]


@dataclass(frozen=True)
class Span:
    begin: int
    stop: int
    replacement: str


@dataclass
class NormalizationLog:
    text: str
    converged: bool = False
    rounds: int = 0
    applied: list[dict[str, str]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    error: str | None = None


def locate(edits: list[Edit], text: str) -> list[Span]:
    """Spans of ``edits`` in ``text``; ``ValueError`` naming the first edit that is not valid."""
    spans = []
    for number, edit in enumerate(edits, start=1):
        if not edit.start or not edit.end:
            raise ValueError(f"edit {number}: start and end must not be empty")
        begin = text.find(edit.start)
        if begin < 0:
            raise ValueError(f"edit {number}: start {edit.start[:80]!r} does not occur in the text")
        end_at = text.find(edit.end, begin)
        if end_at < 0:
            raise ValueError(f"edit {number}: end {edit.end[:80]!r} does not occur after its start")
        spans.append(Span(begin, end_at + len(edit.end), edit.replacement))
    ordered = sorted(spans, key=lambda s: s.begin)
    for first, second in pairwise(ordered):
        if second.begin < first.stop:
            raise ValueError(f"edits overlap at characters {second.begin}–{first.stop}; make them disjoint")
    return ordered


def apply(spans: list[Span], text: str) -> str:
    """``text`` with every (non-overlapping, ordered) span replaced."""
    for span in reversed(spans):
        text = text[: span.begin] + span.replacement + text[span.stop :]
    return text


def _located_batch(text: str, value: Any) -> tuple[EditBatch, list[Span]]:
    """The reply's edit batch and its edits located in ``text`` (the schema of a round's answer)."""
    batch = EditBatch.model_validate(value)
    return batch, locate(batch.normalizations, text)


def normalize_text(
    client: ChatClient, text: str, graph_text: str, *, max_rounds: int = 8, max_attempts: int = 3
) -> NormalizationLog:
    """Run the loop on ``text`` with the graph (``source -> sink`` lines) as reference."""
    log = NormalizationLog(text=text)
    while log.rounds < max_rounds:
        log.rounds += 1
        current = log.text
        answer = ask_json(
            client,
            NORMALIZE,
            normalize_request(graph_text, current),
            functools.partial(_located_batch, current),
            max_attempts,
        )
        failed = answer.raw if answer.value is None else answer.raw[:-1]
        log.rejected.extend(f"round {log.rounds}: {raw[:200]}" for raw in failed)
        if answer.value is None:
            log.error = f"round {log.rounds}: no valid edits after {answer.attempts} attempt(s): {answer.error}"
            return log
        batch, spans = answer.value
        if not spans:
            log.converged = True
            return log
        log.text = apply(spans, current)
        log.applied.extend(edit.model_dump() for edit in batch.normalizations)
    log.error = f"not converged after {max_rounds} rounds"
    return log
