"""A scriptable OpenAI-compatible endpoint on 127.0.0.1, for tests and benchmarks of anything that calls a model.

A *responder* decides each reply from the request body and its arrival index: a normal
completion, an HTTP error with headers (``429`` + ``Retry-After``), a delay (to pass a timeout),
a body cut off mid-way or not JSON at all. The server counts and keeps every request, so a test
can prove that a cached re-run sends nothing (``requests``, ``request_headers``, ``count``). ``forward_to(url)`` makes it a counting proxy in
front of a real server. ``slots=N`` makes it behave as llama.cpp's server with N slots: it computes at
most N requests at once (each to the end, whether or not its client still waits), reports them on
``GET /props`` and ``GET /slots``, and ``peak_open`` says how many requests were ever open at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx2

from causal_datasets.llm.config import SINGLE_SLOT_TIMEOUT
from causal_datasets.loopback import LoopbackServer

STUB_MODEL = "stub-model"


@dataclass(frozen=True)
class StubReply:
    """What the server sends: ``body`` None means ``completion_body`` of ``text``; bytes are sent as is."""

    status: int = 200
    text: str = "ok"
    body: dict[str, Any] | list[Any] | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    truncate: bool = False  # announce the full Content-Length, send half, close the connection
    trickle: float = 0.0  # seconds between the bytes of the body (a server that never stops sending)


Responder = Callable[[dict[str, Any], int], StubReply]


def completion_body(text: str, *, model: str = STUB_MODEL, prompt_tokens: int = 0, completion_tokens: int = 0,
                    reasoning: str | None = None, reasoning_field: str = "reasoning_content", reasoning_tokens: int = 0,
                    cached_tokens: int = 0) -> dict:
    """A minimal ``chat.completion`` response; ``reasoning`` goes into the message's ``reasoning_field``, and
    ``reasoning_tokens``/``cached_tokens`` into the usage details, as reasoning models and prompt caches report them."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning is not None:
        message[reasoning_field] = reasoning
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}
    if reasoning_tokens:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    if cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": usage,
    }


def echo(delay: float = 0.0) -> Responder:
    """Reply ``echo: <last message>`` after ``delay`` seconds; tokens counted as whitespace-separated words."""

    def respond(request: dict[str, Any], index: int) -> StubReply:
        prompt = " ".join(str(m.get("content", "")) for m in request.get("messages", []))
        text = f"echo: {request['messages'][-1].get('content', '')}" if request.get("messages") else "echo:"
        body = completion_body(text, prompt_tokens=len(prompt.split()), completion_tokens=len(text.split()))
        return StubReply(body=body, delay=delay)

    return respond


def forward_to(base_url: str, timeout: float = SINGLE_SLOT_TIMEOUT) -> Responder:
    """Pass each request on to a real server at ``base_url`` and return its answer unchanged (a proxy in front
    of serve-local is best started with ``slots=1``, so its clients see the one slot behind it)."""
    client = httpx2.Client(timeout=timeout, trust_env=False)

    def respond(request: dict[str, Any], index: int) -> StubReply:
        response = client.post(f"{base_url.rstrip('/')}/chat/completions", json=request)
        return StubReply(status=response.status_code, body=response.content)

    return respond


def _default_body(reply: StubReply) -> dict[str, Any]:
    if reply.status >= 400:
        return {"error": {"message": f"stub error {reply.status}: {reply.text}", "type": "stub"}}
    return completion_body(reply.text)


class StubServer(LoopbackServer):
    """``with StubServer(responder) as server: server.base_url ... server.count``."""

    def __init__(self, responder: Responder | None = None, *, port: int = 0, slots: int | None = None):
        self.responder = responder or echo()
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []  # lower-cased names
        self.slots = slots
        self.peak_open = 0  # the most chat requests open at once (waiting for a slot or being computed)
        self._open = 0
        self._processing = 0
        self._compute = threading.Semaphore(slots or 1)
        self._lock = threading.Lock()
        super().__init__(_handler_for(self), port=port, name="stub-llm-server")

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    @property
    def count(self) -> int:
        """Chat requests received so far."""
        with self._lock:
            return len(self.requests)

    def _record(self, request: dict[str, Any], headers: dict[str, str]) -> int:
        with self._lock:
            self.requests.append(request)
            self.request_headers.append(headers)
            return len(self.requests) - 1

    def _slot_report(self, path: str) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The ``/props`` or ``/slots`` reply of a server with slots (None for other paths or without slots)."""
        if self.slots is None:
            return None
        with self._lock:
            busy = self._processing
        if path.endswith("/props"):
            return {"total_slots": self.slots}
        if path.endswith("/slots"):
            return [{"id": slot, "is_processing": slot < busy} for slot in range(self.slots)]
        return None

    def _answer(self, handler: Any, request: dict[str, Any], index: int) -> None:
        """Compute and send one reply; with slots, wait for one first and keep it until the reply is out."""
        with self._lock:
            self._open += 1
            self.peak_open = max(self.peak_open, self._open)
        try:
            if self.slots is None:
                handler._send(self.responder(request, index))
                return
            with self._compute:
                with self._lock:
                    self._processing += 1
                try:
                    handler._send(self.responder(request, index))
                finally:
                    with self._lock:
                        self._processing -= 1
        finally:
            with self._lock:
                self._open -= 1


def _handler_for(server: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as separate writes; do not wait for ACKs

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            report = server._slot_report(self.path.rstrip("/"))
            if report is not None:
                self._send(StubReply(body=report))
            elif self.path.rstrip("/").endswith("/models"):
                self._send(StubReply(body={"object": "list", "data": [{"id": STUB_MODEL, "object": "model"}]}))
            else:
                self._send(StubReply(status=404, body={"error": {"message": f"no route {self.path}"}}))

        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                request = json.loads(raw)
            except json.JSONDecodeError:
                self._send(StubReply(status=400, body={"error": {"message": "request body is not JSON"}}))
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(StubReply(status=404, body={"error": {"message": f"no route {self.path}"}}))
                return
            server._answer(self, request, server._record(request, {k.lower(): v for k, v in self.headers.items()}))

        def _send(self, reply: StubReply) -> None:
            if reply.delay:
                time.sleep(reply.delay)
            if isinstance(reply.body, bytes):
                payload = reply.body
            else:
                payload = json.dumps(reply.body if reply.body is not None else _default_body(reply)).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if reply.trickle:
                    for index in range(len(payload)):
                        self.wfile.write(payload[index : index + 1])
                        self.wfile.flush()
                        time.sleep(reply.trickle)
                else:
                    self.wfile.write(payload[: len(payload) // 2] if reply.truncate else payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (e.g. its timeout passed); nothing left to do
            if reply.truncate:
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence per-request logging
            return

    return Handler
