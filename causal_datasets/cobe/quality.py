"""Data-quality checks of one CoBe scenario; findings are attached to the record, never used to drop it.

The criteria describe events of the *original* text, usually paraphrased, so occurrence is
checked on content words rather than exact strings:

* ``criterion_not_in_text`` — a criterion sentence whose content words mostly do not occur in the
  text (e.g. criteria copied from another scenario, as in 313v6), or that matches a clause of the
  text with the opposite polarity (403v28: "I had a snack beforehand." against "I skipped having a
  snack beforehand.").
* ``criterion_in_both_lists`` — the same event listed as should-not-change and should-change.
* ``query_off_template`` — a query that does not open with its phrasing's template wording.
* ``unknown_domain`` / ``unknown_graph_type`` — a label spelling with no mapping in ``cobe.labels``.
* ``missing_criteria`` — no should-not-change or no should-change criterion.

These are heuristics meant to point a reader at rows worth a look; their thresholds are below.
:func:`findings` sums them up per kind for the card, with the scenarios the source lists twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from causal_datasets.builder import Finding
from causal_datasets.cobe.labels import follows_template
from causal_datasets.cobe.records import QUALITY_KINDS, CoBeScenario, QualityIssue, QualityKind

#: minimum share of a criterion sentence's content words found in the text
MIN_COVERAGE = 0.5
#: minimum overlap (Jaccard of content words) for two passages to describe the same event
SAME_EVENT = 0.6
STEM_LENGTH = 5  # words compare on their first five letters ("delayed" ~ "delay")

_STOPWORDS = frozenset(
    "a an the and or but of to in on at for with was were is are be been had has have having it its "
    "he she they his her their i my me we our that this as by from so above text".split()
)
#: what each finding kind means, as the card says it
KIND_ISSUES: dict[QualityKind, str] = {
    "criterion_not_in_text": "a criterion the text does not contain, or contradicts (heuristic)",
    "criterion_in_both_lists": "one event both in should-not-change and in should-change (heuristic)",
    "query_off_template": "a query that does not open with its phrasing's template",
    "unknown_domain": "a domain spelling with no mapping",
    "unknown_graph_type": "a graph-type spelling with no mapping",
    "missing_criteria": "no should-not-change or no should-change criterion",
}
_NEGATION = re.compile(r"\b(?:not|no|never|without|skipped|failed|unable|none|nor|cannot)\b|n't\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_BREAK = re.compile(r"[,;:.!?]|\b(?:but|and|because|so|while|when|which|after|before|although|though)\b", re.I)


def check_scenario(fields: Mapping[str, Any]) -> list[QualityIssue]:
    """Every finding for one scenario's fields (as passed to ``CoBeScenario``)."""
    issues: list[QualityIssue] = []
    text = fields["text"]
    for kind in ("should_not_change", "should_change"):
        for sentence in (s for c in fields[kind] for s in sentences(c)):
            problem = occurrence_problem(sentence, text)
            if problem:
                issues.append(QualityIssue(kind="criterion_not_in_text", detail=f"{kind}: {sentence!r} {problem}"))
    for kept in (s for c in fields["should_not_change"] for s in sentences(c)):
        for changed in (s for c in fields["should_change"] for s in sentences(c)):
            if overlap(content_stems(kept), content_stems(changed)) >= SAME_EVENT:
                issues.append(
                    QualityIssue(kind="criterion_in_both_lists", detail=f"kept {kept!r} ~ changed {changed!r}")
                )
    for query in fields["queries"]:
        if not follows_template(query.text, query.phrasing):
            issues.append(QualityIssue(kind="query_off_template", detail=f"{query.phrasing}: {query.text!r}"))
    for label in ("domain", "graph_type"):
        if fields[f"{label}_raw"] is not None and fields[label] is None:
            issues.append(QualityIssue(kind=f"unknown_{label}", detail=f"{fields[f'{label}_raw']!r}"))
    for kind in ("should_not_change", "should_change"):
        if not fields[kind]:
            issues.append(QualityIssue(kind="missing_criteria", detail=f"no {kind} criterion"))
    return issues


def findings(scenarios: Sequence[CoBeScenario], duplicates: Sequence[str]) -> list[Finding]:
    """One finding per kind (scenarios carrying it; details stay in ``quality_issues``), then the repeated listings."""
    per_kind = [
        Finding(
            "scenarios", KIND_ISSUES[kind], "kept; each case is in the row's `quality_issues`",
            ids=tuple(s.id for s in scenarios if any(i.kind == kind for i in s.quality_issues)), unit="scenarios",
        )
        for kind in QUALITY_KINDS
    ]  # fmt: skip
    listed = Finding(
        "scenarios", "listed more than once in the source (identical copies)",
        "kept once; `source_groups` names every listing", ids=tuple(duplicates), unit="scenarios",
    )  # fmt: skip
    return [*per_kind, listed]


def occurrence_problem(sentence: str, text: str) -> str | None:
    """Why ``sentence`` does not describe an event of ``text``, or None when it does."""
    stems = content_stems(sentence)
    if not stems:
        return None
    coverage = len(stems & content_stems(text)) / len(stems)
    if coverage < MIN_COVERAGE:
        return f"shares only {coverage:.0%} of its content words with the text"
    text_clauses = clauses(text)
    for clause in clauses(sentence):
        best = max(text_clauses, key=lambda t: overlap(content_stems(clause), content_stems(t)))
        if overlap(content_stems(clause), content_stems(best)) >= MIN_COVERAGE and negated(clause) != negated(best):
            return f"has the opposite polarity of the text's {best.strip()!r}"
    return None


def sentences(passage: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(passage.strip()) if s.strip()]


def clauses(passage: str) -> list[str]:
    return [c for c in _CLAUSE_BREAK.split(passage) if content_stems(c)]


def content_stems(passage: str) -> set[str]:
    words = re.findall(r"[a-z0-9%$]+", passage.lower().replace("’", "'"))
    return {w[:STEM_LENGTH] for w in words if w not in _STOPWORDS}


def overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def negated(passage: str) -> bool:
    return bool(_NEGATION.search(passage.replace("’", "'")))
