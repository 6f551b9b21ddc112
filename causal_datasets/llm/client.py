"""``LLMClient``: the one way this package talks to an OpenAI-compatible chat endpoint.

``chat`` looks the request up in the response cache, otherwise POSTs ``{base_url}/chat/completions``
through the ``openai`` SDK (its own retries off; ours are in :mod:`causal_datasets.llm.retry`), stores
the successful body and records usage. ``achat`` runs ``chat`` on a pool of ``config.concurrency`` threads
so asyncio code gets the same cache, retries and limit; ``map`` does a batch in input order with a progress
bar.

Before its first request the client asks the server for its slots (:mod:`causal_datasets.llm.slots`).
A server that reports them gets at most that many requests at once from this process, and one that
reports a single slot (a CPU server) a longer timeout unless the config sets one
(:data:`~causal_datasets.llm.config.SINGLE_SLOT_TIMEOUT`); a request that timed out there is sent again
only once the server has finished computing it, so each request has one copy in flight.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import Any, TypedDict

import httpx2

from causal_datasets.errors import LLMError, LLMRequestError, LLMRetriesExhausted, LLMTimeout
from causal_datasets.llm.cache import ResponseCache, cache_key
from causal_datasets.llm.chat import ChatResult, reasoning_text
from causal_datasets.llm.concurrency import map_concurrent
from causal_datasets.llm.config import DEFAULT_TIMEOUT, SINGLE_SLOT_TIMEOUT, LLMConfig, Message, PriceTable
from causal_datasets.llm.context import (
    TOKENS_PER_MESSAGE,
    ContextCheck,
    LimitFrom,
    count_from_reply,
    estimate_tokens,
    prompt_text,
    window_from_listing,
    window_from_props,
)
from causal_datasets.llm.deadline import MAX_RESPONSE_BYTES, RequestDeadline, ResponseTooLarge, work_time_left
from causal_datasets.llm.retry import Backoff, Failure, failure_for_status
from causal_datasets.llm.slots import slot_gate, slots_from_props, slots_in_use
from causal_datasets.llm.usage import UsageTracker
from causal_datasets.secret_values import scrub_value

log = logging.getLogger(__name__)

#: the message fields servers put a reply's reasoning in (DeepSeek, llama.cpp and older vLLM; vLLM, Ollama, OpenRouter)
REASONING_FIELDS = ("reasoning_content", "reasoning")
#: seconds between two looks at a busy server's slots
SLOT_POLL_INTERVAL = 0.5


class ErrorContext(TypedDict):
    """Where a request went, as every LLM error names it."""

    model: str
    base_url: str


def parse_completion(body: Any, *, cached: bool = False, attempts: int = 0, fallback_model: str = "") -> ChatResult:
    """A ``chat.completion`` body as a ``ChatResult``; ``ValueError`` says what is missing.

    The reasoning is read from the message's ``reasoning_content`` or ``reasoning`` field (servers
    differ) and its text's ``<think>`` sections; token details from ``usage.completion_tokens_details``
    and ``usage.prompt_tokens_details`` (or DeepSeek's ``prompt_cache_hit_tokens``). Odd counts count 0."""
    if not isinstance(body, dict):
        raise ValueError(f"response body is {type(body).__name__}, not a JSON object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("first choice has no message")
    content = message.get("content")
    if content is None and choices[0].get("finish_reason") == "length":
        content = ""  # the whole token budget went to reasoning: an empty answer, not a broken reply
    if not isinstance(content, str):
        kind = "no message content" if content is None else f"message content is {type(content).__name__}, not text"
        raise ValueError(kind)
    usage = _mapping(body.get("usage"))
    text = _valid_text(content)
    reasoning = reasoning_text(text, *(message.get(name) for name in REASONING_FIELDS))
    return ChatResult(
        text=text,
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
        cached=cached,
        attempts=attempts,
        model=str(body.get("model") or fallback_model),
        finish_reason=choices[0].get("finish_reason"),
        reasoning=_valid_text(reasoning) if reasoning is not None else None,
        reasoning_tokens=_count(_mapping(usage.get("completion_tokens_details")).get("reasoning_tokens")),
        cache_read_tokens=_count(
            _mapping(usage.get("prompt_tokens_details")).get("cached_tokens") or usage.get("prompt_cache_hit_tokens")
        ),
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _valid_text(text: str) -> str:
    """``text`` with lone surrogates (from ``\\ud800`` escapes in a JSON reply) replaced: every writer can encode it."""
    return text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text


def _count(value: Any) -> int:
    """A token count as sent by the server; anything that is not a non-negative whole number counts 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return 0
    return int(value) if value < 1e12 else 0


class LLMClient:
    """Thread-safe chat client with a SQLite response cache, retries, a concurrency limit and usage totals."""

    def __init__(self, config: LLMConfig, cache_path: Path | None = None, *, prices: PriceTable | None = None):
        self.config = config
        self.cache = ResponseCache(cache_path) if cache_path is not None else None
        self.usage = UsageTracker(prices)
        self._backoff = Backoff(config.backoff_base, config.backoff_max, config.seed)
        timeout = config.timeout or DEFAULT_TIMEOUT  # until the server has said how many slots it has
        self._deadline = RequestDeadline(timeout, MAX_RESPONSE_BYTES)
        openai = _openai_sdk()
        self._openai = openai.OpenAI(
            base_url=config.endpoint,
            api_key=config.api_key(),
            max_retries=0,  # retries are ours: counted, typed and testable (see retry.py)
            timeout=timeout,
            http_client=httpx2.Client(
                timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
                limits=httpx2.Limits(max_connections=None, max_keepalive_connections=max(20, config.concurrency)),
                trust_env=not config.is_loopback(),
                event_hooks=self._deadline.hooks(),  # bounds the whole request
            ),
        )
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._context_lock = threading.Lock()
        self._window: tuple[int | None] | None = None  # asked once (a 1-tuple, so "unknown" is remembered too)
        self._slots: tuple[int | None] | None = None  # asked once, like the window
        self._tokenizer: str | None = None  # the tokenize endpoint that answered; "" when none did

    def __repr__(self) -> str:
        return (
            f"LLMClient(model={self.config.model!r}, endpoint={self.config.endpoint!r}, "
            f"cache={self.cache and self.cache.path})"
        )

    # -- calls ---------------------------------------------------------------------------------
    def chat(self, messages: list[Message], **overrides: Any) -> ChatResult:
        """One reply for ``messages``; ``overrides``: temperature, max_tokens, seed, extra_body. Raises ``LLMError``."""
        left = work_time_left()
        if left is not None and left <= 0:
            self.usage.record_call(self.config.model, failed=True)
            raise LLMTimeout("the work item ran out of time before this call", kind="item_deadline", **self._context())
        body = self.config.request_body(_checked(messages, self._context()), **overrides)
        try:
            key = cache_key(self.config.endpoint, body)
        except (TypeError, ValueError) as error:
            raise LLMRequestError(f"request is not JSON-serializable: {error}", **self._context()) from error
        result = self._from_cache(key)
        if result is None:
            result = self._fresh(key, body)
        self.usage.record_call(
            self.config.model,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            reasoning_tokens=result.reasoning_tokens,
            cache_read_tokens=result.cache_read_tokens,
            cached=result.cached,
        )
        prefill = self.config.prefill
        if prefill and not result.text.startswith(prefill):  # the server continued the prefill: give the whole reply
            result = dataclasses.replace(result, text=prefill + result.text)
        return result

    def request_settings(self, **overrides: Any) -> dict[str, Any]:
        """What a request with ``overrides`` sends besides its messages: the body's other fields, and the
        prefill (sent as a last assistant message) when there is one; secrets redacted."""
        body = self.config.request_body([], **overrides)
        del body["messages"]
        return scrub_value(body | ({"prefill": self.config.prefill} if self.config.prefill else {}))

    def check_context(self, messages: list[Message], *, max_tokens: int | None = None) -> ContextCheck:
        """Whether ``messages`` (and a reply of ``max_tokens``, default the config's) fit the model's context
        window (see :mod:`causal_datasets.llm.context`); nothing is sent to the chat endpoint."""
        limit, limit_from = self.context_window()
        count = self._server_token_count(messages)
        reserved = self.config.completion_limit if max_tokens is None else max_tokens
        if count is None:
            return ContextCheck(estimate_tokens(messages), reserved, limit, "estimate", limit_from)
        return ContextCheck(count + TOKENS_PER_MESSAGE * len(messages), reserved, limit, "server", limit_from)

    def context_window(self) -> tuple[int | None, LimitFrom | None]:
        """The model's context window and where it came from (``flag``, ``server``; None when unknown), asked once."""
        if self.config.context_window is not None:
            return self.config.context_window, "flag"
        with self._context_lock:
            if self._window is None:
                listed = self._ask_json(
                    "GET", "models", relative=True, read=lambda b: window_from_listing(b, self.config.model)
                )
                self._window = (listed or self._ask_json("GET", "props", read=window_from_props),)
            return self._window[0], ("server" if self._window[0] else None)

    def server_slots(self) -> int | None:
        """How many requests the server computes at once, as it reports them (llama.cpp's ``/props``, else
        ``/slots``); None when it does not say. Asked once."""
        with self._context_lock:
            if self._slots is None:
                total = self._ask_json("GET", "props", read=slots_from_props)
                if total is None:
                    in_use = self._ask_json("GET", "slots", read=slots_in_use)
                    total = in_use[1] if in_use else None
                self._slots = (total,)
            return self._slots[0]

    def timeout(self) -> float:
        """Seconds per HTTP attempt: the config's, else the default for what the server reports (asked once)."""
        if self.config.timeout is not None:
            return self.config.timeout
        return SINGLE_SLOT_TIMEOUT if self.server_slots() == 1 else DEFAULT_TIMEOUT

    def _server_token_count(self, messages: list[Message]) -> int | None:
        """Tokens of the messages' text by the server's tokenizer; None when it has no tokenize endpoint
        (remembered)."""
        if self._tokenizer == "":
            return None
        text = prompt_text(messages)
        bodies = {
            "extras/tokenize/count": {"input": text, "model": self.config.model},
            "tokenize": {"model": self.config.model, "prompt": text, "content": text, "add_special": False},
        }
        for path in [self._tokenizer] if self._tokenizer else list(bodies):
            count = self._ask_json("POST", path, body=bodies[path], read=count_from_reply)
            if count is not None:
                self._tokenizer = path
                return count
        if self._tokenizer is None:
            self._tokenizer = ""  # no endpoint answered: estimate from now on
        return None

    def _ask_json(self, method: str, path: str, *, body: Any = None, read: Any, relative: bool = False) -> Any:
        """``read`` of the JSON reply of ``method`` at ``path`` (under the base URL, or the server root); None on
        any failure."""
        url = path if relative else f"{self.config.endpoint.removesuffix('/v1')}/{path}"
        openai = _openai_sdk()
        try:
            if method == "GET":
                reply = self._openai.get(url, cast_to=object)
            else:
                reply = self._openai.post(url, body=body, cast_to=object)
        except (openai.OpenAIError, ValueError, TypeError) as error:
            log.debug("%s %s failed: %s", method, url, error)
            return None
        return read(reply)

    async def achat(self, messages: list[Message], **overrides: Any) -> ChatResult:
        """``chat`` for asyncio code; at most ``config.concurrency`` of these run at once per client."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread_pool(), functools.partial(self.chat, messages, **overrides))

    def map(
        self,
        requests: Sequence[list[Message]],
        *,
        desc: str = "llm calls",
        concurrency: int | None = None,
        progress: bool | None = None,
        **overrides: Any,
    ) -> list[ChatResult | LLMError]:
        """``chat`` over many message lists, in input order; a failed item is its ``LLMError``, never raised."""
        outcomes = map_concurrent(
            lambda messages: self.chat(messages, **overrides),
            requests,
            concurrency=concurrency or self.config.concurrency,
            desc=desc,
            progress=progress,
        )
        return [_as_llm_error(o, self._context()) if isinstance(o, Exception) else o for o in outcomes]

    def usage_summary(self) -> dict[str, Any]:
        """Calls, HTTP requests, retries, tokens, cost, cache hits/misses of this client so far."""
        summary = {"model": self.config.model, "base_url": self.config.endpoint, **self.usage.summary()}
        cache = (
            self.cache.stats()
            if self.cache is not None
            else {"hits": 0, "misses": 0, "writes": 0, "problems": 0, "enabled": False, "path": None}
        )
        summary.update({f"cache_{name}": value for name, value in cache.items()})
        return summary

    def close(self) -> None:
        self._openai.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- cache and HTTP with retries -----------------------------------------------------------
    def _from_cache(self, key: str) -> ChatResult | None:
        """The cached reply, or None (no cache, a miss, or an entry that is not a usable completion)."""
        body = self.cache.get(key) if self.cache is not None else None
        if body is None:
            return None
        try:
            return parse_completion(body, cached=True, fallback_model=self.config.model)
        except ValueError:
            return None

    def _fresh(self, key: str, body: dict[str, Any]) -> ChatResult:
        """Send the request; cache a successful reply; count a failure before re-raising it."""
        try:
            response, attempts = self._send(body)
        except LLMError:
            self.usage.record_call(self.config.model, failed=True)
            raise
        if self.cache is not None:
            self.cache.put(key, body, response)
        return parse_completion(response, attempts=attempts, fallback_model=self.config.model)

    def _send(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """The successful response body and the attempts it took; raises the final ``LLMError``.

        Each attempt holds a place of the server's slots (when it reports them); after a timeout the place
        is kept until the server has finished the abandoned request, so the next attempt is its only copy."""
        timeout = self.timeout()
        self._deadline.seconds = timeout
        gate = slot_gate(self.config.endpoint, self.server_slots())
        wait: float | None = None
        for attempt in range(1, self.config.max_retries + 2):
            self.usage.record_request(retry_wait=wait)
            with gate or nullcontext():
                outcome = self._attempt(body, timeout)
                if gate is not None and isinstance(outcome, Failure) and outcome.kind == "timeout":
                    self._wait_for_free_slot()
            if not isinstance(outcome, Failure):
                return outcome, attempt
            if not outcome.retryable:
                raise LLMRequestError(outcome.detail, status=outcome.status, attempts=attempt, **self._context())
            if attempt > self.config.max_retries:
                error_type = LLMTimeout if outcome.kind == "timeout" else LLMRetriesExhausted
                raise error_type(
                    outcome.detail, kind=outcome.kind, status=outcome.status, attempts=attempt, **self._context()
                )
            wait = self._backoff.delay(attempt, outcome.retry_after)
            log.warning(
                "%s from %s (attempt %d of %d): %s; retrying in %.2fs",
                outcome.kind,
                self.config.endpoint,
                attempt,
                self.config.max_retries + 1,
                outcome.detail,
                wait,
            )
            time.sleep(wait)
        raise AssertionError("unreachable: the loop returns or raises")

    def _wait_for_free_slot(self) -> None:
        """Wait until the server reports a slot free (at most :data:`SINGLE_SLOT_TIMEOUT` seconds, and not past
        the work item's deadline): it finishes a request whose client gave up, and a copy sent meanwhile would
        only wait behind it while its own timeout runs."""
        left = work_time_left()
        deadline = time.monotonic() + min(SINGLE_SLOT_TIMEOUT, SINGLE_SLOT_TIMEOUT if left is None else left)
        waited = False
        while time.monotonic() < deadline:
            in_use = self._ask_json("GET", "slots", read=slots_in_use)
            if in_use is None or in_use[0] < in_use[1]:
                return
            if not waited:
                log.warning(
                    "%s is still computing the request that timed out; sending it again once it is done",
                    self.config.endpoint,
                )
                waited = True
            time.sleep(SLOT_POLL_INTERVAL)

    def _attempt(self, body: dict[str, Any], timeout: float) -> dict[str, Any] | Failure:
        """One ``POST /chat/completions`` through the openai SDK; the raw body is parsed here so a
        truncated or malformed reply is a retryable failure, not a crash."""
        sampling = {key: value for key, value in body.items() if key not in ("model", "messages")}
        openai = _openai_sdk()
        try:
            raw = self._openai.chat.completions.with_raw_response.create(
                model=body["model"], messages=body["messages"], extra_body=sampling, timeout=timeout
            )
        except openai.APITimeoutError as error:
            return Failure("timeout", f"no response within {timeout:g}s ({type(error).__name__})")
        except openai.APIConnectionError as error:
            cause = error.__cause__ or error
            kind = "invalid_body" if isinstance(cause, ResponseTooLarge) else "connection"
            return Failure(kind, f"{type(cause).__name__}: {cause}")
        except openai.APIStatusError as error:
            return failure_for_status(error.status_code, _error_detail(error.response), error.response.headers)
        response = raw.http_response
        try:
            data = response.json()
            parse_completion(data)
        except ValueError as error:
            return Failure(
                "invalid_body", f"unusable response body ({error}): {response.text[:200]!r}", response.status_code
            )
        return data

    def _context(self) -> ErrorContext:
        return {"model": self.config.model, "base_url": self.config.endpoint}

    def _thread_pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="llm-achat")
            return self._pool


def _checked(messages: Any, context: ErrorContext) -> list[Message]:
    """The messages if they look like a chat request, else ``LLMRequestError`` (nothing is sent)."""
    ok = (
        isinstance(messages, list)
        and messages
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) and "content" in m for m in messages)
    )
    if not ok:
        raise LLMRequestError("messages must be a non-empty list of {role, content} dicts", **context)
    return messages


def _error_detail(response: httpx2.Response) -> str:
    try:
        error = response.json().get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    return str(message or response.text or response.reason_phrase)[:300]


def _as_llm_error(error: Exception, context: ErrorContext) -> LLMError:
    if isinstance(error, LLMError):
        return error
    wrapped = LLMError(f"unexpected {type(error).__name__}: {error}", **context)
    wrapped.__cause__ = error
    return wrapped


def _openai_sdk():
    """The ``openai`` module, imported on first use: it takes about half a second, which every
    command that never talks to a model (``build``, ``info``) would otherwise pay."""
    import openai

    return openai
