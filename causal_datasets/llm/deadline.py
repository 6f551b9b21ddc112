"""A whole-request deadline and a body size limit for the HTTP client.

httpx's timeouts bound each phase (connect, each read); a server that trickles its reply a byte at a
time never trips them. ``RequestDeadline`` starts a clock when a request goes out and, once the
response headers are in, checks it between the chunks of the body: past the deadline the read ends
with ``httpx2.ReadTimeout`` (which the openai SDK reports as a timeout). A request therefore takes
at most the deadline plus one read timeout. It also counts the body's bytes: past ``max_bytes``
the read ends with :class:`ResponseTooLarge`, so no reply, however long a model reasons, is read
into memory beyond the limit.

``work_deadline(seconds)`` bounds a whole unit of work (an episode of many calls): every ``chat``
started inside it after the time is up fails at once with ``LLMTimeout``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from weakref import WeakKeyDictionary

import httpx2

#: the largest response body read (a reply and its reasoning of 1,000,000 characters each fit, escaped)
MAX_RESPONSE_BYTES = 32 * 1024 * 1024


class ResponseTooLarge(httpx2.ReadError):
    """The response body exceeded the size limit; the rest was not read (a read error to the openai SDK)."""


class RequestDeadline:
    """Event hooks for an ``httpx2.Client`` that bound every request to ``seconds`` in total and its
    response body to ``max_bytes``."""

    def __init__(self, seconds: float, max_bytes: int = MAX_RESPONSE_BYTES):
        self.seconds = seconds
        self.max_bytes = max_bytes
        self._started: WeakKeyDictionary[httpx2.Request, float] = WeakKeyDictionary()

    def hooks(self) -> dict[str, list]:
        return {"request": [self._start], "response": [self._watch]}

    def _start(self, request: httpx2.Request) -> None:
        self._started[request] = time.monotonic()

    def _watch(self, response: httpx2.Response) -> None:
        if not isinstance(response.stream, httpx2.SyncByteStream):  # the hooks serve a synchronous client only
            return
        started = self._started.get(response.request, time.monotonic())
        response.stream = _Watched(response.stream, started + self.seconds, self.seconds, self.max_bytes,
                                   response.request)


class _Watched(httpx2.SyncByteStream):
    def __init__(self, inner: httpx2.SyncByteStream, deadline: float, seconds: float, max_bytes: int,
                 request: httpx2.Request):
        self.inner, self.deadline, self.seconds = inner, deadline, seconds
        self.max_bytes, self.request = max_bytes, request

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self.inner:
            if time.monotonic() > self.deadline:
                raise httpx2.ReadTimeout(f"the whole response took longer than {self.seconds}s", request=self.request)
            read += len(chunk)
            if read > self.max_bytes:
                raise ResponseTooLarge(f"the response body is larger than {self.max_bytes} bytes", request=self.request)
            yield chunk

    def close(self) -> None:
        self.inner.close()


_WORK_DEADLINE: ContextVar[float | None] = ContextVar("work_deadline", default=None)


@contextmanager
def work_deadline(seconds: float | None) -> Iterator[None]:
    """Inside, model calls started after ``seconds`` fail at once (None: no limit); per thread."""
    token = _WORK_DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _WORK_DEADLINE.reset(token)


def work_time_left() -> float | None:
    """Seconds left before the current work deadline (None without one; 0 or less when it has passed)."""
    deadline = _WORK_DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()
