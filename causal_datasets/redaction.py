"""Secrets out of everything shown: a URL without its user info, query string or fragment.

A base URL or ``HF_ENDPOINT`` may hold ``user:password@`` or ``?key=...``. Run folders, logs, the
response cache key and every error message (LLM client errors, push errors, the command line's
``error:`` line) show URLs only through :func:`redact_url` / :func:`redact_urls`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

#: a URL in free text; a scheme starts only where a word starts, so a long run of letters is scanned once
_URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
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
    return _URL.sub(lambda match: redact_url(match.group()), text)
