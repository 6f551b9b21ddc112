"""The model calls of one item — its transcript — as its result line keeps them (``calls``, a list of
:class:`ModelCall`), and the same calls served again when the item is scored anew.

The engine hands a task's ``solve`` each role's client wrapped in a :class:`RecordingClient`: it
forwards every call and notes the request (messages and the settings sent with them, secrets redacted, with
the settings' id: :mod:`causal_datasets.runners.call_settings`), the reply, its
reasoning and its tokens (or the error) under the role, in the order the calls end. A client serving
two roles (a fallback) is wrapped once per role, so each call is kept under the role that made it. A
request that continues the conversation of the role's previous call (its messages, its reply, then
more) keeps only the messages that follow (``continues``): an episode's transcript grows with its
turns, not with their square. :func:`full_messages` gives every request whole again.

:class:`ReplayClient` is a role's client when a run is rescored: a request whose messages the
transcript holds gets the recorded reply again, without a model; any other request goes to a live
client when one is given (a judge asked anew) and is otherwise a :class:`NotInTranscript` error.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from causal_datasets.errors import LLMError, NotInTranscript
from causal_datasets.llm.chat import ChatClient, ChatResult, ModelName
from causal_datasets.llm.config import Message
from causal_datasets.runners.call_settings import settings_id
from causal_datasets.runners.records import ModelCall, Role, is_llm_category
from causal_datasets.secret_values import scrub_value


class CallLog:
    """The calls of one item (thread-safe: a task may call from several threads)."""

    def __init__(self) -> None:
        self._calls: list[ModelCall] = []
        self._whole: list[list[dict[str, Any]]] = []
        self._lock = threading.Lock()

    def add(self, call: ModelCall) -> None:
        """Keep ``call`` (its ``messages`` the whole request), as the continuation of the role's previous
        call when the request starts with that call's messages and reply."""
        with self._lock:
            whole = list(call.messages)
            back = next(
                (
                    len(self._calls) - index
                    for index in range(len(self._calls) - 1, -1, -1)
                    if self._calls[index].role == call.role
                ),
                None,
            )
            if back is not None:
                earlier = self._calls[-back]
                said = [*self._whole[-back], {"role": "assistant", "content": earlier.reply}]
                if earlier.reply is not None and len(whole) > len(said) and whole[: len(said)] == said:
                    call = call.model_copy(update={"messages": whole[len(said) :], "continues": back})
            self._calls.append(call)
            self._whole.append(whole)

    def calls(self) -> list[ModelCall]:
        with self._lock:
            return list(self._calls)


def request_settings(client: ChatClient, overrides: dict[str, Any]) -> dict[str, Any]:
    """What a request to ``client`` sends besides its messages — the client's own account of it when it
    gives one (``request_settings``), else the call's overrides —, secrets redacted."""
    describe = getattr(client, "request_settings", None)
    return scrub_value(describe(**overrides) if callable(describe) else dict(overrides))


class RecordingClient:
    """``client`` in ``role`` for one item: ``chat`` is the client's, recorded in ``log``; any other
    attribute (``check_context`` ...) is the client's own."""

    def __init__(self, role: Role, client: ChatClient, log: CallLog):
        self.role, self.client, self.log = role, client, log

    @property
    def config(self) -> ModelName:
        return self.client.config

    def chat(self, messages: list[Message], **overrides: Any) -> ChatResult:
        settings = request_settings(self.client, overrides)
        request = {
            "role": self.role,
            "messages": _plain(messages),
            "settings": settings,
            "settings_id": settings_id(settings),
        }
        try:
            result = self.client.chat(messages, **overrides)
        except LLMError as error:
            self.log.add(
                ModelCall(**request, model=self.client.config.model, category=error.category, error=str(error))
            )
            raise
        self.log.add(
            ModelCall(
                **request,
                model=result.model,
                reply=result.text,
                reasoning=result.reasoning,
                finish_reason=result.finish_reason,
                prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens,
                reasoning_tokens=result.reasoning_tokens,
                cache_read_tokens=result.cache_read_tokens,
            )
        )
        return result

    def __getattr__(self, name: str) -> Any:
        if name in ("role", "client", "log"):  # not set yet (a copy being made): never look them up on the client
            raise AttributeError(name)
        return getattr(self.client, name)


def full_messages(calls: Sequence[ModelCall]) -> list[list[dict[str, Any]]]:
    """Each call's whole request: the messages and reply of the call it continues, then its own messages."""
    whole: list[list[dict[str, Any]]] = []
    for index, call in enumerate(calls):
        if call.continues is None:
            whole.append(list(call.messages))
        else:
            if call.continues > index:
                raise ValueError(f"call {index} continues call {index - call.continues}, which does not exist")
            earlier = calls[index - call.continues]
            whole.append(
                [*whole[index - call.continues], {"role": "assistant", "content": earlier.reply}, *call.messages]
            )
    return whole


def recording(clients: dict[Role, ChatClient], log: CallLog) -> dict[Role, ChatClient]:
    """Each role's client wrapped to record its calls in ``log``."""
    return {role: RecordingClient(role, client, log) for role, client in clients.items()}


class ReplayedFailure(LLMError):
    """A call the transcript records as failed, failing again the same way when replayed."""

    def __init__(self, call: ModelCall):
        self.category = call.category if is_llm_category(call.category) else LLMError.category
        self.detail, self.model, self.base_url, self.status, self.attempts = call.error or "", call.model, "", None, 0
        Exception.__init__(self, call.error or self.category)


class _RecordedName:
    def __init__(self, model: str):
        self.model = model


class ReplayClient:
    """``role``'s recorded ``calls`` served again: a request whose messages were recorded gets the
    recorded reply (or its recorded failure), each recorded call once and in recorded order; any
    other request goes to ``live`` when given — through a recording client, so it lands in ``log`` as a
    new call — and is :class:`NotInTranscript` otherwise. With a live client, a recorded call is
    reused only when it was sent with the settings the live client would send (same model, sampling
    ...): a judge given anew is asked anew. Every call served, recorded or live, is noted in ``log``."""

    def __init__(self, role: Role, calls: Sequence[ModelCall], log: CallLog, live: ChatClient | None = None):
        self.role, self.log = role, log
        self.live = RecordingClient(role, live, log) if live is not None else None
        self._recorded: dict[str, deque[ModelCall]] = {}
        for call, whole in zip(calls, full_messages(calls), strict=True):
            if call.role == role:
                self._recorded.setdefault(_key(whole), deque()).append(
                    call.model_copy(update={"messages": whole, "continues": None})
                )
        first = next((call.model for call in calls if call.role == role), "recorded")
        self._name = live.config if live is not None else _RecordedName(first)
        self.served = 0  # calls answered from the transcript

    @property
    def config(self) -> ModelName:
        return self._name

    def chat(self, messages: list[Message], **overrides: Any) -> ChatResult:
        queue = self._recorded.get(_key(_plain(messages)))
        wanted = request_settings(self.live.client, overrides) if self.live is not None else None
        if queue and (wanted is None or queue[0].settings == wanted):
            call = queue.popleft()
            self.log.add(call)
            self.served += 1
            if call.reply is None:
                raise ReplayedFailure(call)
            return ChatResult(
                text=call.reply,
                prompt_tokens=call.prompt_tokens,
                completion_tokens=call.completion_tokens,
                cached=True,
                attempts=0,
                model=call.model,
                finish_reason=call.finish_reason,
                reasoning=call.reasoning,
                reasoning_tokens=call.reasoning_tokens,
                cache_read_tokens=call.cache_read_tokens,
            )
        if self.live is not None:
            return self.live.chat(messages, **overrides)
        raise NotInTranscript(
            f"the {self.role} is asked something the run's transcript does not hold "
            f"(its last message: {_last(messages)!r})"
        )


def replaying(
    calls: Sequence[ModelCall], roles: Sequence[Role], log: CallLog, live: dict[Role, ChatClient]
) -> dict[Role, ReplayClient]:
    """A :class:`ReplayClient` per role in ``roles`` over the transcript ``calls``, each with its live client if any."""
    return {role: ReplayClient(role, calls, log, live.get(role)) for role in roles}


def _plain(messages: list[Message]) -> list[dict[str, Any]]:
    """The messages as JSON values (what the result line keeps and replays match on)."""
    return json.loads(json.dumps(messages))


def _key(messages: Sequence[dict[str, Any]]) -> str:
    return json.dumps(list(messages), sort_keys=True, ensure_ascii=False)


def _last(messages: list[Message]) -> str:
    text = str(messages[-1].get("content", "")) if messages else ""
    return text if len(text) <= 120 else f"{text[:120]}…"
