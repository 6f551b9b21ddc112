"""The LLM-as-a-judge column of DoVerifier's Table 1: does a model say two causal expressions are equal?

The judge sees what the paper's judge saw: the causal graph, the reference expression and the
predicted one; it ends its reply with ``Verdict: equivalent`` or ``Verdict: not equivalent``.
An answer without a readable verdict is asked again in the same conversation, up to
``max_attempts`` times, and then left undecided (``invalid_judge_answer``) rather than guessed.
A failed call raises the client's :class:`~causal_datasets.errors.LLMError`: the run counts the
item failed (``--resume`` asks again), never judged.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from causal_datasets.docalc.graph import DoGraph
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.structured import strip_thinking

Messages = list[dict[str, str]]
DEFAULT_ATTEMPTS = 2

JUDGE_SYSTEM = """You check causal inference answers. You are given a causal graph (a DAG; some variables may be
unobserved), a reference expression and a predicted expression. Decide whether the predicted
expression is equal to the reference in every causal model with this graph: rewriting by the
rules of probability and of do-calculus, a different order of terms or other names for summation
indices does not make it wrong; a different quantity does.

Reason briefly, then end your reply with one line, exactly one of
Verdict: equivalent
Verdict: not equivalent"""

REASK = (
    "Your reply did not end with a verdict line. "
    "Answer with one line: `Verdict: equivalent` or `Verdict: not equivalent`."
)

_VERDICT = re.compile(
    r"verdict[*_`\s]*[:=]\s*[*_`\"']*\s*(?P<value>not\s+equivalent|equivalent|yes|no)\b", re.IGNORECASE
)


@dataclass
class JudgeVerdict:
    """The judge's answer: ``equivalent`` True/False, or None with ``error`` (``no_expression``:
    nothing to judge; ``invalid_judge_answer``: no readable verdict after every attempt)."""

    equivalent: bool | None
    answers: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def judge_messages(prediction: str, reference: str, graph: DoGraph) -> Messages:
    observed = [n for n in graph.nodes if n not in graph.latent]
    hidden = ", ".join(sorted(graph.latent)) or "none"
    user = (
        f"Causal graph: {', '.join(f'{s} -> {t}' for s, t in graph.edges)}\n"
        f"Observed variables: {', '.join(observed)}\nUnobserved variables: {hidden}\n"
        f"Reference expression: {reference}\nPredicted expression: {prediction}"
    )
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


def parse_verdict(text: str) -> bool | None:
    """True for the last ``Verdict: equivalent`` (or yes), False for ``not equivalent`` (or no),
    None without a verdict line (outside any think block)."""
    matches = list(_VERDICT.finditer(strip_thinking(text or "")))
    if not matches:
        return None
    value = " ".join(matches[-1].group("value").lower().split())
    return value in ("equivalent", "yes")


def ask_judge(
    client: ChatClient, prediction: str | None, reference: str, graph: DoGraph, max_attempts: int = DEFAULT_ATTEMPTS
) -> JudgeVerdict:
    """The judge's verdict on ``prediction`` (None: nothing to judge, no call made)."""
    if prediction is None:
        return JudgeVerdict(None, error="no_expression")
    conversation = judge_messages(prediction, reference, graph)
    verdict = JudgeVerdict(None)
    for _ in range(max_attempts):
        answer = client.chat(conversation).text  # an LLMError ends the item (failed, asked again on --resume)
        verdict.answers.append(answer)
        verdict.equivalent = parse_verdict(answer)
        if verdict.equivalent is not None:
            return verdict
        conversation = [*conversation, {"role": "assistant", "content": answer}, {"role": "user", "content": REASK}]
    verdict.error = "invalid_judge_answer"
    return verdict
