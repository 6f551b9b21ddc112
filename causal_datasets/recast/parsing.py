"""Read a model's graph answer: ``{"relationships": [{"source": …, "sink": …}]}`` → :class:`CausalGraph`.

The answer may carry reasoning (``<think>…</think>``), prose and several JSON drafts; the last
JSON object with a ``relationships`` list wins, as the paper's correction prompt prescribes. In
the name-assisted variant sources and sinks are node ids; ids that name no node are reported and
their relationships dropped, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from causal_datasets.graph import CausalGraph, GraphError
from causal_datasets.llm.structured import MAX_REPLY_CHARS, bare_json_values, strip_thinking


class AnswerFormatError(ValueError):
    """The answer holds no usable ``relationships`` JSON; the message says what was wrong."""


class Relationship(BaseModel):
    """One relationship as the model writes it (names or integer ids)."""

    model_config = ConfigDict(extra="ignore")

    source: str | int
    sink: str | int

    @field_validator("source", "sink")
    @classmethod
    def _not_blank(cls, value: str | int) -> str | int:
        if isinstance(value, str) and not value.strip():
            raise ValueError("must not be blank")
        return value


class GraphAnswer(BaseModel):
    """The JSON answer of the generation task (also the schema of the formatting correction)."""

    model_config = ConfigDict(extra="ignore")

    relationships: list[Relationship]


@dataclass(frozen=True)
class ParsedGraph:
    """A parsed answer: the graph plus what was tolerated (unknown ids, repeated edges)."""

    graph: CausalGraph
    unknown_ids: list[str] = field(default_factory=list)
    dropped_relationships: int = 0


def extract_answer(text: str) -> GraphAnswer:
    """The last ``{"relationships": [...]}`` object in ``text`` outside reasoning blocks.

    When only the reasoning holds one (an unclosed ``<think>``, say), that one is used.
    """
    found = _find_relationships(text)
    if found is None:
        raise AnswerFormatError("no JSON object with a 'relationships' list")
    try:
        return GraphAnswer.model_validate(found)
    except ValueError as invalid:
        raise AnswerFormatError(f"'relationships' JSON is malformed: {invalid}") from invalid


def _find_relationships(text: str) -> dict[str, Any] | None:
    """The answer object outside reasoning blocks, else the one inside them, else None."""
    return _last_relationships(strip_thinking(text)) or _last_relationships(text)


def _last_relationships(text: str) -> dict[str, Any] | None:
    """The last object with a ``relationships`` key among the reply's JSON values (at any depth)."""
    found = relationships_objects(text)
    return found[-1] if found else None


def relationships_objects(text: str) -> list[dict[str, Any]]:
    """Every object with a ``relationships`` key among the reply's JSON values (at any depth), in document order."""
    found = []
    # depth first, in document order: a stack holding the values still to visit, last one on top
    pending = bare_json_values(text)[::-1] if len(text) <= MAX_REPLY_CHARS else []  # bounded and linear
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            if "relationships" in value:
                found.append(value)
            pending.extend(reversed(value.values()))
        elif isinstance(value, list):
            pending.extend(reversed(value))
    return found


def answer_to_graph(answer: GraphAnswer, node_ids: dict[int, str] | None = None) -> ParsedGraph:
    """Names → graph; with ``node_ids`` (name-assisted) every end must be a known id (int or digits)."""
    if node_ids is None:
        try:
            edges = [(str(r.source), str(r.sink)) for r in answer.relationships]
            return ParsedGraph(CausalGraph.from_edges(edges))
        except GraphError as error:
            raise AnswerFormatError(str(error)) from error
    edges = []
    unknown: list[str] = []
    for relationship in answer.relationships:
        source, sink = (_node_for_id(end, node_ids) for end in (relationship.source, relationship.sink))
        if source is None or sink is None:
            unknown.extend(
                str(end) for end, name in ((relationship.source, source), (relationship.sink, sink)) if name is None
            )
            continue
        edges.append((source, sink))
    return ParsedGraph(
        CausalGraph.from_edges(edges),
        unknown_ids=list(dict.fromkeys(unknown)),
        dropped_relationships=len(answer.relationships) - len(edges),
    )


def parse_graph_answer(text: str, node_ids: dict[int, str] | None = None) -> ParsedGraph:
    """:func:`extract_answer` then :func:`answer_to_graph`; raises :class:`AnswerFormatError`."""
    return answer_to_graph(extract_answer(text), node_ids)


def _node_for_id(token: str | int, node_ids: dict[int, str]) -> str | None:
    if isinstance(token, str):
        token = token.strip()
        if not token.isdigit():
            return None
        token = int(token)
    return node_ids.get(token)


def read_prediction(text: str) -> CausalGraph:
    """A prediction given as text: a model answer with ``relationships`` JSON, else one ``A -> B``
    per line (a line without an arrow is a lone node; commas stay inside names). The word
    "relationships" in a node name (``Trade relationships -> GDP``) is just a name: only a JSON
    object with a ``relationships`` key makes the text a JSON answer.

    Raises :class:`AnswerFormatError` when it is neither (or the JSON answer is malformed).
    """
    if "relationships" in text and _find_relationships(text) is not None:
        return parse_graph_answer(text).graph
    try:
        graph = CausalGraph.parse(text, lines=True)
    except GraphError as error:
        raise AnswerFormatError(f"prediction is neither relationships JSON nor 'A -> B' lines: {error}") from error
    if graph.bidirected:
        a, b = graph.bidirected[0]
        raise AnswerFormatError(
            f"prediction has {a} <-> {b}, a latent common cause, where directed edges were asked for"
        )
    return graph
