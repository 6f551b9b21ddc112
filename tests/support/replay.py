"""Record a real model's replies through one tool and replay them to another, to compare the tools.

The local server gives the same request the same reply (it evaluates every prompt in the same
batches, see :mod:`causal_datasets.llm.local_server`), but asking it twice costs the model's time twice on a busy
machine, and a tool that sends other sampling settings would get other replies. So two tools are
compared on the same replies: the first run goes through :func:`recording` (a proxy in front of the
real server; start it with ``slots=1``), the second through :func:`replaying`, which answers only
requests whose messages were recorded (anything else gets an HTTP 500, so a tool that sends different
messages fails visibly) and takes no model time.
"""

from __future__ import annotations

import json
from typing import Any

from causal_datasets.llm.stub_server import Responder, StubReply, forward_to


def conversation_key(request: dict[str, Any]) -> str:
    """The messages of a chat request (role and text), as one string."""
    return json.dumps([(m["role"], m["content"]) for m in request["messages"]])


def recording(base_url: str) -> tuple[Responder, dict[str, StubReply]]:
    """A responder forwarding to ``base_url``, and the replies it saw by :func:`conversation_key`."""
    forward = forward_to(base_url)
    replies: dict[str, StubReply] = {}

    def respond(request: dict[str, Any], index: int) -> StubReply:
        reply = forward(request, index)
        replies[conversation_key(request)] = reply
        return reply

    return respond, replies


def replaying(replies: dict[str, StubReply]) -> Responder:
    def respond(request: dict[str, Any], index: int) -> StubReply:
        return replies.get(conversation_key(request)) or StubReply(status=500, text="no recorded reply for these messages")

    return respond
