"""The CausaLab DSL: one JSON object per step (memory, thought, past_data, hypothesis, experiment)
plus the step's action, typed models for it, and a tolerant parser.

Tolerated: text or code fences around the object, trailing commas, numbers given as strings,
edges as ``{"from","to"}`` / ``{"source","target"}`` / ``[a, b]`` / ``"a -> b"``, property aliases
(``freq``, ``frequency`` … → ``resonanceFreq``). What cannot be read is reported in
:attr:`ParsedStep.error` (no JSON object, not an object) or :attr:`ParsedStep.warnings` (a part that
was dropped), never raised.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.causalab.properties import normalize_name
from causal_datasets.graph import GraphError, parse_edge
from causal_datasets.llm.structured import MAX_REPLY_CHARS, bare_json_values, fenced_blocks

SUBMIT_TARGETS = {"submit", "set_reactor_frequency", "reactor", "reactor_frequency", "prediction"}


class DslEdge(BaseModel):
    source: str
    target: str


class Hypothesis(BaseModel):
    """The scored artifact of a step: edges, the frequency equation and its coefficients."""

    edges: list[DslEdge] = Field(default_factory=list)
    freq_equation: str = ""
    coefficients: dict[str, float] = Field(default_factory=dict)


class Experiment(BaseModel):
    """The planned intervention (``target_prop``/``target_value``); empty when none is planned."""

    target_prop: str | None = None
    target_value: float | None = None
    purpose: str = ""


class PastRecord(BaseModel):
    id: str = ""
    props: dict[str, float] = Field(default_factory=dict)
    freq: float | None = None


class DslStep(BaseModel):
    memory: str = ""
    thought: str = ""
    past_data: list[PastRecord] = Field(default_factory=list)
    hypothesis: Hypothesis = Field(default_factory=Hypothesis)
    experiment: Experiment = Field(default_factory=Experiment)
    #: the step's action: "intervene", "submit" or another verb the agent used
    action: str = ""
    prediction: float | None = None


@dataclass
class ParsedStep:
    step: DslStep | None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


def read_json_stream(text: str) -> list[Any]:
    """Values of a stream of JSON documents written back to back (pretty-printed or JSONL)."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    index = 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return values
        value, index = decoder.raw_decode(text, index)
        values.append(value)


def extract_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model reply (inside a code fence or bare), or None.

    The search is bounded and linear (see :mod:`causal_datasets.llm.structured`): a reply too long or
    nested too deeply holds no object."""
    if len(text) > MAX_REPLY_CHARS:
        return None
    for candidate in [body for _, body in fenced_blocks(text)] + [text]:
        found = next((value for value in bare_json_values(candidate) if isinstance(value, dict)), None)
        if found is not None:
            return found
    return None


def parse_step(source: str | dict[str, Any]) -> ParsedStep:
    """Parse one step from a model reply or an already decoded object."""
    raw = extract_object(source) if isinstance(source, str) else source
    if raw is None:
        return ParsedStep(None, "no JSON object in the reply")
    if not isinstance(raw, dict):
        return ParsedStep(None, f"a step must be a JSON object, got {type(raw).__name__}")
    warnings: list[str] = []
    step = DslStep(
        memory=_text(raw.get("memory")),
        thought=_text(raw.get("thought")),
        past_data=_past_data(raw.get("past_data"), warnings),
        hypothesis=parse_hypothesis(raw.get("hypothesis"), warnings),
        experiment=_experiment(raw.get("experiment"), warnings),
    )
    step.action, step.prediction = _action(raw, step.experiment, warnings)
    return ParsedStep(step, None, warnings)


def parse_hypothesis(raw: Any, warnings: list[str] | None = None) -> Hypothesis:
    """A hypothesis from its JSON value; unreadable parts are dropped with a warning."""
    warnings = warnings if warnings is not None else []
    if raw in (None, "", {}):
        return Hypothesis()
    if not isinstance(raw, dict):
        warnings.append(f"hypothesis is not an object: {raw!r:.80}")
        return Hypothesis()
    edges = []
    for item in raw.get("edges") or []:
        edge = _edge(item)
        if edge is None:
            warnings.append(f"unreadable edge {item!r:.80}")
        else:
            edges.append(edge)
    coefficients = {}
    raw_coefficients = raw.get("coefficients") or {}
    if not isinstance(raw_coefficients, dict):
        warnings.append("coefficients is not an object")
        raw_coefficients = {}
    for name, value in raw_coefficients.items():
        number = _number(value)
        if number is None:
            warnings.append(f"coefficient {name} is not a number: {value!r:.40}")
        else:
            coefficients[str(name).strip()] = number
    return Hypothesis(edges=edges, freq_equation=_text(raw.get("freq_equation")), coefficients=coefficients)


def _edge(item: Any) -> DslEdge | None:
    if isinstance(item, dict):
        pairs = (("from", "to"), ("source", "target"), ("parent", "child"), ("cause", "effect"))
        ends = next(((item[a], item[b]) for a, b in pairs if a in item and b in item), None)
    elif isinstance(item, (list, tuple)) and len(item) == 2:
        ends = tuple(item)
    elif isinstance(item, str):
        try:
            ends = parse_edge(item)
        except GraphError:
            ends = None
    else:
        ends = None
    if ends is None or not all(isinstance(e, str) and e.strip() for e in ends):
        return None
    return DslEdge(source=normalize_name(ends[0]), target=normalize_name(ends[1]))


def _past_data(raw: Any, warnings: list[str]) -> list[PastRecord]:
    records = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            warnings.append(f"past_data item is not an object: {item!r:.60}")
            continue
        props = {normalize_name(k): n for k, v in (item.get("props") or {}).items() if (n := _number(v)) is not None}
        records.append(PastRecord(id=_text(item.get("id")), props=props, freq=_number(item.get("freq"))))
    return records


def _experiment(raw: Any, warnings: list[str]) -> Experiment:
    if not isinstance(raw, dict):
        if raw not in (None, ""):
            warnings.append(f"experiment is not an object: {raw!r:.60}")
        return Experiment()
    prop = raw.get("target_prop")
    prop = normalize_name(prop) if isinstance(prop, str) and prop.strip() else None
    return Experiment(
        target_prop=prop, target_value=_number(raw.get("target_value")), purpose=_text(raw.get("purpose"))
    )


def _action(raw: dict[str, Any], experiment: Experiment, warnings: list[str]) -> tuple[str, float | None]:
    """``submit`` with a prediction, ``intervene`` with an experiment, or the verb the agent used."""
    verb = _text(raw.get("action")).strip().lower()
    prediction = _number(raw.get("prediction"))
    if verb == "submit" or prediction is not None:
        for key in ("value", "answer"):
            if prediction is None:
                prediction = _number(raw.get(key))
        if prediction is None and (experiment.target_prop or "").lower() in SUBMIT_TARGETS:
            prediction = experiment.target_value
        if prediction is None:
            warnings.append("submit without a numeric prediction")
        return "submit", prediction
    if (experiment.target_prop or "").lower() in SUBMIT_TARGETS:
        return "submit", experiment.target_value
    if verb in ("", "intervene") and experiment.target_prop and experiment.target_value is not None:
        return "intervene", None
    return verb, None


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        value = value.strip().replace("−", "-").rstrip("Hz").strip()
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
