"""Name-based scores of a predicted graph (the paper's deterministic, name-assisted evaluation).

Both node-matching modes of :func:`causal_datasets.scoring.graph_compare.compare_graphs` are
reported: ``exact`` (names must be identical) and ``normalized`` (case, whitespace, punctuation
and plural forms ignored). ``reversal_cost=2`` reproduces the SHD convention of the paper's
published numbers (a reversed edge counts twice, as in cdt); the default counts it once.
SHD is normalized by n(n−1) over the union of node names, as in the paper. A prediction that could
not be read (``None``) scores the worst: every rate 0 and the maximal SHD
(:func:`~causal_datasets.scoring.graph_compare.unparsable_comparison`).
"""

from __future__ import annotations

from statistics import fmean, pstdev
from typing import Any

from causal_datasets.graph import CausalGraph
from causal_datasets.recast.records import RecastSample
from causal_datasets.scoring.graph_compare import RATE_FIELDS, compare_graphs, unparsable_comparison
from causal_datasets.scoring.node_matching import NodeMatching

MATCHINGS: tuple[NodeMatching, ...] = ("exact", "normalized")
#: the scores of one comparison (also the per-item fields of the ``causal_graph_metrics`` module)
FIELDS = (*RATE_FIELDS, "shd", "normalized_shd")


def deterministic_scores(
    prediction: CausalGraph | None, sample: RecastSample, *, reversal_cost: float = 1
) -> dict[str, dict[str, Any]]:
    """``{"exact": {...}, "normalized": {...}}`` with node/edge P/R/F1, SHD and normalized SHD; the
    worst scores when ``prediction`` is None (unreadable)."""
    reference = sample.graph()
    scores: dict[str, dict[str, Any]] = {}
    for matching in MATCHINGS:
        if prediction is None:
            comparison = unparsable_comparison(reference, reversal_cost=reversal_cost)
        else:
            comparison = compare_graphs(prediction, reference, reversal_cost=reversal_cost, node_matching=matching)
        scores[matching] = {name: getattr(comparison, name) for name in FIELDS} | {"warnings": comparison.warnings}
    return scores


def mean_scores(per_sample: list[dict[str, dict[str, Any]]]) -> dict[str, dict[str, float | None]]:
    """Mean and population SD (``<field>_sd``, as the paper's Table 2) of every field over the samples,
    per matching mode."""
    means: dict[str, dict[str, float | None]] = {}
    for matching in MATCHINGS:
        rows = [s[matching] for s in per_sample if s]
        means[matching] = {}
        for name in FIELDS:
            values = [r[name] for r in rows]
            means[matching][name] = fmean(values) if values else None
            means[matching][f"{name}_sd"] = pstdev(values) if values else None
        means[matching]["n"] = len(rows)
    return means
