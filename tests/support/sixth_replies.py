"""The stub server's replies to the sixth benchmark's questions: sums right on odd sums, one too many on even
ones; a critic's question (``CRITIC: ...``) answered ``yes``."""

from __future__ import annotations

from typing import Any

from causal_datasets.llm.stub_server import StubReply


def adder(request: dict[str, Any], index: int) -> StubReply:
    """Right on odd sums, one too many on even ones; ``yes`` to a critic's question."""
    question = request["messages"][-1]["content"]
    if question.startswith("CRITIC"):
        return StubReply(text="yes")
    a, b = (int(n) for n in question.removeprefix("What is ").split("?")[0].split(" + "))
    return StubReply(text=f"It is {a + b + (a + b + 1) % 2}.")
