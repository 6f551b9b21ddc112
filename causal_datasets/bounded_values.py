"""Options files and JSON values read within limits, and checked before anything uses them.

What a user hands the command line as settings (``--extra-body`` and every JSON flag, a ``--model-config``
or ``--prices`` file) is read here: a file of at most :data:`MAX_OPTIONS_BYTES` bytes that is UTF-8 text,
YAML without aliases (a few lines of them expand into billions of nodes) or JSON without ``NaN`` /
``Infinity``, nested at most :data:`MAX_NESTING` deep, and a value whose numbers are finite and whose text
every writer can encode (no lone surrogate). Anything else is a :class:`BadValue` (a ``ValueError``) that
says what is wrong in one line; callers name the flag or the file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml

SAFE_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: largest options file or JSON flag value read
MAX_OPTIONS_BYTES = 1_000_000
#: deepest nesting of a JSON or YAML structure accepted
MAX_NESTING = 64


class BadValue(ValueError):
    """An options file or value that is too large, not readable or not a value a request can carry."""


def read_options_text(path: Path) -> str:
    """The text of an options file, at most :data:`MAX_OPTIONS_BYTES` bytes of UTF-8; ``OSError`` when it
    cannot be read, :class:`BadValue` when it is too large or not text."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_OPTIONS_BYTES + 1)
    if len(data) > MAX_OPTIONS_BYTES:
        raise BadValue(f"larger than {MAX_OPTIONS_BYTES:,} bytes; an options file is read up to that size")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadValue(f"not UTF-8 text (byte {error.start})") from None


def check_yaml_shape(source: str) -> None:
    """:class:`BadValue` for YAML nested deeper than :data:`MAX_NESTING` or using aliases, found in libyaml's
    event stream (which is not recursive) before the recursive composer sees it."""
    depth = 0
    for event in yaml.parse(source, Loader=SAFE_YAML_LOADER):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_NESTING:
                raise BadValue(f"nested deeper than {MAX_NESTING}")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            raise BadValue("aliases (*name) are not accepted")


def load_yaml(text: str) -> Any:
    """The checked value of YAML ``text`` (see the module); :class:`BadValue` otherwise."""
    try:
        check_yaml_shape(text)
        value = yaml.load(text, Loader=SAFE_YAML_LOADER)
    except BadValue:
        raise
    except (yaml.YAMLError, ValueError, RecursionError) as error:  # ValueError: e.g. a 5,000-digit integer
        raise BadValue(f"not valid YAML ({' '.join(str(error).split())[:200]})") from None
    check_value(value)
    return value


def load_json(text: str) -> Any:
    """The checked value of JSON ``text`` of at most :data:`MAX_OPTIONS_BYTES` characters; :class:`BadValue`
    otherwise."""
    if len(text) > MAX_OPTIONS_BYTES:
        raise BadValue(f"{len(text):,} characters, more than the {MAX_OPTIONS_BYTES:,} read")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except BadValue:
        raise
    except (ValueError, RecursionError) as error:  # RecursionError: brackets nested too deep for the parser
        raise BadValue(f"not valid JSON ({' '.join(str(error).split())[:200]})") from None
    check_value(value)
    return value


def check_value(value: Any) -> None:
    """:class:`BadValue` unless ``value`` is nested at most :data:`MAX_NESTING` deep, its numbers are finite and
    its text (keys too) is valid Unicode."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise BadValue(f"{item} is not a finite number")
        elif isinstance(item, (dict, list, tuple)):
            if depth >= MAX_NESTING:
                raise BadValue(f"nested deeper than {MAX_NESTING}")
            if isinstance(item, dict):
                for key in item:
                    _check_text(str(key))
            pending.extend((inner, depth + 1) for inner in (item.values() if isinstance(item, dict) else item))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise BadValue(
            f"text with an invalid character {text[error.start]!r} (a lone surrogate, or bytes that are not UTF-8)"
        ) from None


def _refuse_constant(name: str) -> Any:
    raise BadValue(f"{name} is not a finite number")
