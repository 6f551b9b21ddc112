"""Agreement between raters beyond chance: Cohen's κ for two raters, Fleiss' κ for several.

Both are ``(p_o − p_e) / (1 − p_e)``: observed agreement against the agreement expected by chance
from the raters' label rates. They are undefined (``None``) when chance agreement is already
perfect (``p_e = 1``: every rating is the same label), never reported as 0 or 1 by default.

* :func:`cohen_kappa` — two raters, any labels; p_e from each rater's own rates (Cohen 1960).
  ReCAST's annotator check and CoBe's judge-vs-human agreement use it.
* :func:`cohen_kappa_counts` — the same for a binary confusion table (tp, fp, fn, tn), e.g. the
  directed pairs of two annotated graphs, where the negatives are counted rather than listed.
* :func:`agreement` — binary verdicts ("correct"/"wrong") against reference verdicts: counts,
  accuracy, precision, recall, F1 and Cohen's κ (CoBe's judge vs the published verdicts,
  DoVerifier's LLM judge vs the verifier).
* :func:`fleiss_kappa` — several raters, each item rated by the same number of raters; p_e from
  the pooled label rates (Fleiss 1971). CoBe's three human raters are summarised by it.

:func:`table_rates` computes the rates of :func:`agreement` from the counts of 2×2 tables as arrays
(NaN where undefined): the same formulas serve one table and the resampled tables of a bootstrap, and
:func:`agreement_estimators` turns them into the statistics a run's intervals are computed for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from causal_datasets.uncertainty import Statistic

#: the cells of a binary 2×2 table: both positive, only the first, only the second, neither
TABLE = ("tp", "fp", "fn", "tn")
RATES = ("accuracy", "precision", "recall", "f1", "cohen_kappa")


def _kappa(observed: float, chance: float) -> float | None:
    return (observed - chance) / (1 - chance) if chance < 1 else None


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two raters' labels for the same items (in the same order)."""
    if len(first) != len(second):
        raise ValueError(f"{len(first)} labels from the first rater but {len(second)} from the second")
    if not first:
        return None
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    rates_a, rates_b = Counter(first), Counter(second)
    chance = sum(rates_a[label] * rates_b[label] for label in rates_a) / n**2
    return _kappa(observed, chance)


def cohen_kappa_counts(tp: int, fp: int, fn: int, tn: int) -> float | None:
    """Cohen's κ from a 2×2 table: ``tp`` both positive, ``fp`` only the first, ``fn`` only the second,
    ``tn`` neither."""
    return _scalar(table_rates({"tp": tp, "fp": fp, "fn": fn, "tn": tn})["cohen_kappa"])


def table_rates(counts: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Accuracy, precision, recall, F1 and Cohen's κ of 2×2 tables (``counts[cell]``: numbers or arrays, cells
    :data:`TABLE`); NaN where a rate is undefined (an empty table, no positive, κ with p_e = 1)."""
    tp, fp, fn, tn = (np.asarray(counts[cell], dtype=float) for cell in TABLE)
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (tp + tn) / n
        chance = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2
        return {
            "accuracy": observed,
            "precision": tp / (tp + fp),
            "recall": tp / (tp + fn),
            "f1": 2 * tp / (2 * tp + fp + fn),
            "cohen_kappa": np.where(chance < 1, (observed - chance) / np.where(chance < 1, 1 - chance, 1), np.nan),
        }


def _scalar(value: np.ndarray) -> float | None:
    return float(value) if np.isfinite(value) else None


def agreement_estimators(
    prefix: str, labels: Callable[[Any], tuple[str, str | None]], positive: str = "correct"
) -> tuple[Statistic, ...]:
    """``<prefix>.accuracy`` ... ``<prefix>.cohen_kappa`` of :func:`agreement` as statistics of a run's results;
    ``labels(result)``: its (predicted, reference) verdicts (pairs not both "correct"/"wrong" count nowhere)."""

    def cells(result: Any) -> dict[str, float]:
        predicted, reference = labels(result)
        if predicted not in ("correct", "wrong") or reference not in ("correct", "wrong"):
            return dict.fromkeys(TABLE, 0.0)
        cell = {(True, True): "tp", (True, False): "fp", (False, True): "fn", (False, False): "tn"}[
            (predicted == positive, reference == positive)
        ]
        return {name: float(name == cell) for name in TABLE}

    return tuple(Statistic(f"{prefix}.{rate}", TABLE, cells, _rate_of_tables(rate)) for rate in RATES)


def _rate_of_tables(rate: str) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    """One rate of :func:`table_rates`, as a statistic's function of the pooled cells."""

    def rate_value(totals: Mapping[str, np.ndarray]) -> np.ndarray:
        return table_rates(totals)[rate]

    return rate_value


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' κ of ``ratings[item] = [label of rater 1, label of rater 2, ...]``.

    Every item needs the same number of ratings, at least two (a ``ValueError`` otherwise); which
    rater gave which label does not matter.
    """
    if not ratings:
        return None
    raters = len(ratings[0])
    if raters < 2 or any(len(item) != raters for item in ratings):
        raise ValueError("Fleiss' kappa needs the same number (at least 2) of ratings for every item")
    items = len(ratings)
    per_item = [Counter(item) for item in ratings]
    observed = (
        sum((sum(count * count for count in counts.values()) - raters) / (raters * (raters - 1)) for counts in per_item)
        / items
    )
    pooled = sum(per_item, Counter())
    chance = sum((count / (items * raters)) ** 2 for count in pooled.values())
    return _kappa(observed, chance)


def agreement(predicted: Sequence[str], reference: Sequence[str], positive: str = "correct") -> dict[str, Any]:
    """Agreement of our verdicts with reference verdicts ("correct"/"wrong"), positive = ``positive``.

    Pairs where either side is not "correct"/"wrong" (e.g. "unknown") are left out and counted.
    Cohen's κ = (p_o − p_e) / (1 − p_e) with p_e from the two sides' marginal rates; None when
    p_e = 1 (both sides constant and equal: κ is undefined).
    """
    if len(predicted) != len(reference):
        raise ValueError(f"{len(predicted)} predicted verdicts but {len(reference)} reference verdicts")
    binary = {"correct", "wrong"}
    pairs = [
        (p == positive, r == positive) for p, r in zip(predicted, reference, strict=True) if p in binary and r in binary
    ]
    n = len(pairs)
    tp = sum(1 for p, r in pairs if p and r)
    fp = sum(1 for p, r in pairs if p and not r)
    fn = sum(1 for p, r in pairs if not p and r)
    tn = n - tp - fp - fn
    result: dict[str, Any] = {"n": n, "excluded": len(predicted) - n, "tp": tp, "fp": fp, "fn": fn, "tn": tn}
    return result | {rate: _scalar(value) for rate, value in table_rates(result).items()}
