"""The secrets this process holds, and the one function that takes them out of whatever it writes or prints.

A secret is registered where it is read: the API key of every role, whatever its variable is called
(:meth:`~causal_datasets.llm.config.LLMConfig.api_key`); the user info and query values of a base URL or
``HF_ENDPOINT``, with the ``Basic`` authorization value made of them (:func:`register_url`); the
``--extra-body`` / ``extra_body`` values marked ``{"$secret": "..."}``, shaped like a known key or under a
secret-named key (:mod:`causal_datasets.llm.option_values`); the Hub token of a push. :func:`scrub`
replaces each of them — as it is, JSON-escaped or percent-encoded — and any text shaped like a known
credential by :data:`REDACTED`; :func:`scrub_value` does the same to every string of a JSON value and also
replaces a string equal to a registered secret however short. Every file a run writes (``results.jsonl``,
``summary.json``, ``settings.json``, the response cache), every LLM error and the command line's stdout and
stderr pass through them. A secret shorter than :data:`MIN_SECRET_LENGTH` is not looked for inside longer
text (it would match ordinary words); the name and shape rules of :mod:`causal_datasets.redaction` are a
second net for what leaves the machine.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

REDACTED = "<redacted>"
#: a secret shorter than this is replaced only as a whole string value, never looked for inside text
MIN_SECRET_LENGTH = 8
#: the shapes of common credentials: OpenAI-style and Hugging Face keys, GitHub and Slack tokens, AWS key ids
CREDENTIAL = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}"
    r"|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,})"
)
#: mapping keys whose string values are secrets wherever they appear (``api_key``, ``Authorization`` ...)
SECRET_KEY = re.compile(
    r"(?:^|[_-])(?:api[_-]?key|apikey|token|password|passwd|secret|authorization|credentials?)"
    r"(?:$|[_-])",
    re.I,
)
#: ``{"$secret": "value"}`` in ``--extra-body`` or a model config's ``extra_body``: ``value`` is sent, and secret
SECRET_MARK = "$secret"

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: list[re.Pattern[str] | None] = [None]  # the compiled alternation of every form, rebuilt on registration


def register(value: Any) -> None:
    """Hold ``value`` (a non-empty string) as a secret of this process from now on."""
    if not isinstance(value, str) or not value.strip():
        return
    with _lock:
        if value not in _secrets:
            _secrets.add(value)
            _pattern[0] = None


def register_url(url: str) -> None:
    """Register the secrets a URL carries: its password (or a lone user name, which is then a token), the
    ``user:password`` pair and its ``Basic`` authorization value, and each query value."""
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:  # not a well-formed URL: whatever sits between // and @ is the user info
        match = re.search(r"//([^/@\s]*)@", url)
        user, _, password = (match[1] if match else "").partition(":")
        parts = None
    if user and password:
        pair = f"{unquote(user)}:{unquote(password)}"
        for value in (password, unquote(password), pair, base64.b64encode(pair.encode("utf-8")).decode("ascii")):
            register(value)
    elif user:
        register(unquote(user))
    if parts is not None:
        for _, value in parse_qsl(parts.query):
            register(value)


def take_marked(value: Any, key: str = "") -> Any:
    """``value`` (a JSON value of settings) with each ``{"$secret": text}`` replaced by ``text``, registering it;
    a string under a secret-named key (:data:`SECRET_KEY`) or shaped like a known credential is registered too.
    ``ValueError`` for a mark that holds anything but one text value."""
    if isinstance(value, dict):
        if SECRET_MARK in value:
            if set(value) != {SECRET_MARK} or not isinstance(value[SECRET_MARK], str):
                raise ValueError(f'{{"{SECRET_MARK}": ...}} marks one text value as secret, and holds nothing else')
            register(value[SECRET_MARK])
            return value[SECRET_MARK]
        return {name: take_marked(inner, str(name)) for name, inner in value.items()}
    if isinstance(value, list):
        return [take_marked(inner, key) for inner in value]
    if isinstance(value, str) and (SECRET_KEY.search(key) or CREDENTIAL.fullmatch(value)):
        register(value)
    return value


def registered() -> frozenset[str]:
    with _lock:
        return frozenset(_secrets)


def scrub(text: str) -> str:
    """``text`` without any registered secret (raw, JSON-escaped or percent-encoded) or credential-shaped text."""
    pattern = _compiled()
    if pattern is not None:
        text = pattern.sub(REDACTED, text)
    return CREDENTIAL.sub(REDACTED, text)


def scrub_value(value: Any) -> Any:
    """``value`` (nested dicts, lists, strings, numbers) with every string scrubbed and every string equal to a
    registered secret replaced; keys are scrubbed too."""
    secrets = registered()

    def clean(item: Any) -> Any:
        if isinstance(item, str):
            return REDACTED if item in secrets else scrub(item)
        if isinstance(item, dict):
            return {scrub(str(key)): clean(inner) for key, inner in item.items()}
        if isinstance(item, (list, tuple)):
            return [clean(inner) for inner in item]
        return item

    return clean(value)


class ScrubbedStream:
    """A text stream (``sys.stdout``, ``sys.stderr``) whose every write is :func:`scrub`-bed; anything else is the
    stream's own."""

    def __init__(self, stream: Any):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(scrub(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        if name == "stream":  # not set yet (a copy being made): never look it up on the stream
            raise AttributeError(name)
        return getattr(self.stream, name)


def _forms(secret: str) -> set[str]:
    """The ways ``secret`` appears in text: as it is, escaped inside a JSON string (ASCII or not), percent-encoded."""
    return {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        quote(secret, safe=""),
    }


def _compiled() -> re.Pattern[str] | None:
    with _lock:
        if _pattern[0] is None:
            forms = {form for secret in _secrets for form in _forms(secret) if len(form) >= MIN_SECRET_LENGTH}
            if forms:  # longest first, so a secret is never left half-replaced by a shorter one inside it
                ordered = sorted(forms, key=lambda form: (-len(form), form))
                _pattern[0] = re.compile("|".join(map(re.escape, ordered)))
        return _pattern[0]
