"""From parsed scenarios to the three configs, and the statistics the dataset card shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from causal_datasets.cobe.records import (
    DOMAINS,
    GRAPH_TYPES,
    VERDICTS,
    CoBeQuery,
    CoBeResponse,
    CoBeScenario,
)
from causal_datasets.cobe.scoring import ScoredRow, by_model
from causal_datasets.cobe.statistics import text_statistics
from causal_datasets.markdown import markdown_table


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
    domains: Counter[str] = Counter(s.domain or "(not given)" for s in scenarios)
    graphs: Counter[str] = Counter(s.graph_type or "(not given)" for s in scenarios)
    raw_graphs = sorted({(s.graph_type_raw, s.graph_type) for s in scenarios if s.graph_type_raw})
    flagged = [[s.id, issue.kind, issue.detail] for s in scenarios for issue in s.quality_issues]
    return {
        "num_scenarios": len(scenarios),
        "domain_table": markdown_table(
            ["domain", "scenarios"], [[d, domains[d]] for d in (*DOMAINS, "(not given)") if domains[d]]
        ),
        "graph_table": markdown_table(
            ["graph type", "scenarios"], [[g, graphs[g]] for g in (*GRAPH_TYPES, "(not given)") if graphs[g]]
        ),
        "graph_spellings": ", ".join(f"`{raw}` → `{label}`" for raw, label in raw_graphs) or "(none)",
        "num_flagged_scenarios": sum(1 for s in scenarios if s.quality_issues),
        "quality_table": markdown_table(["scenario", "finding", "detail"], flagged) if flagged else "(no findings)",
        "num_listings": sum(len(s.source_groups) for s in scenarios),
        "verdict_table": verdict_table(responses),
        "text_table": text_table(scenarios),
    }


def text_table(scenarios: Sequence[CoBeScenario]) -> str:
    """The paper's Table 2 text statistics of these scenarios."""
    stats = text_statistics([s.text for s in scenarios])
    rows = [["scenarios", stats["scenarios"]]] + [
        [name.replace("_", " "), round(value, 2)]
        for name in ("words_per_scenario", "sentences_per_scenario", "clauses_per_scenario", "clauses_per_sentence")
        if (value := stats[name]) is not None
    ]
    return markdown_table(["statistic", "value"], rows)


#: the paper's Table 5: accuracy (%) averaged over the three phrasings, ± SD, by the website's model names
PAPER_TABLE5: dict[str, str] = {
    "gpt": "55.70 ± 1.64",
    "gemini": "53.71 ± 2.02",
    "claude": "52.42 ± 2.52",
    "llama3-8b": "33.55 ± 1.60",
    "mistral-7b": "34.08 ± 4.23",
    "qwen-7b": "36.32 ± 2.62",
    "phi4": "43.92 ± 1.83",
    "gemma-27b": "48.48 ± 2.32",
}


def verdict_table(responses: Sequence[CoBeResponse]) -> str:
    """Per model, from the published verdicts: their counts, accuracy (correct / all), correct among the decided
    ones, and accuracy as the mean ± SD over the phrasings as Table 5 gives it; then the paper's Table 5 figure."""
    if not responses:
        return "(no model outputs in this source)"
    rows = [
        ScoredRow(verdict=r.verdict, passed={}, phrasing=r.query_id.rsplit("-", 1)[1], model=r.model) for r in responses
    ]
    table = []
    for model, entry in by_model(rows).items():
        decided = entry["accuracy_decided"]
        table.append(
            [
                model,
                *(entry[v] for v in VERDICTS),
                f"{100 * entry['accuracy']:.2f}",
                "–" if decided is None else f"{100 * decided:.2f}",
                f"{100 * entry['accuracy_phrasing_mean']:.2f} ± {100 * entry['accuracy_phrasing_sd']:.2f}",
                PAPER_TABLE5.get(model, "–"),
            ]
        )
    total: Counter[str] = Counter(r.verdict for r in responses)
    known = total["correct"] + total["wrong"]
    table.append(
        [
            "all",
            *(total[v] for v in VERDICTS),
            f"{100 * total['correct'] / len(responses):.2f}",
            f"{100 * total['correct'] / known:.2f}" if known else "–",
            "",
            "",
        ]
    )
    return markdown_table(
        [
            "model",
            *VERDICTS,
            "accuracy %",
            "correct / (correct + wrong) %",
            "accuracy % over phrasings (mean ± SD)",
            "paper, Table 5 (%)",
        ],
        table,
    )
