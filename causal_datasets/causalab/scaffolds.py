"""The agent scaffolds the paper compares, by name (``eval causalab --scaffold NAME``).

The paper's agent is a ReAct-style loop with a persistent memory (the authors' ``react_simple-mem``
runner): every reply is one DSL record (memory, thought, past data, hypothesis, experiment), the whole
conversation is sent back each step. RQ4 adds one thing to it, an explicit verification step: before
a prediction is submitted the model is asked to check its hypothesis against every record it has
(the authors' ``_validate`` prompt), which lifts GPT-5-mini's 4-node accuracy from 48% to 60%.
``--verify`` and ``--history`` still set either part explicitly and win over the scaffold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ScaffoldName = Literal["react-memory", "react-memory-verify"]


@dataclass(frozen=True)
class Scaffold:
    """How the chat agent runs: whether it verifies before submitting, and what the paper reports with it."""

    verify: bool
    reproduces: str


SCAFFOLDS: dict[ScaffoldName, Scaffold] = {
    "react-memory": Scaffold(
        verify=False,
        reproduces="every main result (§5.2–5.4: Figs. 2–6, App. Tables 3–6) and RQ4's baseline (48% on 4 nodes)",
    ),
    "react-memory-verify": Scaffold(
        verify=True, reproduces="RQ4's verification step (§5.5: 4-node accuracy 48% → 60% for GPT-5-mini)"
    ),
}
