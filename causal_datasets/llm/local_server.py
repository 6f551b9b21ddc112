"""The process behind :class:`~causal_datasets.llm.local.LocalServer`: llama-cpp-python's OpenAI-compatible
server, made reproducible and able to say how busy it is.

``python -m causal_datasets.llm.local_server --model FILE --alias NAME --port N [--n-ctx N] [--threads N]``
serves ``llama_cpp.server``'s app with two changes:

- **Every prompt is evaluated in the same batches.** llama-cpp-python keeps the previous prompt in its
  KV cache and evaluates only the part of a new prompt after the longest shared prefix (for the same
  prompt again: its last token alone). The work is then split into other batches, which changes the
  last bits of the logits, so a request at temperature 0 could get another reply than the same request
  got before. Here only whole batches of the shared prefix are reused (:func:`reusable_prefix`) and the
  rest is evaluated in the batches a fresh evaluation makes, so the reply is a function of the request
  alone while the system prompt that requests share is still not evaluated again each time.
- **``GET /props`` and ``GET /slots`` answer as llama.cpp's own server does**: one slot
  (``total_slots``, the context window as ``default_generation_settings.n_ctx``) and whether it is
  processing. The server computes one completion at a time and finishes one whose client has gone; a
  client reads here how many requests to have in flight and when a request it gave up on is done.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

#: requests llama-cpp-python's server computes at once (one model behind a lock)
SLOTS = 1


class Slot:
    """Whether the model is computing a completion now (prompt evaluation and generation)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._working = 0

    @property
    def processing(self) -> bool:
        with self._lock:
            return self._working > 0

    @contextmanager
    def working(self) -> Iterator[None]:
        with self._lock:
            self._working += 1
        try:
            yield
        finally:
            with self._lock:
                self._working -= 1


def reusable_prefix(cached: Sequence[int], prompt: Sequence[int], batch: int) -> int:
    """How many leading tokens of ``prompt`` may come from the KV cache of ``cached`` (the tokens evaluated
    before): the shared prefix cut down to whole batches of ``batch`` tokens, and never the whole prompt.
    Evaluated from there in batches of ``batch``, the prompt goes through exactly the batches a fresh
    evaluation makes, so the logits are the same bits."""
    shared = 0
    for before, now in zip(cached, prompt):
        if before != now:
            break
        shared += 1
    keep = shared // batch * batch
    return keep - batch if keep >= len(prompt) else keep


def evaluate_prompts_in_fixed_batches(llama: Any, slot: Slot) -> None:
    """Make ``llama`` (a ``llama_cpp.Llama``) reuse only a :func:`reusable_prefix` of the previous prompt before
    each generation, and mark ``slot`` as processing while one runs."""
    generate = llama.generate

    def generate_in_fixed_batches(tokens: Any, *args: Any, **kwargs: Any) -> Iterator[int]:
        tokens = list(tokens)
        # generate() reuses the longest prefix of what is cached; leave it only whole batches of this prompt
        llama.n_tokens = reusable_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens, llama.n_batch)
        with slot.working():
            yield from generate(tokens, *args, **kwargs)

    llama.generate = generate_in_fixed_batches


def create_app(model: str, alias: str, n_ctx: int, threads: int) -> Any:
    """The FastAPI app: llama-cpp-python's server, its model changed by :func:`evaluate_prompts_in_fixed_batches`, and
    ``/props`` and ``/slots``."""
    from llama_cpp.server import app as llama_app
    from llama_cpp.server.model import LlamaProxy
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    slot = Slot()
    load = LlamaProxy.load_llama_from_model_settings

    def load_reproducible(settings: ModelSettings) -> Any:
        llama = load(settings)
        evaluate_prompts_in_fixed_batches(llama, slot)
        return llama

    # this process serves only this model
    LlamaProxy.load_llama_from_model_settings = staticmethod(load_reproducible)  # type: ignore[method-assign]
    # the prompt on as many threads as the reply: llama-cpp-python's default takes every CPU for it, whose spinning
    # threads slowed prompts down up to threefold on a shared 2-core machine
    settings = ModelSettings(model=model, model_alias=alias, n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                             verbose=False)
    app = llama_app.create_app(server_settings=ServerSettings(), model_settings=[settings])

    @app.get("/props")
    def props() -> dict[str, Any]:
        return {"total_slots": SLOTS, "default_generation_settings": {"n_ctx": n_ctx}, "model_alias": alias}

    @app.get("/slots")
    def slots() -> list[dict[str, Any]]:
        return [{"id": 0, "n_ctx": n_ctx, "is_processing": slot.processing}]

    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--model", required=True, help="the .gguf file")
    parser.add_argument("--alias", required=True, help="the model name clients send")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="CPU threads, for the prompt and the reply")
    args = parser.parse_args(argv)
    import uvicorn

    app = create_app(args.model, args.alias, args.n_ctx, args.threads)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
