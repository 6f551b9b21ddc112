"""The process behind :class:`~causal_datasets.llm.local.LocalServer`: an OpenAI-compatible server of one GGUF
model (:class:`~causal_datasets.llm.gguf_chat.GGUFChat`) on 127.0.0.1.

``python -m causal_datasets.llm.local_server --model FILE --alias NAME --port N [--n-ctx N] [--threads N]``
loads the model, then answers:

- ``GET /v1/models``: the one model, named ``NAME``.
- ``POST /v1/chat/completions``: ``messages``, ``max_tokens`` (or ``max_completion_tokens``), ``temperature``
  (default 0.8, as llama-cpp-python's server), ``seed`` (default 0), ``stop``; not ``stream``. A prompt
  longer than the context window gets a 400 saying so, as llama.cpp's servers do.
- ``POST /tokenize`` (``{"content": TEXT}`` → ``{"tokens": [...]}``), as llama.cpp's server: a client counts a
  prompt with the model's own tokenizer.
- ``GET /props`` and ``GET /slots`` as llama.cpp's own server: one slot (``total_slots``, the context window as
  ``default_generation_settings.n_ctx``) and whether it is processing. The server computes one completion at a
  time and finishes one whose client has gone; a client reads here how many requests to have in flight and
  when a request it gave up on is done.
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from jinja2 import TemplateError

from causal_datasets.llm.gguf_chat import ContextOverflow, GGUFChat
from causal_datasets.loopback import LoopbackServer

#: requests the server computes at once (one model behind a lock)
SLOTS = 1
#: temperature of a request that names none (llama-cpp-python's server's default)
DEFAULT_TEMPERATURE = 0.8


class Slot:
    """The one computation at a time, and whether one is running now."""

    def __init__(self) -> None:
        self._compute = threading.Lock()
        self._busy = False

    @property
    def processing(self) -> bool:
        return self._busy

    @contextmanager
    def working(self) -> Iterator[None]:
        with self._compute:
            self._busy = True
            try:
                yield
            finally:
                self._busy = False


class BadRequest(ValueError):
    """A request the server answers with 400 and this message."""


def completion_request(body: Any) -> dict[str, Any]:
    """The arguments of :meth:`GGUFChat.complete` from a chat completion request body (``BadRequest`` when unusable)."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
        raise BadRequest("the request needs a non-empty 'messages' list")
    if body.get("stream"):
        raise BadRequest("streaming is not supported by this server")
    if not all(isinstance(m, dict) and isinstance(m.get("content", ""), str) for m in body["messages"]):
        raise BadRequest("each message needs a role and text content")
    stop = body.get("stop") or []
    stop = [stop] if isinstance(stop, str) else stop
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    temperature = body.get("temperature")
    seed = body.get("seed")
    if not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise BadRequest("'stop' must be a string or a list of strings")
    for name, value in (("max_tokens", max_tokens), ("seed", seed)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise BadRequest(f"'{name}' must be a whole number")
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, int | float)):
        raise BadRequest("'temperature' must be a number")
    return {
        "messages": body["messages"],
        "max_tokens": max_tokens,
        "temperature": DEFAULT_TEMPERATURE if temperature is None else float(temperature),
        "seed": 0 if seed is None else seed,
        "stop": stop,
    }


class ModelServer(LoopbackServer):
    """``chat`` served under the model name ``alias`` on 127.0.0.1:``port``."""

    def __init__(self, chat: GGUFChat, alias: str, *, port: int = 0):
        self.chat = chat
        self.alias = alias
        self.slot = Slot()
        super().__init__(_handler_for(self), port=port, name="local-model-server")

    def get(self, path: str) -> tuple[int, Any]:
        if path.endswith("/models"):
            return 200, {"object": "list", "data": [{"id": self.alias, "object": "model", "owned_by": "local"}]}
        if path == "/props":
            settings = {"n_ctx": self.chat.n_ctx}
            return 200, {"total_slots": SLOTS, "default_generation_settings": settings, "model_alias": self.alias}
        if path == "/slots":
            return 200, [{"id": 0, "n_ctx": self.chat.n_ctx, "is_processing": self.slot.processing}]
        return 404, _error(f"no route {path}", "not_found")

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        try:
            if path.endswith("/chat/completions"):
                return 200, self._completion(completion_request(body))
            if path == "/tokenize":
                if not isinstance(body, dict) or not isinstance(body.get("content"), str):
                    raise BadRequest("the request needs a 'content' string")
                return 200, {"tokens": self.chat.tokenize(body["content"])}
        except (BadRequest, ContextOverflow, TemplateError) as error:  # TemplateError: the chat template refused
            return 400, _error(str(error), "invalid_request_error")
        except Exception as error:  # noqa: BLE001 - any other failure is answered, never a dropped connection
            return 500, _error(f"{type(error).__name__}: {error}", "server_error")
        return 404, _error(f"no route {path}", "not_found")

    def _completion(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.slot.working():
            reply = self.chat.complete(**request)
        return {
            "id": f"chatcmpl-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.alias,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            self._reply(*server.get(self.path.split("?")[0].rstrip("/")))

        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                self._reply(400, _error("request body is not JSON", "invalid_request_error"))
                return
            self._reply(*server.post(self.path.split("?")[0].rstrip("/"), body))

        def _reply(self, status: int, body: Any) -> None:
            payload = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout passed); the completion was still computed to the end

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - no line per request
            return

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--model", required=True, help="the .gguf file")
    parser.add_argument("--alias", required=True, help="the model name clients send")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="CPU threads, for the prompt and the reply")
    args = parser.parse_args(argv)
    chat = GGUFChat(Path(args.model), n_ctx=args.n_ctx, threads=args.threads)
    stopped = threading.Event()
    for ending in (signal.SIGTERM, signal.SIGINT):  # SIGINT: Ctrl-C reaches the whole foreground process group
        signal.signal(ending, lambda *_: stopped.set())
    with ModelServer(chat, args.alias, port=args.port):
        print(f"serving {args.alias} on 127.0.0.1:{args.port}", flush=True)
        while not stopped.wait(0.5):
            pass


if __name__ == "__main__":
    main()
