"""Secrets out of everything shown: a URL without its user info, query string or fragment.

A base URL or ``HF_ENDPOINT`` may hold ``user:password@`` or ``?key=...``. Run folders, logs, the
response cache key and every error message (LLM client errors, push errors, the command line's
``error:`` line) show URLs only through :func:`redact_url` / :func:`redact_urls`. What leaves the
machine as data (an exported run, :mod:`causal_datasets.exports`) goes through a :class:`Redactor`,
which also removes the secrets the process holds (:mod:`causal_datasets.secret_values`, which every file
and output goes through), and, as a second net by name and shape, secret environment values,
credentials and local paths.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from causal_datasets.secret_values import MIN_SECRET_LENGTH, REDACTED, SECRET_KEY, scrub

#: what follows a URL's scheme in free text, wherever the scheme ends (``1https://u:p@h`` too), up to a space, a
#: quote or the next ``://`` (a URL inside a URL is redacted as one of its own); the text is read once
_AFTER_SCHEME = re.compile(r"://(?:(?!://)[^\s'\"<>`])+")
_USER_INFO = re.compile(r"//[^/@\s]*@")


def redact_url(url: str) -> str:
    """``url`` without user info (``user:pass@``), query string or fragment, which may carry secrets."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # not a well-formed URL (a bad port, an unclosed IPv6 bracket): drop what may be secret
        return _USER_INFO.sub("//", url, count=1).split("?", 1)[0].split("#", 1)[0]
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def redact_urls(text: str) -> str:
    """``text`` with every URL in it redacted by :func:`redact_url`."""
    return _AFTER_SCHEME.sub(lambda match: redact_url(f"x{match.group()}")[1:], text)


#: environment variables whose values are secrets (``OPENAI_API_KEY``, ``HF_TOKEN``, ``DB_PASSWORD`` ...)
SECRET_NAME = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)(?:_|$)", re.I)
PATH = "<path>"
_BEARER = re.compile(r"\b(Bearer|Basic|Token)(\s+)[^\s'\"]+", re.I)
_FILE_URL = re.compile(r"file://[^\s'\"<>`]*", re.I)
_PATH_CHARS = r"[\w.@+~-]"
#: a POSIX absolute (or home-relative) path of at least two parts, starting where a word could start: not inside a
#: URL, a ratio such as ``P(Y)/P(X)`` or a date
_ABSOLUTE_PATH = re.compile(rf"(?<![\w.:/\\~-])~?/(?:{_PATH_CHARS}+/)+{_PATH_CHARS}*")


class Redactor:
    """Removes secrets and local paths from text and from JSON-like values, for what leaves the machine.

    In order: the secrets this process holds (:func:`causal_datasets.secret_values.scrub`, credential-shaped
    text with them), the values of secret environment variables (:data:`SECRET_NAME`, at least
    :data:`MIN_SECRET_LENGTH` characters), an ``Authorization`` value, ``file:``
    URLs, the user info, query and fragment of other URLs (:func:`redact_url`), the given ``paths`` (absolute, and as
    given when relative with a folder in them) and the home folder, then any absolute path of two or more parts.
    In a mapping, the string value of a key such as ``api_key`` or ``token`` (:data:`SECRET_KEY`) is replaced whole.
    """

    def __init__(self, paths: Iterable[Path] = (), environ: Mapping[str, str] | None = None):
        environ = os.environ if environ is None else environ
        secrets = {
            value for name, value in environ.items() if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH
        }
        self._secrets = _literals(secrets)
        places = set()
        for path in paths:
            places.add(str(Path(path).resolve()))
            if not Path(path).is_absolute() and "/" in str(path).strip("/"):
                places.add(str(path).rstrip("/"))
        self._paths = _literals(places)
        home = str(Path.home())
        self._home = _literals([home], boundary=True) if len(home) > 1 else None

    def text(self, text: str) -> str:
        text = scrub(text)
        if self._secrets is not None:
            text = self._secrets.sub(REDACTED, text)
        text = _BEARER.sub(lambda match: f"{match[1]}{match[2]}{REDACTED}", text)
        text = redact_urls(_FILE_URL.sub(PATH, text))
        if self._paths is not None:
            text = self._paths.sub(PATH, text)
        if self._home is not None:
            text = self._home.sub("~", text)
        return _ABSOLUTE_PATH.sub(PATH, text)

    def value(self, value: Any) -> Any:
        """``value`` (nested dicts, lists, strings, numbers) with every string redacted and secret keys' values
        replaced; keys are kept as they are."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                key: REDACTED if isinstance(item, str) and SECRET_KEY.search(str(key)) else self.value(item)
                for key, item in value.items()
            }
        if isinstance(value, (list, tuple)):
            return [self.value(item) for item in value]
        return value


def _literals(strings: Iterable[str], *, boundary: bool = False) -> re.Pattern[str] | None:
    """One pattern matching any of ``strings``, longest first (with ``boundary``: not followed by more of a name)."""
    ordered = sorted(set(strings), key=lambda s: (-len(s), s))
    if not ordered:
        return None
    pattern = "|".join(map(re.escape, ordered))
    return re.compile(f"(?:{pattern})(?!{_PATH_CHARS})" if boundary else pattern)
