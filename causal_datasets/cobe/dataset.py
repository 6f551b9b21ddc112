"""From parsed scenarios to the three configs, and the statistics the dataset card shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from causal_datasets.markdown import markdown_table
from causal_datasets.records.cobe import (
    DOMAINS,
    GRAPH_TYPES,
    VERDICTS,
    CoBeQuery,
    CoBeResponse,
    CoBeScenario,
)


def query_records(scenarios: Sequence[CoBeScenario]) -> list[CoBeQuery]:
    """One row per scenario × phrasing, carrying everything needed to ask and to judge it."""
    shared = (set(CoBeQuery.model_fields) & set(CoBeScenario.model_fields)) - {"id"}
    return [
        CoBeQuery(
            id=f"{s.id}-{q.phrasing}",
            scenario_id=s.id,
            phrasing=q.phrasing,
            query=q.text,
            num_quality_issues=len(s.quality_issues),
            **{name: getattr(s, name) for name in shared},
        )
        for s in scenarios
        for q in s.queries
    ]


def card_tables(scenarios: Sequence[CoBeScenario], responses: Sequence[CoBeResponse]) -> dict[str, Any]:
    """Markdown tables for the card: labels, each scenario's quality findings, published verdicts."""
    domains = Counter(s.domain or "(not given)" for s in scenarios)
    graphs = Counter(s.graph_type or "(not given)" for s in scenarios)
    raw_graphs = sorted({(s.graph_type_raw, s.graph_type) for s in scenarios if s.graph_type_raw})
    flagged = [
        [s.id, issue.kind, issue.detail] for s in scenarios for issue in s.quality_issues
    ]
    return {
        "num_scenarios": len(scenarios),
        "domain_table": markdown_table(["domain", "scenarios"], [[d, domains[d]] for d in (*DOMAINS, "(not given)") if domains[d]]),
        "graph_table": markdown_table(
            ["graph type", "scenarios"], [[g, graphs[g]] for g in (*GRAPH_TYPES, "(not given)") if graphs[g]]
        ),
        "graph_spellings": ", ".join(f"`{raw}` → `{label}`" for raw, label in raw_graphs) or "(none)",
        "num_flagged_scenarios": sum(1 for s in scenarios if s.quality_issues),
        "quality_table": markdown_table(["scenario", "finding", "detail"], flagged) if flagged else "(no findings)",
        "num_listings": sum(len(s.source_groups) for s in scenarios),
        "verdict_table": verdict_table(responses),
    }


def verdict_table(responses: Sequence[CoBeResponse]) -> str:
    """Published verdict counts per model (and the share judged correct among known verdicts)."""
    if not responses:
        return "(no model outputs in this source)"
    by_model: Mapping[str, Counter] = {}
    for response in responses:
        by_model.setdefault(response.model, Counter())[response.verdict] += 1
    rows = []
    for model, counts in by_model.items():
        known = counts["correct"] + counts["wrong"]
        rows.append([model, *(counts[v] for v in VERDICTS), counts["correct"] / known if known else float("nan")])
    total = Counter(r.verdict for r in responses)
    known = total["correct"] + total["wrong"]
    rows.append(["all", *(total[v] for v in VERDICTS), total["correct"] / known if known else float("nan")])
    return markdown_table(["model", *VERDICTS, "correct / (correct + wrong)"], rows)
