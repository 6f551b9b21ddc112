"""The model calls of one item, as its result line keeps them (``calls``, a list of :class:`ModelCall`).

The engine hands a task's ``solve`` each role's client wrapped in a :class:`RecordingClient`: it
forwards every call and notes the reply, its reasoning and its tokens (or the error) under the
role, in the order the calls end. A client serving two roles (a fallback) is wrapped once per role,
so each call is kept under the role that made it.
"""

from __future__ import annotations

import threading
from typing import Any

from causal_datasets.errors import LLMError
from causal_datasets.llm.chat import ChatClient, ChatResult, ModelName
from causal_datasets.llm.config import Message
from causal_datasets.runners.records import ModelCall, Role


class CallLog:
    """The calls of one item (thread-safe: a task may call from several threads)."""

    def __init__(self) -> None:
        self._calls: list[ModelCall] = []
        self._lock = threading.Lock()

    def add(self, call: ModelCall) -> None:
        with self._lock:
            self._calls.append(call)

    def calls(self) -> list[ModelCall]:
        with self._lock:
            return list(self._calls)


class RecordingClient:
    """``client`` in ``role`` for one item: ``chat`` is the client's, recorded in ``log``; any other
    attribute (``check_context`` ...) is the client's own."""

    def __init__(self, role: Role, client: ChatClient, log: CallLog):
        self.role, self.client, self.log = role, client, log

    @property
    def config(self) -> ModelName:
        return self.client.config

    def chat(self, messages: list[Message], **overrides: Any) -> ChatResult:
        try:
            result = self.client.chat(messages, **overrides)
        except LLMError as error:
            self.log.add(ModelCall(role=self.role, model=self.client.config.model,
                                   error=f"{error.category}: {error.detail}"))
            raise
        self.log.add(ModelCall(
            role=self.role, model=result.model, reply=result.text, reasoning=result.reasoning,
            finish_reason=result.finish_reason, prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens, reasoning_tokens=result.reasoning_tokens,
            cache_read_tokens=result.cache_read_tokens,
        ))
        return result

    def __getattr__(self, name: str) -> Any:
        if name in ("role", "client", "log"):  # not set yet (a copy being made): never look them up on the client
            raise AttributeError(name)
        return getattr(self.client, name)


def recording(clients: dict[Role, ChatClient], log: CallLog) -> dict[Role, ChatClient]:
    """Each role's client wrapped to record its calls in ``log``."""
    return {role: RecordingClient(role, client, log) for role, client in clients.items()}
