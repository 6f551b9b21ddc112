"""Will a request fit the model's context window? Its limit, the prompt's size, and a server's refusal.

The limit is ``LLMConfig.context_window`` (``--context-window``) when given, else what the server
says about the model: an entry of ``GET /models`` (``max_model_len`` from vLLM, ``context_length``
from OpenRouter and others, ``context_window``, ``max_context_length``, ``n_ctx``) or llama.cpp's
``GET /props``; else unknown, and nothing is checked. The prompt is counted by the server's
tokenizer where it has one (llama-cpp-python ``POST /extras/tokenize/count``; llama.cpp and vLLM
``POST /tokenize``), else estimated at :data:`CHARS_PER_TOKEN` characters per token; either way
:data:`TOKENS_PER_MESSAGE` are added per message for the chat template. A request fits when the
prompt plus the reply's ``max_tokens`` stay within the limit (what servers enforce).

:func:`is_context_overflow` recognises the refusal servers send when a request does not fit, so a
request the check could not foresee is classified the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from causal_datasets.errors import LLMError

#: characters per token of the estimate (English prose with a BPE vocabulary)
CHARS_PER_TOKEN = 4
#: tokens added per message for the chat template's role markers
TOKENS_PER_MESSAGE = 8
#: keys of a ``/models`` entry that give the context window, in the order they are read
WINDOW_KEYS = ("max_model_len", "context_length", "context_window", "max_context_length", "n_ctx")
_OVERFLOW = re.compile(
    r"context[_ ]length[_ ]exceeded|maximum context length|exceeds? (?:the )?(?:available )?context"
    r"|context window|too many tokens|prompt is too long",
    re.I,
)

CountedBy = Literal["server", "estimate"]
LimitFrom = Literal["flag", "server"]


@dataclass(frozen=True)
class ContextCheck:
    """Prompt tokens (and how they were counted), the tokens reserved for the reply, and the limit (None: unknown)."""

    prompt_tokens: int
    reserved: int
    limit: int | None
    counted_by: CountedBy
    limit_from: LimitFrom | None

    @property
    def fits(self) -> bool | None:
        """Whether prompt + reply fit; None when the limit is unknown (nothing was checked)."""
        return None if self.limit is None else self.prompt_tokens + self.reserved <= self.limit

    def describe(self) -> str:
        how = "counted by the server" if self.counted_by == "server" else f"estimated at {CHARS_PER_TOKEN} characters/token"
        return (f"{self.prompt_tokens} prompt tokens ({how}) + {self.reserved} for the reply exceed the context "
                f"window of {self.limit} tokens (from the {'--context-window flag' if self.limit_from == 'flag' else 'server'})")


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The messages' contents as one text to count (roles on their own lines)."""
    return "\n".join(f"{m.get('role', '')}\n{m.get('content') or ''}" for m in messages)


def estimate_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Tokens of ``messages`` by the character estimate, template tokens included."""
    return math.ceil(len(prompt_text(messages)) / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * len(messages)


def window_from_listing(listing: Any, model: str) -> int | None:
    """The context window of ``model`` in a ``GET /models`` body (the only entry counts when no id matches)."""
    entries = listing.get("data") if isinstance(listing, Mapping) else None
    if not isinstance(entries, list):
        return None
    entries = [e for e in entries if isinstance(e, Mapping)]
    chosen = next((e for e in entries if e.get("id") == model), entries[0] if len(entries) == 1 else None)
    if chosen is None:
        return None
    for source in (chosen, chosen.get("meta"), chosen.get("top_provider")):
        if isinstance(source, Mapping):
            for key in WINDOW_KEYS:
                value = _positive_int(source.get(key))
                if value is not None:
                    return value
    return None


def window_from_props(props: Any) -> int | None:
    """llama.cpp's ``GET /props``: ``default_generation_settings.n_ctx``."""
    settings = props.get("default_generation_settings") if isinstance(props, Mapping) else None
    return _positive_int(settings.get("n_ctx")) if isinstance(settings, Mapping) else None


def count_from_reply(reply: Any) -> int | None:
    """A token count from a tokenize reply: ``{"count": n}`` or ``{"tokens": [...]}``."""
    if not isinstance(reply, Mapping):
        return None
    count = _positive_int(reply.get("count"), allow_zero=True)
    if count is not None:
        return count
    tokens = reply.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None


def is_context_overflow(error: LLMError) -> bool:
    """Whether the server refused the request because it does not fit the model's context window."""
    return error.status in (400, 413, 422) and bool(_OVERFLOW.search(error.detail or ""))


def _positive_int(value: Any, *, allow_zero: bool = False) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return int(value) if value > 0 or (allow_zero and value == 0) else None
