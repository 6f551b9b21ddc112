"""The one reader of the files a folder given to the package holds: run summaries, result lines, manifests, cards.

Such a file may be torn, corrupted or hostile, so every read has limits: a file of at most :data:`MAX_FILE_BYTES`,
a line of at most :data:`MAX_LINE_BYTES`, text that is UTF-8, and JSON nested at most :data:`MAX_DEPTH` deep
(Python's parser would overflow the stack on 100,000 ``[``). Breaking one is a single typed error naming the file
(and the line), never a traceback from inside.

:func:`read_json_lines` reads a JSON-lines file line by line and keeps what it cannot read apart
(:class:`JsonLines`): the writer of a run resumes past a torn line; a reader that must see every line (an export,
``rescore``, ``compare``) calls :meth:`JsonLines.check`, which refuses the first one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_datasets.errors import CausalDatasetsError, UnreadableFile

#: the largest file read whole (a summary, a manifest, a card) or line by line (a results file)
MAX_FILE_BYTES = 4 << 30
#: the largest single line of a JSON-lines file
MAX_LINE_BYTES = 256 << 20
#: the deepest nesting of arrays and objects a JSON value may have (a result line nests about ten deep)
MAX_DEPTH = 100


def read_bytes(path: Path, error: type[CausalDatasetsError] = UnreadableFile, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path``, a file of at most ``max_bytes``; else ``error`` naming it."""
    path = Path(path)
    try:
        if not path.is_file():
            raise error(f"{path} is not a file")
        size = path.stat().st_size
        if size > max_bytes:
            raise error(f"{path} is {size:,} bytes, over the {max_bytes:,} this reader takes")
        return path.read_bytes()
    except OSError as problem:
        raise error(f"{path} cannot be read: {problem.strerror or problem}") from None


def decode(data: bytes, where: str, error: type[CausalDatasetsError] = UnreadableFile) -> str:
    """``data`` as UTF-8 text; else ``error`` naming ``where`` and the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as problem:
        bad = data[problem.start : problem.start + 1].hex()
        raise error(f"{where} is not UTF-8 text: byte 0x{bad} at offset {problem.start}") from None


def read_text(path: Path, error: type[CausalDatasetsError] = UnreadableFile, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of ``path`` (at most ``max_bytes``); else ``error`` naming it."""
    return decode(read_bytes(path, error, max_bytes), str(path), error)


def parse_json(text: str | bytes, where: str, error: type[CausalDatasetsError] = UnreadableFile) -> Any:
    """The JSON value of ``text``: not JSON, not UTF-8 or nested over :data:`MAX_DEPTH` is ``error`` naming
    ``where``."""
    if isinstance(text, bytes):
        text = decode(text, where, error)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as problem:
        raise error(f"{where} is not valid JSON: {problem}") from None
    except RecursionError:
        raise error(f"{where} is not valid JSON: nested over {MAX_DEPTH} deep") from None
    if depth(value) > MAX_DEPTH:
        raise error(f"{where} is not valid JSON: nested over {MAX_DEPTH} deep")
    return value


def read_json(path: Path, error: type[CausalDatasetsError] = UnreadableFile, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """The JSON value of the file ``path`` (see :func:`parse_json`)."""
    return parse_json(read_bytes(path, error, max_bytes), str(path), error)


def read_json_object(path: Path, error: type[CausalDatasetsError], missing: str, what: str) -> dict[str, Any]:
    """The JSON object in the file ``path`` (see :func:`read_json`); ``error`` saying ``missing`` when there is no
    such file, or that it is not ``what`` (a JSON object) when it holds another value."""
    if not path.is_file():
        raise error(missing)
    value = read_json(path, error)
    if not isinstance(value, dict):
        raise error(f"{path} is not {what} (a JSON object)")
    return value


def depth(value: Any) -> int:
    """How deep arrays and objects nest in ``value`` (0 for a scalar), counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, level = stack.pop()
        children = current.values() if isinstance(current, dict) else current if isinstance(current, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


@dataclass(frozen=True)
class Unreadable:
    """A line of a JSON-lines file that could not be read: its number (from 1) and why."""

    number: int
    reason: str


@dataclass(frozen=True)
class JsonLines:
    """The lines of a JSON-lines file: the JSON objects read (with their line numbers) and the lines that were not."""

    path: Path
    lines: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)

    @property
    def values(self) -> list[dict[str, Any]]:
        return [value for _, value in self.lines]

    def check(self, error: type[CausalDatasetsError] = UnreadableFile, hint: str = "") -> JsonLines:
        """``self`` when every line was read; else ``error`` naming the first line that was not (and how many)."""
        if not self.unreadable:
            return self
        first, count = self.unreadable[0], len(self.unreadable)
        more = f" ({count} unreadable lines in all)" if count > 1 else ""
        raise error(f"{self.path} line {first.number}: {first.reason}{more}{'; ' + hint if hint else ''}")


def read_json_lines(path: Path, required: str = "id", max_bytes: int = MAX_FILE_BYTES) -> JsonLines:
    """Every line of the JSON-lines file ``path`` (none when it is missing): a JSON object holding ``required``,
    or an :class:`Unreadable` (torn, not UTF-8, not JSON, too deep or too long, not such an object). A file over
    ``max_bytes`` is an :class:`UnreadableFile`."""
    path = Path(path)
    if not path.exists():
        return JsonLines(path)
    found = JsonLines(path)
    data = read_bytes(path, max_bytes=max_bytes)
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for number, piece in enumerate(pieces, start=1):
        if not piece.strip():
            continue
        if len(piece) > MAX_LINE_BYTES:
            found.unreadable.append(
                Unreadable(number, f"{len(piece):,} bytes, over the {MAX_LINE_BYTES:,} a line may have")
            )
            continue
        try:
            value = parse_json(piece, "the line")
        except UnreadableFile as problem:
            torn = number == len(pieces) and not data.endswith(b"\n")
            found.unreadable.append(Unreadable(number, "torn (a write that did not finish)" if torn else str(problem)))
            continue
        if not isinstance(value, dict) or required not in value:
            found.unreadable.append(Unreadable(number, f"the line is not a JSON object with {required!r}"))
            continue
        found.lines.append((number, value))
    return found
