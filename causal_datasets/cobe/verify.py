"""Whether a generated CoBe variation is kept: the paper's checks, as far as a program can make them.

The paper's authors checked every variation by hand "for coherence and unambiguity" (§3.1). Here a
variation is kept only when, in this order:

1. its text is not its core's text (``same_as_core``);
2. the CoBe criteria checks of :mod:`causal_datasets.cobe.quality` find nothing: every criterion
   describes an event of the text with its polarity, no event is both kept and changed, each query
   opens with its phrasing's template, the domain is known, both criterion lists are given (the
   first finding's kind is the category; every finding is kept);
3. the judge of the benchmark (:mod:`causal_datasets.cobe.judge`, one T/F call per criterion, the
   paper's appendix C.2 prompts) passes the variation's own representative answer on every criterion
   it has (``answer_fails_criteria``; no valid verdict: ``judge_unresolved``; a judge call that
   failed: ``call_failed``, asked again when the construction resumes).

A program cannot tell a coherent story from a subtly wrong one: a person should still read the kept
variations, as the paper's authors did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from causal_datasets.cobe.judge import INVALID_ANSWER, judge_response
from causal_datasets.cobe.prompts import CriteriaSet
from causal_datasets.cobe.quality import check_scenario
from causal_datasets.cobe.records import (
    PHRASINGS,
    CoBeScenario,
    CriterionCheck,
    Domain,
    QualityIssue,
    Query,
    VariationCategory,
)
from causal_datasets.cobe.variation_prompts import VariationReply
from causal_datasets.llm.chat import ChatClient


@dataclass
class Verification:
    """What the checks found: ``category`` None when the variation is kept."""

    category: VariationCategory | None = None
    detail: str | None = None
    quality_issues: list[QualityIssue] = field(default_factory=list)
    verdicts: list[CriterionCheck] = field(default_factory=list)


def scenario_fields(reply: VariationReply, core: CoBeScenario, domain: Domain | None) -> dict[str, Any]:
    """The ``CoBeScenario`` fields a reply gives (the graph type is the core's: a variation keeps its structure)."""
    return {
        "text": reply.text,
        "queries": [Query(phrasing=p, text=q) for p, q in zip(PHRASINGS, reply.queries, strict=True)],
        "representative_answer": reply.representative_answer,
        "should_not_change": reply.should_not_change,
        "should_change": reply.should_change,
        "numerical_change": reply.numerical_change,
        "latent_factors": reply.latent_factors,
        "domain": domain,
        "domain_raw": domain,
        "graph_type": core.graph_type,
        "graph_type_raw": core.graph_type,
    }


def verify(reply: VariationReply, core: CoBeScenario, domain: Domain | None, judge: ChatClient) -> Verification:
    """The checks above, in order; the judge is asked only about a variation the other checks pass."""
    if " ".join(reply.text.split()).casefold() == " ".join(core.text.split()).casefold():
        return Verification("same_as_core", "the variation's text is its core's text")
    issues = check_scenario(scenario_fields(reply, core, domain))
    if issues:
        return Verification(issues[0].kind, issues[0].detail, quality_issues=issues)
    judgement = judge_response(judge, CriteriaSet.of(reply.model_dump()), reply.representative_answer)
    verdicts = [CriterionCheck(code=c.code, passed=c.passed, error=c.error) for c in judgement.criteria]
    if judgement.verdict == "correct":
        return Verification(verdicts=verdicts)
    failed = [c.code for c in judgement.criteria if c.passed is False]
    if failed:
        return Verification("answer_fails_criteria", f"the judge fails its answer on {', '.join(failed)}", [], verdicts)
    call_failed = any(c.error and c.error != INVALID_ANSWER for c in judgement.criteria)
    detail = next((c.error_detail for c in judgement.criteria if c.error), None)
    return Verification("call_failed" if call_failed else "judge_unresolved", detail, [], verdicts)
