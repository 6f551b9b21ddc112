"""One generation-task attempt per sample: ask the model, parse, fall back to a formatting fix.

Every outcome is classified (``error`` is ``None`` on success):

* ``context_exceeded`` — the sample does not fit the model's context window: found before the call
  (:meth:`LLMClient.check_context`, when the window is known) or refused by the server for that
  reason; excluded from the scores, as in the paper;
* ``llm_error`` — the model call itself failed (network, HTTP, retries exhausted);
* ``format_error`` — no usable JSON, and the formatting-correction step did not produce any;
* ``empty_graph`` — a well-formed answer with no relationships;
* ``unknown_node_ids`` — name-assisted only: every relationship used ids that name no node.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

from causal_datasets.graph import CausalGraph
from causal_datasets.llm import LLMError
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.context import is_context_overflow
from causal_datasets.llm.structured import ask_structured
from causal_datasets.recast.parsing import (
    AnswerFormatError,
    GraphAnswer,
    ParsedGraph,
    answer_to_graph,
    parse_graph_answer,
)
from causal_datasets.recast.prompts import build_messages, correction_messages, node_ids
from causal_datasets.recast.records import RecastSample

GenerationError = Literal["context_exceeded", "llm_error", "format_error", "empty_graph", "unknown_node_ids"]
GENERATION_ERRORS: tuple[str, ...] = get_args(GenerationError)


class Generation(BaseModel):
    """What happened for one sample: raw texts, the parsed graph and the classification."""

    sample_id: int
    name_assisted: bool
    raw_answer: str | None = None
    completion_tokens: int | None = None  # of the answer (reasoning trace included), as the server counts them
    context: dict[str, Any] | None = None  # the context check before the call (prompt tokens, how counted, limit)
    corrected: bool = False
    correction_raw: list[str] = Field(default_factory=list)
    edges: list[tuple[str, str]] = Field(default_factory=list)
    nodes: list[str] = Field(default_factory=list)
    unknown_ids: list[str] = Field(default_factory=list)
    dropped_relationships: int = 0
    error: GenerationError | None = None
    error_detail: str | None = None

    def graph(self) -> CausalGraph:
        return CausalGraph.from_edges(self.edges, nodes=self.nodes)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()


def generate(
    client: ChatClient,
    sample: RecastSample,
    *,
    name_assisted: bool = False,
    corrector: ChatClient | None = None,
    max_attempts: int = 3,
    check_context: bool = True,
) -> Generation:
    """Run the task on ``sample`` with ``client``; ``corrector`` (default: the same client) fixes formats.

    ``check_context``: first ask whether the prompt fits the model's context window (clients without
    ``check_context``, e.g. a scripted one, are not asked)."""
    outcome = Generation(sample_id=sample.id, name_assisted=name_assisted)
    ids = node_ids(sample) if name_assisted else None
    messages = build_messages(sample, name_assisted=name_assisted)
    check = client.check_context(messages) if check_context and hasattr(client, "check_context") else None
    if check is not None:
        outcome.context = asdict(check) | {"fits": check.fits}
        if check.fits is False:
            return _failed(outcome, "context_exceeded", check.describe())
    try:
        reply = client.chat(messages)
    except LLMError as error:
        return _failed(outcome, "context_exceeded" if is_context_overflow(error) else "llm_error", str(error))
    outcome.raw_answer, outcome.completion_tokens = reply.text, reply.completion_tokens
    parsed: ParsedGraph | None
    try:
        parsed = parse_graph_answer(outcome.raw_answer, ids)
    except AnswerFormatError as first_error:
        parsed = _corrected(outcome, corrector or client, sample, ids, str(first_error), max_attempts)
    if parsed is None:
        return outcome
    outcome.edges = list(parsed.graph.edges)
    outcome.nodes = list(parsed.graph.nodes)
    outcome.unknown_ids = parsed.unknown_ids
    outcome.dropped_relationships = parsed.dropped_relationships
    if not outcome.edges:
        if parsed.dropped_relationships:
            return _failed(outcome, "unknown_node_ids", f"ids {parsed.unknown_ids} name no node")
        return _failed(outcome, "empty_graph", "the answer has no relationships")
    return outcome


def _corrected(
    outcome: Generation,
    corrector: ChatClient,
    sample: RecastSample,
    ids: dict[int, str] | None,
    why: str,
    max_attempts: int,
) -> ParsedGraph | None:
    """The paper's formatting-correction step; ``None`` (and ``outcome`` classified) if it fails."""
    messages = correction_messages(sample, outcome.raw_answer or "", name_assisted=ids is not None)
    answer = ask_structured(
        corrector, messages, schema=GraphAnswer, fmt="json", repair="format_fix", max_attempts=max_attempts
    )
    outcome.correction_raw = list(answer.raw)
    if answer.value is None:
        _failed(outcome, "format_error", f"{why}; correction failed ({answer.error_kind}): {answer.error}")
        return None
    outcome.corrected = True
    try:
        return answer_to_graph(answer.value, ids)
    except AnswerFormatError as error:
        _failed(outcome, "format_error", f"{why}; corrected answer unusable: {error}")
        return None


def _failed(outcome: Generation, error: GenerationError, detail: str) -> Generation:
    outcome.error = error
    outcome.error_detail = detail
    return outcome
