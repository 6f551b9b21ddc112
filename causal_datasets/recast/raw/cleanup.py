"""Optional LLM clean-up of extracted PDF text into Markdown (the paper's first text step).

A reply much shorter than its input usually means the model left sections out (the failure the
paper saw with reasoning models); such a reply is sent back with a note and the model tries again.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_datasets.llm import LLMError
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.structured import strip_thinking
from causal_datasets.recast.raw.prompts import CLEANUP

#: a clean-up shorter than this share of the raw text is taken as truncated
MIN_LENGTH_RATIO = 0.5


@dataclass(frozen=True)
class Cleanup:
    text: str | None
    error: str | None
    attempts: int


def clean_markdown(
    client: ChatClient, raw_text: str, *, max_attempts: int = 2, min_ratio: float = MIN_LENGTH_RATIO
) -> Cleanup:
    """Markdown from ``raw_text`` by ``client``; ``text`` is None (and ``error`` set) if every try fails."""
    messages = [{"role": "system", "content": CLEANUP}, {"role": "user", "content": raw_text}]
    error = "no attempt made"
    for attempt in range(1, max_attempts + 1):
        try:
            reply = client.chat(messages).text
        except LLMError as failure:
            return Cleanup(None, f"clean-up call failed: {failure}", attempt)
        text = _unfenced(strip_thinking(reply))
        if len(text) >= min_ratio * len(raw_text):
            return Cleanup(text, None, attempt)
        error = f"the Markdown has {len(text)} characters for {len(raw_text)} of input: sections were dropped"
        messages = [
            *messages,
            {"role": "assistant", "content": reply},
            {"role": "user", "content": f"{error}. Reply again with the entire document."},
        ]
    return Cleanup(None, error, max_attempts)


def _unfenced(text: str) -> str:
    """The reply without a wrapping ```markdown fence, if the model added one."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```"):
        return stripped.split("\n", 1)[1].rsplit("```", 1)[0].strip()
    return stripped
