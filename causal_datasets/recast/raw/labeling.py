"""LLM labels of a new sample: its domains (from title and abstract) and each node's explicitness.

Answers are validated and re-asked when invalid: domain numbers must be in the list; the
explicitness answer must give every node, verbatim, a score of 1, 2 or 3, and nothing else.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.structured import StructuredAnswer
from causal_datasets.recast.raw.prompts import (
    DOMAINS_PROMPT,
    EXPLICITNESS,
    ask_json,
    domain_request,
    explicitness_request,
)
from causal_datasets.recast.records import DOMAINS, EXPLICITNESS_LEVELS


class DomainAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    domains: list[int]


class ExplicitnessAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    scores: dict[str, int]


def _domains(value: Any) -> list[str]:
    numbers = DomainAnswer.model_validate(value).domains
    bad = [n for n in numbers if not 1 <= n <= len(DOMAINS)]
    if bad:
        raise ValueError(f"domain numbers {bad} are not in 1..{len(DOMAINS)}")
    return [DOMAINS[n - 1] for n in sorted(set(numbers))]


def label_domains(client: ChatClient, title: str, abstract: str, *, max_attempts: int = 3) -> StructuredAnswer:
    """``value``: the domain names, in list order."""
    return ask_json(client, DOMAINS_PROMPT, domain_request(title, abstract), _domains, max_attempts)


def label_explicitness(client: ChatClient, nodes: list[str], text: str, *, max_attempts: int = 3) -> StructuredAnswer:
    """``value``: ``{node: "explicit" | "implicit" | "absent"}`` covering exactly ``nodes``."""

    def checked(value: Any) -> dict[str, str]:
        scores = ExplicitnessAnswer.model_validate(value).scores
        missing = [n for n in nodes if n not in scores]
        extra = [n for n in scores if n not in nodes]
        bad = {n: s for n, s in scores.items() if s not in (1, 2, 3)}
        if missing or extra or bad:
            raise ValueError(f"missing nodes {missing[:10]}, unknown names {extra[:10]}, scores not 1-3 {bad}")
        return {n: EXPLICITNESS_LEVELS[scores[n] - 1] for n in nodes}

    return ask_json(client, EXPLICITNESS, explicitness_request(nodes, text), checked, max_attempts)
