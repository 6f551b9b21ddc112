"""What task code needs of a model: ``ChatClient`` (a name and ``chat``) and the ``ChatResult`` it returns.

``LLMClient`` (an OpenAI-compatible endpoint) and the inspect_ai adapter
(:class:`causal_datasets.integrations.inspect_tasks.InspectChatClient`) both satisfy ``ChatClient``;
judges, policies and runners are written against it. A reply's reasoning is kept apart from its
text: ``reasoning`` holds what the server sent in a field of its own and the ``<think>`` sections
of the text; ``text`` is the content as sent, so a reply's parser still decides what the answer is
(and the parsers skip ``<think>`` sections).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from pydantic import Field

from causal_datasets.llm.config import Message
from causal_datasets.llm.thinking import split_thinking


@dataclass(frozen=True)
class ChatResult:
    """One assistant reply. ``attempts`` is 0 for a cache hit, else the HTTP attempts it took.

    ``reasoning``: the reasoning text (None when the reply had none); ``reasoning_tokens`` are part of
    ``completion_tokens``, ``cache_read_tokens`` (prompt tokens the server read from its prompt cache)
    part of ``prompt_tokens``.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    attempts: int
    model: str
    finish_reason: str | None = None
    reasoning: str | None = None
    reasoning_tokens: int = 0
    cache_read_tokens: int = 0


#: how a reply ended and what it counted, as a run's calls (``runners.records.ModelCall``) and an export's call
#: rows (``records.run_results.Call``) keep them, described once
FinishReason = Annotated[str | None, Field(description="Why the reply ended (`stop`, `length`, ...).")]
PromptTokens = Annotated[int, Field(description="Prompt tokens of the call.")]
CompletionTokens = Annotated[int, Field(description="Completion tokens, reasoning tokens included.")]
ReasoningTokens = Annotated[int, Field(description="Of the completion tokens, those spent on reasoning.")]
CacheReadTokens = Annotated[int, Field(description="Prompt tokens the server read from its prompt cache.")]


class ModelName(Protocol):
    @property
    def model(self) -> str: ...


class ChatClient(Protocol):
    """A model to talk to: ``config.model`` names it, ``chat`` answers (raising ``LLMError`` when it cannot).

    ``overrides`` are per-call settings: ``temperature``, ``max_tokens``, ``seed``, ``extra_body``."""

    @property
    def config(self) -> ModelName: ...

    def chat(self, messages: list[Message], **overrides: Any) -> ChatResult: ...


def reasoning_text(text: str, *separate: Any) -> str | None:
    """The reasoning of a reply: the non-empty strings of ``separate`` (the server's own reasoning
    fields), then the ``<think>`` sections of ``text``, each distinct text once (vLLM sends the same
    trace as ``reasoning_content`` and ``reasoning``); None when there is none."""
    parts = [part.strip() for part in separate if isinstance(part, str)]
    parts.append(split_thinking(text)[1])
    return "\n\n".join(dict.fromkeys(part for part in parts if part)) or None
