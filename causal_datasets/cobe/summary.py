"""The summary of a CoBe run: :class:`CoBeMetrics` and its slices (per domain, graph type, phrasing,
model and, with ``--failure-modes``, failure mode), from the scored rewrites."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from pydantic import Field

from causal_datasets.agreement import agreement
from causal_datasets.cobe.failure_modes import FAILURE_MODES
from causal_datasets.cobe.records import CoBeQuery
from causal_datasets.cobe.scores import CoBeScores, Rewrite
from causal_datasets.cobe.scoring import ScoredRow, by_model
from causal_datasets.cobe.scoring import summarize as summarize_rows
from causal_datasets.cobe.statistics import text_statistics
from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import TaskContext

UNCLASSIFIED = "(unclassified)"


class CoBeMetrics(BenchmarkMetrics):
    """CoBe: accuracy (also as mean ± SD over the phrasings, Table 5), E1–E5 failure rates, errors, agreement
    with the published verdicts and the scenarios' text statistics (Table 2); per-model tables are slices."""

    benchmark: Literal["cobe"] = "cobe"
    count: int = Field(title="responses")
    accuracy: float | None = Field(title="accuracy", description="responses passing every criterion / responses")
    accuracy_phrasing_mean: float | None = Field(
        default=None,
        title="accuracy, mean over phrasings",
        description="mean of the accuracies of the query phrasings (Table 5)",
    )
    accuracy_phrasing_sd: float | None = Field(
        default=None,
        title="accuracy, SD over phrasings",
        description="population SD of the accuracies of the query phrasings",
    )
    correct: int = Field(title="correct")
    wrong: int = Field(title="wrong")
    unknown: int = Field(title="unknown", description="responses with a criterion the judge could not decide")
    failure_rate: dict[str, float | None] = Field(title="failure rate per criterion")
    criteria: dict[str, dict[str, float | int | None]] = Field(title="criterion counts")
    errors: dict[str, dict[str, int]] = Field(title="errors (items, criteria)")
    agreement: dict[str, float | int | None] | None = Field(default=None, title="agreement with the published verdicts")
    text_statistics: dict[str, float | int | None] | None = Field(
        default=None,
        title="scenario text statistics",
        description="words, sentences and clauses per scenario (Table 2)",
    )


def summarize(results: list[Rewrite], context: TaskContext) -> tuple[CoBeMetrics, Slices]:
    queries = {q.id: q for q in context.rows("queries", CoBeQuery)}
    scores = [r.scores for r in results]
    rows = [_scored(s, queries[s.query_id]) for s in scores]
    summary = summarize_rows(rows)
    slices = {name: summary.pop(name) for name in ("by_domain", "by_graph_type", "by_phrasing")}
    slices["by_model"] = by_model(rows)
    summary["count"] = summary.pop("n")
    summary["errors"] = _error_counts(scores)
    summary["text_statistics"] = text_statistics([queries[query].text for query in _one_query_per_scenario(scores)])
    if context.configs == ("responses",) and any(s.judged for s in scores):
        pairs = [(s.verdict, s.published_verdict) for s in scores if s.published_verdict is not None]
        summary["agreement"] = agreement([mine for mine, _ in pairs], [theirs for _, theirs in pairs])
        for model, entry in slices["by_model"].items():
            mine = [s.published_verdict for s in scores if s.model == model]
            entry["published_accuracy"] = mine.count("correct") / len(mine)
    if context.options.failure_modes:
        slices["by_failure_mode"] = by_failure_mode(scores)
    return CoBeMetrics(**summary), slices


def _one_query_per_scenario(scores: list[CoBeScores]) -> list[str]:
    """The first query id of each scenario in the results (a scenario's text counts once, as in Table 2)."""
    first: dict[str, str] = {}
    for one in scores:
        first.setdefault(one.scenario_id, one.query_id)
    return list(first.values())


def _scored(scores: CoBeScores, query: CoBeQuery) -> ScoredRow:
    passed = {c.code: c.passed for c in scores.criteria}
    return ScoredRow(
        verdict=scores.verdict,
        passed=passed,
        domain=query.domain,
        graph_type=query.graph_type,
        phrasing=query.phrasing,
        model=scores.model,
    )


def _error_counts(scores: list[CoBeScores]) -> dict[str, dict[str, int]]:
    """Items by error category (an item's first), and unresolved criteria by category."""
    items = Counter(s.error for s in scores if s.error)
    criteria = Counter(c.error for s in scores for c in s.criteria if c.error)
    return {"items": dict(sorted(items.items())), "criteria": dict(sorted(criteria.items()))}


def by_failure_mode(scores: list[CoBeScores]) -> dict[str, dict[str, Any]]:
    """Per failure mode (paper order, then the unclassified): wrong rewrites in it, their share of the
    classified ones, and per model the share of that model's classified wrong rewrites (Fig. 9)."""
    wrong = [s for s in scores if s.failure_mode]
    keys = [(s.failure_mode or {})["key"] or UNCLASSIFIED for s in wrong]
    classified = [k for k in keys if k != UNCLASSIFIED]
    per_model = Counter(s.model for s, k in zip(wrong, keys, strict=True) if k != UNCLASSIFIED)
    table = {}
    for key in [m.key for m in FAILURE_MODES] + ([UNCLASSIFIED] if UNCLASSIFIED in keys else []):
        members = [s for s, k in zip(wrong, keys, strict=True) if k == key]
        counts = Counter(s.model for s in members)
        table[key] = {
            "n": len(members),
            "share": len(members) / len(classified) if classified and key != UNCLASSIFIED else None,
            "model_share": {m: counts[m] / per_model[m] for m in sorted(per_model)} if key != UNCLASSIFIED else {},
        }
    return table
