"""Example replies: per run, the model calls of its first scored item that made any, reasoning apart from reply.

Long texts are cut (the whole text is in the run's ``results.jsonl``); a run without recorded calls
(a reference agent, or a run written before calls were kept) shows none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from causal_datasets.report.runs import Run
from causal_datasets.runners.records import ItemResult, ModelCall

#: characters shown of a reply and of its reasoning, and calls shown per item
SHOWN_CHARS = 600
SHOWN_CALLS = 3


def examples_section(runs: Sequence[Run]) -> str | None:
    """Markdown of one example item per run that has model calls; None when no run has any."""
    parts = []
    for run in runs:
        item = next((r for r in run.results if r.status == "scored" and r.calls), None)
        if item is not None:
            parts.append(_item(run, item))
    return "\n\n".join(parts) or None


def _item(run: Run, item: ItemResult) -> str:
    lines = [f"#### {run.label}: item `{item.id}` ({item.config})"]
    for call in item.calls[:SHOWN_CALLS]:
        lines += ["", _call(call)]
    if len(item.calls) > SHOWN_CALLS:
        lines += ["", f"… and {len(item.calls) - SHOWN_CALLS} more calls"]
    return "\n".join(lines)


def _call(call: ModelCall) -> str:
    tokens = f"{call.completion_tokens} completion tokens"
    if call.reasoning_tokens:
        tokens += f", {call.reasoning_tokens} of them reasoning"
    lines = [f"**{call.role}** ({call.model}; {tokens})"]
    if call.error:
        return "\n".join([*lines, "", f"failed: {_cut(call.error)}"])
    if call.reasoning:
        lines += ["", *(f"> {line}" if line else ">" for line in f"reasoning: {_cut(call.reasoning)}".splitlines())]
    lines += ["", code_block(_cut(call.reply or ""))]
    return "\n".join(lines)


def code_block(text: str) -> str:
    """``text`` in a fenced block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}… ({len(text) - SHOWN_CHARS} more characters)"
