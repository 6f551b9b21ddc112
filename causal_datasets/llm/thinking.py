"""``<think>…</think>`` sections of a reply: the reasoning a model writes into its answer text.

Servers that separate reasoning send it in a field of its own (``reasoning_content``, ``reasoning``);
others leave it inline in the content between ``<think>`` tags. ``split_thinking`` separates the two
parts in one linear pass: an unclosed ``<think>`` makes the rest reasoning, and a lone ``</think>``
(the reply of a prefilled ``<think>``, say) makes everything before it reasoning.
"""

from __future__ import annotations

import re

_TAG = re.compile(r"<(/?)think>", re.IGNORECASE | re.ASCII)
_CLOSE = re.compile(r"</think>", re.IGNORECASE | re.ASCII)


def split_thinking(text: str) -> tuple[str, str]:
    """``(answer, reasoning)``: the text outside the ``<think>`` sections and the text inside them, each stripped."""
    kept: list[str] = []
    thought: list[str] = []
    position = 0
    while (tag := _TAG.search(text, position)) is not None:
        if tag.group(1):  # a lone closing tag: everything before it was reasoning
            thought.append("".join(kept) + text[position : tag.start()])
            kept, position = [], tag.end()
            continue
        kept.append(text[position : tag.start()])
        end = _CLOSE.search(text, tag.end())
        if end is None:  # unclosed: it hides the rest
            thought.append(text[tag.end() :])
            position = len(text)
            break
        thought.append(text[tag.end() : end.start()])
        position = end.end()
    kept.append(text[position:])
    return "".join(kept).strip(), "\n\n".join(part.strip() for part in thought if part.strip())


def strip_thinking(text: str) -> str:
    """Text without ``<think>…</think>`` sections (an unclosed ``<think>`` hides the rest, a lone ``</think>``
    what precedes it)."""
    return split_thinking(text)[0]
