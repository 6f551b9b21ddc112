"""CoBe scores from judged rows: accuracy, failure rate per criterion, breakdowns, judge agreement.

Pure functions over plain values, so recorded judge answers can be scored without a model.
Accuracy counts a row as correct only when every criterion passed; ``unknown`` rows (an
unresolved criterion and no failed one) count as not correct and are reported separately.
The failure rate of a criterion is failed / judged over the rows that have it; unresolved
criteria are counted apart and left out of the rate.

As the paper's Table 5, accuracy is also given as the mean ± population SD of the accuracies of
the three query phrasings (``accuracy_phrasing_mean`` / ``_sd``). Rows may name the model that
wrote them: :func:`by_model` is then the per-model table (accuracy, phrasing mean ± SD, E1–E5
failure rates) and every breakdown adds each model's accuracy (``model_accuracy``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, pstdev
from typing import Any

from causal_datasets.agreement import agreement, cohen_kappa, fleiss_kappa
from causal_datasets.cobe.prompts import CRITERION_CODES

NOT_GIVEN = "(not given)"


@dataclass(frozen=True)
class ScoredRow:
    """One judged response: its verdict, criterion outcomes and the labels it is broken down by."""

    verdict: str
    passed: Mapping[str, bool | None]  # criterion code → outcome, only for criteria the row has
    domain: str | None = None
    graph_type: str | None = None
    phrasing: str | None = None
    model: str | None = None


def summarize(rows: Sequence[ScoredRow]) -> dict[str, Any]:
    """Accuracy (with its phrasing mean ± SD), verdict counts, per-criterion failure rates and accuracy
    by domain/graph/phrasing."""
    criteria = {code: _criterion(rows, code) for code in CRITERION_CODES}
    return {
        **_accuracy(rows),
        **phrasing_spread(rows),
        "criteria": criteria,
        "failure_rate": {code: counts["failure_rate"] for code, counts in criteria.items()},
        "by_domain": _breakdown(rows, "domain"),
        "by_graph_type": _breakdown(rows, "graph_type"),
        "by_phrasing": _breakdown(rows, "phrasing"),
    }


def _accuracy(rows: Sequence[ScoredRow]) -> dict[str, Any]:
    counts = {v: sum(1 for r in rows if r.verdict == v) for v in ("correct", "wrong", "unknown")}
    return {"n": len(rows), **counts, "accuracy": counts["correct"] / len(rows) if rows else None}


def _criterion(rows: Sequence[ScoredRow], code: str) -> dict[str, Any]:
    outcomes = [r.passed[code] for r in rows if code in r.passed]
    judged = [o for o in outcomes if o is not None]
    failed = sum(1 for o in judged if o is False)
    return {
        "rows": len(outcomes),
        "judged": len(judged),
        "failed": failed,
        "unresolved": len(outcomes) - len(judged),
        "failure_rate": failed / len(judged) if judged else None,
    }


def phrasing_spread(rows: Sequence[ScoredRow]) -> dict[str, float | None]:
    """Mean and population SD of the accuracies of the phrasings the rows have (rows without one left out)."""
    accuracies = [entry["accuracy"] for name, entry in _groups(rows, "phrasing").items() if name != NOT_GIVEN]
    return {
        "accuracy_phrasing_mean": fmean(accuracies) if accuracies else None,
        "accuracy_phrasing_sd": pstdev(accuracies) if accuracies else None,
    }


def by_model(rows: Sequence[ScoredRow]) -> dict[str, dict[str, Any]]:
    """Per model: accuracy and verdict counts, accuracy over decided rows (correct + wrong), the phrasing
    mean ± SD and the failure rate of each criterion (None where none was judged)."""
    table = {}
    for model, members in _members(rows, "model").items():
        counts = _accuracy(members)
        decided = counts["correct"] + counts["wrong"]
        table[model] = {
            **counts,
            "accuracy_decided": counts["correct"] / decided if decided else None,
            **phrasing_spread(members),
            "failure_rate": {code: _criterion(members, code)["failure_rate"] for code in CRITERION_CODES},
        }
    return table


def _breakdown(rows: Sequence[ScoredRow], label: str) -> dict[str, dict[str, Any]]:
    """Accuracy per value of ``label``; with rows of several models, also each model's accuracy there."""
    table = _groups(rows, label)
    if any(row.model for row in rows):
        for name, members in _members(rows, label).items():
            table[name]["model_accuracy"] = {
                model: entry["accuracy"] for model, entry in _groups(members, "model").items()
            }
    return table


def _groups(rows: Sequence[ScoredRow], label: str) -> dict[str, dict[str, Any]]:
    """Accuracy and verdict counts per value of ``label``."""
    return {name: _accuracy(members) for name, members in _members(rows, label).items()}


def _members(rows: Sequence[ScoredRow], label: str) -> dict[str, list[ScoredRow]]:
    """The rows per value of ``label`` (``(not given)`` for none), values sorted."""
    groups: dict[str, list[ScoredRow]] = {}
    for row in rows:
        groups.setdefault(getattr(row, label) or NOT_GIVEN, []).append(row)
    return dict(sorted(groups.items()))


def rater_agreement(predicted: Sequence[str], raters: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The paper's App. C.3 for several raters of the same responses (each a list of verdicts, in order):
    their Fleiss' κ and pairwise Cohen's κ, the share they all agree on, the strict-majority verdict
    (an item without one is left out) and ``predicted``'s :func:`agreement` with it and κ with each rater.
    Only items every rater called ``correct`` or ``wrong`` count."""
    if len(raters) < 2 or any(len(r) != len(predicted) for r in raters):
        raise ValueError("rater_agreement needs at least two raters with one verdict per prediction each")
    binary = {"correct", "wrong"}
    items = [i for i in range(len(predicted)) if all(r[i] in binary for r in raters)]
    ratings = [[r[i] for r in raters] for i in items]
    majority = [
        max(set(votes), key=votes.count) if max(map(votes.count, set(votes))) * 2 > len(votes) else None
        for votes in ratings
    ]
    kept = [(items[k], verdict) for k, verdict in enumerate(majority) if verdict is not None]
    return {
        "items": len(items),
        "fleiss_kappa": fleiss_kappa(ratings),
        "unanimous_share": sum(len(set(v)) == 1 for v in ratings) / len(ratings) if ratings else None,
        "raters_pairwise_kappa": {
            f"{a + 1}-{b + 1}": cohen_kappa([raters[a][i] for i in items], [raters[b][i] for i in items])
            for a in range(len(raters))
            for b in range(a + 1, len(raters))
        },
        "predicted_vs_rater_kappa": {
            f"{a + 1}": cohen_kappa([predicted[i] for i in items], [raters[a][i] for i in items])
            for a in range(len(raters))
        },
        "predicted_vs_majority": agreement([predicted[i] for i, _ in kept], [verdict for _, verdict in kept]),
    }
