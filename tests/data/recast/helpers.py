"""Helpers of the ReCAST tests: a scripted stand-in for ``LLMClient`` and the eval command for recast alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from causal_datasets.llm import ChatResult

Responder = Callable[[list[dict[str, str]]], str]


class ScriptedClient:
    """``chat`` like ``LLMClient``: the reply is ``responder(messages)`` or the next text of a list."""

    def __init__(self, responder: Responder | Sequence[str]):
        self.calls: list[list[dict[str, str]]] = []
        if callable(responder):
            self._respond = responder
        else:
            replies = iter(responder)
            self._respond = lambda messages: next(replies)

    def chat(self, messages: list[dict[str, str]], **overrides: Any) -> ChatResult:
        self.calls.append([dict(m) for m in messages])
        text = self._respond(messages)
        return ChatResult(text=text, prompt_tokens=0, completion_tokens=0, cached=False, attempts=1, model="scripted")

    def usage_summary(self) -> dict[str, Any]:
        return {"calls": len(self.calls)}


def run_recast_eval(argv: list[str]):
    """``causal-datasets eval recast ARGV`` through the engine; the typed summary."""
    from tests.support.runs import run_eval

    return run_eval("recast", *argv)
