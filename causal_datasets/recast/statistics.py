"""Dataset-level statistics of ReCAST samples: the paper's Table 1 and the card's count tables."""

from __future__ import annotations

import statistics as stats
from collections import Counter
from collections.abc import Sequence

from causal_datasets.markdown import markdown_table
from causal_datasets.recast.records import DOMAINS, EXPLICITNESS_LEVELS, UNLABELED, RecastSample

#: (label, sample attribute) rows of the paper's Table 1
TABLE1_ATTRIBUTES = (
    ("Text length (characters)", "text_length"),
    ("Nodes per graph", "num_nodes"),
    ("Edges per graph", "num_edges"),
    ("Degree of confounding, lenient", "confounding_lenient"),
    ("Degree of confounding, strict", "confounding_strict"),
)


def summary(samples: Sequence[RecastSample], attribute: str) -> dict[str, float]:
    """min, max, mean and sample standard deviation of one numeric attribute (``None`` values skipped)."""
    values = [value for s in samples if (value := getattr(s, attribute)) is not None]
    return {
        "min": min(values),
        "max": max(values),
        "mean": stats.fmean(values),
        "sd": stats.stdev(values) if len(values) > 1 else 0.0,
    }


def domain_counts(samples: Sequence[RecastSample]) -> dict[str, int]:
    counts: Counter[str] = Counter(d for s in samples for d in s.domains)
    return {domain: counts[domain] for domain in DOMAINS}


#: what the paper's text says of its domain labels (§ Effect of Domain and the appendix on domains)
PAPER_DOMAINS = {
    "per_sample": "2.35",
    "Engineering & Technology": "over 60% (with Environmental & Earth Sciences)",
    "Environmental & Earth Sciences": "over 60% (with Engineering & Technology)",
}


def domains_vs_paper(samples: Sequence[RecastSample]) -> str:
    """The release's domain figures beside the ones the paper's text gives."""
    n = len(samples)
    counts = domain_counts(samples)
    per_sample = stats.fmean(len(s.domains) for s in samples)
    rows = [
        ["domains per sample (Economics & Public Policy included)", f"{per_sample:.2f}", PAPER_DOMAINS["per_sample"]]
    ]
    rows += [
        [f"samples in {domain}", f"{counts[domain]} of {n} ({counts[domain] / n:.1%})", PAPER_DOMAINS[domain]]
        for domain in ("Engineering & Technology", "Environmental & Earth Sciences")
    ]
    return markdown_table(["figure", "this release", "the paper"], rows)


def pooled_absent_share(samples: Sequence[RecastSample]) -> float:
    """Share of absent nodes among all labeled nodes of all samples (the paper's "confounding per node")."""
    levels = Counter(node.explicitness for s in samples for node in s.nodes if node.explicitness != UNLABELED)
    return levels["absent"] / sum(levels.values())


def table1_markdown(samples: Sequence[RecastSample]) -> str:
    rows: list[list[object]] = [["Samples", "", len(samples), ""]]
    for label, attribute in TABLE1_ATTRIBUTES:
        s = summary(samples, attribute)
        digits = 3 if isinstance(s["max"], float) else 1
        rows.append([label, f"{s['mean']:.{digits}f} ± {s['sd']:.{digits}f}", s["min"], s["max"]])
    rows.append(
        ["Confounding per node (absent share of all labeled nodes)", f"{pooled_absent_share(samples):.3f}", "", ""]
    )
    return markdown_table(["attribute", "mean ± SD", "min", "max"], rows)


def counts_markdown(samples: Sequence[RecastSample]) -> dict[str, str]:
    """Markdown tables: domains, publishers, journals, domains per sample, node explicitness, cycles."""
    n = len(samples)
    domains = domain_counts(samples)
    levels: Counter[str] = Counter(node.explicitness for s in samples for node in s.nodes)
    per_sample = Counter(len(s.domains) for s in samples)
    journals = Counter(s.journal or f"ISSN {s.journal_issn}" for s in samples)
    publishers = Counter(s.source for s in samples)
    acyclic = sum(s.is_acyclic for s in samples)
    return {
        "domain_table": markdown_table(
            ["domain", "samples", "share"], [[d, c, round(c / n, 4)] for d, c in domains.items()]
        ),
        "domains_per_sample_table": markdown_table(
            ["domains per sample", "samples"], [[k, per_sample[k]] for k in sorted(per_sample)]
        ),
        "domains_vs_paper_table": domains_vs_paper(samples),
        "publisher_table": markdown_table(["publisher", "samples"], sorted(publishers.items())),
        "journal_table": markdown_table(
            ["journal", "samples"], sorted(journals.items(), key=lambda item: (-item[1], item[0]))
        ),
        "explicitness_table": markdown_table(
            ["node explicitness", "nodes", "share"],
            [
                [level, levels[level], round(levels[level] / sum(levels.values()), 4)]
                for level in (*EXPLICITNESS_LEVELS, UNLABELED)
            ],
        ),
        "cycles_table": markdown_table(
            ["graph shape", "samples"], [["acyclic", acyclic], ["with feedback loops", n - acyclic]]
        ),
    }
