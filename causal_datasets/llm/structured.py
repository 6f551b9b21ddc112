"""Structured answers: find the JSON or YAML a model meant, validate it, repair the format if needed.

Extraction drops ``<think>…</think>`` reasoning, then takes the last fenced ```json (or ```yaml)
block, else the last unlabeled fenced block, else (JSON only) the last bare JSON object or array in
the prose. JSON may have trailing commas; YAML goes through the safe loader only
(libyaml's ``CSafeLoader`` when available: about 9× faster on long judge answers).

Replies are untrusted text: every step is linear in the reply's length, a reply longer than
``MAX_REPLY_CHARS`` or a structure nested deeper than ``MAX_NESTING`` is a ``parse`` error before any
recursive parser sees it (libyaml's composer recurses in C: 30,000 nested brackets crashed the
interpreter), and YAML aliases are refused (a few lines of them expand into billions of nodes).

``ask_structured`` asks, validates against a pydantic model (or a ``TypeAdapter``, or any callable
that returns the value or raises), and on failure spends the remaining attempts on either

* ``repair="format_fix"``: a separate, short call that shows a model the unreadable response and the
  required format and asks for the same content, correctly formatted (the ReCAST approach; may use a
  different ``repair_client``), or
* ``repair="reask"``: the conversation continued with the failed answer and a note of what was wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError

from causal_datasets.bounded_values import MAX_NESTING, SAFE_YAML_LOADER, BadValue, check_yaml_shape
from causal_datasets.errors import LLMError
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.config import Message
from causal_datasets.llm.thinking import strip_thinking

Format = Literal["json", "yaml"]
Schema = type[BaseModel] | TypeAdapter | Callable[[Any], Any]

_LANGUAGE = re.compile(r"[ \t]*([A-Za-z0-9_+.-]*)")
_LABELS = {"json": ("json", "jsonc", "json5"), "yaml": ("yaml", "yml")}
#: longest reply read (about 250k tokens); the deepest nesting accepted is :data:`MAX_NESTING`
MAX_REPLY_CHARS = 1_000_000


class StructuredError(ValueError):
    """No usable answer: ``kind`` is ``no_block`` (nothing found), ``parse`` (not valid JSON/YAML) or ``validation``."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


@dataclass(frozen=True)
class StructuredAnswer:
    """``value`` (validated) or ``error`` with ``error_kind``; ``attempts`` model calls made, ``raw`` their texts."""

    value: Any
    error: str | None
    attempts: int
    raw: list[str] = field(default_factory=list)
    error_kind: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


# -- extraction ---------------------------------------------------------------------------------
def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, content)`` of every fenced code block; an unclosed last fence runs to the end.

    A fence opens with ``` and the rest of its line (the language first), and closes at the next ```."""
    blocks, position = [], 0
    while (start := text.find("```", position)) != -1:
        line_end = text.find("\n", start)
        if line_end == -1:  # an opening fence needs a line of its own
            break
        match = _LANGUAGE.match(text, start + 3, line_end)  # it matches the empty word too: never None
        language = match.group(1).lower() if match else ""
        close = text.find("```", line_end + 1)
        blocks.append((language, text[line_end + 1 : close if close != -1 else len(text)]))
        if close == -1:
            break
        position = close + 3
    return blocks


def extract_json_block(text: str) -> Any:
    """The JSON value a reply ends with (see the module docstring); ``StructuredError`` if none."""
    text = strip_thinking(_bounded(text))
    block = _last_block(text, "json")
    if block is not None:
        return loads_lenient_json(block)
    values = bare_json_values(text)
    if not values:
        raise StructuredError("no_block", "no JSON code block or JSON object/array found in the reply")
    return values[-1]


def extract_yaml_block(text: str) -> Any:
    """The YAML mapping or list a reply ends with (a fenced block, else the whole reply); ``StructuredError``
    if none."""
    text = strip_thinking(_bounded(text))
    block = _last_block(text, "yaml")
    source = text if block is None else block
    if not source.strip():
        raise StructuredError("no_block", "the reply is empty")
    try:
        check_yaml_shape(source)
        value = yaml.load(source, Loader=SAFE_YAML_LOADER)
    except BadValue as error:
        raise StructuredError("parse", f"not valid YAML: {error}") from None
    except (yaml.YAMLError, ValueError) as error:  # ValueError: e.g. an integer of 5,000 digits, a lone surrogate
        raise StructuredError("parse", f"not valid YAML: {' '.join(str(error).split())[:200]}") from error
    if not isinstance(value, (dict, list)):
        kind = "parse" if block is not None else "no_block"
        raise StructuredError(kind, f"the YAML is a {type(value).__name__}, not a mapping or list")
    return value


def loads_lenient_json(text: str) -> Any:
    """``json.loads``, also accepting trailing commas before ``}``/``]``; ``StructuredError('parse')`` otherwise."""
    depth = max((d for _, _, d in _nesting(text)), default=0)
    if depth > MAX_NESTING:
        raise StructuredError("parse", f"not valid JSON: nested deeper than {MAX_NESTING}")
    return _loads_json(text)


def _loads_json(text: str) -> Any:
    """:func:`loads_lenient_json` for a text whose nesting is known to be within bounds."""
    try:
        return json.loads(text)
    except ValueError:  # JSONDecodeError, or e.g. an integer of 5,000 digits
        pass
    try:
        return json.loads(_drop_trailing_commas(text))
    except ValueError as error:
        raise StructuredError("parse", f"not valid JSON: {str(error)[:200]}") from error


def bare_json_values(text: str) -> list[Any]:
    """Every top-level JSON object or array embedded in prose, in order of appearance.

    One pass pairs the brackets (outside string literals); each balanced span, outermost first, is
    tried as JSON, and the spans inside one that parsed are skipped."""
    values, covered = [], 0
    for start, end, depth in sorted(_balanced_spans(text)):
        if start < covered:
            continue
        if depth > MAX_NESTING:  # too deep to read: neither it nor a fragment of it is a value
            covered = end
            continue
        try:  # the span's depth is its text's depth: loads_lenient_json would only measure it again
            values.append(_loads_json(text[start:end]))
        except StructuredError:
            continue
        covered = end
    return values


def _last_block(text: str, fmt: Format) -> str | None:
    blocks = fenced_blocks(text)
    labeled = [body for lang, body in blocks if lang in _LABELS[fmt]]
    unlabeled = [body for lang, body in blocks if not lang]
    chosen = labeled or unlabeled
    return chosen[-1] if chosen else None


def _scan(text: str, start: int):
    """Yield ``(index, char)`` of ``text[start:]`` outside JSON string literals (a literal shows as its
    opening quote)."""
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        yield index, char


#: a JSON string literal (to its closing quote, or to the end of an unclosed one) or a bracket
_LITERAL_OR_BRACKET = re.compile(r'"(?:[^"\\]+|\\.)*"?|[{}\[\]]', re.S)


def _brackets(text: str):
    """Yield ``(index, bracket)`` of every bracket of ``text`` outside JSON string literals: what
    :func:`_scan` yields, string literals and other characters left out, found by one regular expression."""
    for match in _LITERAL_OR_BRACKET.finditer(text):
        token = match.group()
        if token[0] != '"':
            yield match.start(), token


def _nesting(text: str):
    """Yield ``(start, end, depth)`` of every balanced ``{...}``/``[...]`` span outside string literals,
    ``depth`` the nesting inside it (1 for a flat one); a bracket that does not match starts afresh."""
    closers = {"{": "}", "[": "]"}
    # the open brackets as three parallel stacks of strings and integers: a container per bracket
    # would make the garbage collector rescan a deep stack again and again (superlinear time)
    expected: list[str] = []  # the closer each open bracket waits for
    starts: list[int] = []
    deepest: list[int] = []  # the nesting met inside it so far
    for index, char in _brackets(text):
        if char in closers:
            expected.append(closers[char])
            starts.append(index)
            deepest.append(0)
        elif char in "}]":
            if not expected or expected[-1] != char:
                for stack in (expected, starts, deepest):
                    stack.clear()
                continue
            expected.pop()
            start, inner = starts.pop(), deepest.pop()
            if deepest:
                deepest[-1] = max(deepest[-1], inner + 1)
            yield start, index + 1, inner + 1
    if expected:  # unclosed brackets still count towards the depth a parser would meet
        yield starts[0], len(text), len(expected)


def _balanced_spans(text: str) -> list[tuple[int, int, int]]:
    return [span for span in _nesting(text) if span[1] <= len(text) and text[span[1] - 1] in "}]"]


def _bounded(text: str) -> str:
    if len(text) > MAX_REPLY_CHARS:
        raise StructuredError("parse", f"the reply has {len(text)} characters, more than {MAX_REPLY_CHARS} are read")
    return text


def _drop_trailing_commas(text: str) -> str:
    drop: set[int] = set()
    last_comma: int | None = None
    for index, char in _scan(text, 0):
        if char == ",":
            last_comma = index
        elif char in "}]" and last_comma is not None:
            drop.add(last_comma)
            last_comma = None
        elif not char.isspace():
            last_comma = None
    return "".join(char for index, char in enumerate(text) if index not in drop)


# -- validation and repair ----------------------------------------------------------------------
def validate(value: Any, schema: Schema) -> Any:
    """``value`` checked (and converted) by ``schema``; ``StructuredError('validation')`` if it does not fit."""
    try:
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema.model_validate(value)
        if isinstance(schema, TypeAdapter):
            return schema.validate_python(value)
        convert: Callable[[Any], Any] = schema  # what the two checks above leave
        return convert(value)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in error.errors()[:5]
        )
        raise StructuredError("validation", f"does not match the expected structure: {problems}") from error
    except (ValueError, TypeError, KeyError) as error:
        raise StructuredError("validation", f"does not match the expected structure: {error}") from error


def format_description(fmt: Format, schema: Schema, hint: str | None = None) -> str:
    """How the answer must look, for repair prompts: ``hint``, else the JSON Schema of a pydantic schema."""
    if hint:
        return hint
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        json_schema = schema.model_json_schema()
    elif isinstance(schema, TypeAdapter):
        json_schema = schema.json_schema()
    else:
        return f"valid {fmt.upper()}"
    return f"{fmt.upper()} matching this JSON Schema: {json.dumps(json_schema, sort_keys=True)}"


def format_fix_messages(response: str, problem: str, fmt: Format, description: str) -> list[Message]:
    """A standalone request to re-format ``response`` without changing its content."""
    instructions = (
        f"You fix the formatting of answers. The response below was supposed to end with {fmt.upper()} in a "
        "required format, but a program could not read it. Write the answer the author intended in the required "
        "format. Keep the content exactly as intended: do not add, remove or improve anything, not even spelling; "
        f"change only what the format demands. If the formatting is badly broken, rebuild the {fmt.upper()} from "
        f"the content of the response. Reply with one ```{fmt} code block and nothing else."
    )
    request = (
        f"Required format: {description}\n\nWhy the response could not be read: {problem}\n\n"
        f"Response to fix:\n<<<\n{strip_thinking(response)}\n>>>"
    )
    return [{"role": "system", "content": instructions}, {"role": "user", "content": request}]


def reask_messages(
    messages: list[Message], response: str, problem: str, fmt: Format, description: str
) -> list[Message]:
    """The conversation continued: the failed answer, then a note of why it was rejected."""
    note = (
        f"Your previous answer was not usable: {problem}. Answer again, ending your reply with exactly one "
        f"```{fmt} code block. Required format: {description}"
    )
    return [*messages, {"role": "assistant", "content": response}, {"role": "user", "content": note}]


def ask_structured(
    client: ChatClient,
    messages: list[Message],
    *,
    schema: Schema,
    fmt: Format = "json",
    repair: Literal["format_fix", "reask"] = "format_fix",
    max_attempts: int = 3,
    repair_client: ChatClient | None = None,
    format_hint: str | None = None,
    **chat_overrides: Any,
) -> StructuredAnswer:
    """Ask for a structured answer; at most ``max_attempts`` model calls. Never raises for model trouble."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    extract = extract_json_block if fmt == "json" else extract_yaml_block
    description = format_description(fmt, schema, format_hint)
    raw: list[str] = []
    request, caller = messages, client
    problem = StructuredError("no_block", "no attempt made")
    for attempt in range(1, max_attempts + 1):
        try:
            text = caller.chat(request, **chat_overrides).text
        except LLMError as error:
            return StructuredAnswer(None, str(error), attempt, raw, error_kind=error.category)
        raw.append(text)
        try:
            return StructuredAnswer(validate(extract(text), schema), None, attempt, raw)
        except StructuredError as error:
            problem = error
        if repair == "format_fix":
            request, caller = format_fix_messages(text, str(problem), fmt, description), repair_client or client
        else:
            request = reask_messages(request, text, str(problem), fmt, description)
    return StructuredAnswer(None, str(problem), max_attempts, raw, error_kind=problem.kind)
