"""How many requests a model server computes at once (its slots), and whether they are busy now.

llama.cpp's server and ``serve-local`` say so: ``GET /props`` has ``total_slots``; ``GET /slots`` lists
the slots, each with ``is_processing``. A server that says nothing (hosted APIs, vLLM) is unknown:
nothing is limited and nothing is awaited.

A request beyond the slots waits on the server while its timeout runs, and a request the client gave
up on is still computed to the end (llama.cpp finishes a non-streaming completion whose client has
gone). So :class:`~causal_datasets.llm.client.LLMClient` holds a :func:`slot_gate` while a request is
in flight, one per slot and shared by every client of the server in this process, and after a
timeout keeps holding it until :func:`slots_in_use` shows the abandoned request done before it sends
the request again.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

_GATES: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_GATES_LOCK = threading.Lock()


def slots_from_props(props: Any) -> int | None:
    """``total_slots`` of llama.cpp's ``GET /props`` reply (None when absent or not a positive whole number)."""
    total = props.get("total_slots") if isinstance(props, Mapping) else None
    return total if isinstance(total, int) and not isinstance(total, bool) and total > 0 else None


def slots_in_use(slots: Any) -> tuple[int, int] | None:
    """(processing, total) from llama.cpp's ``GET /slots`` reply; None when it is not such a list."""
    if not isinstance(slots, list) or not slots or not all(isinstance(slot, Mapping) for slot in slots):
        return None
    busy = [slot.get("is_processing") for slot in slots]
    if not all(isinstance(flag, bool) for flag in busy):
        return None
    return sum(busy), len(slots)


def slot_gate(endpoint: str, slots: int | None) -> threading.BoundedSemaphore | None:
    """The semaphore of ``slots`` places that every client of ``endpoint`` in this process shares (None: unknown)."""
    if slots is None:
        return None
    with _GATES_LOCK:
        return _GATES.setdefault((endpoint, slots), threading.BoundedSemaphore(slots))
