"""Paired comparisons of two runs on the same items, and Holm's correction across several.

* **0/1 scores** (accuracy): the difference of the two means with a t interval on the cluster-robust SE of
  the per-item differences; the p-value of McNemar's test (mid-p, exact binomial over the discordant items)
  when every item is its own cluster, else of a paired permutation test that swaps the two runs' sums
  within whole clusters (scipy's ``permutation_test``: all 2^G swaps up to 16 clusters, 9,999 seeded ones beyond).
* **Anything else** (a mean of F1 scores, a ratio, κ): a paired cluster bootstrap — the same clusters
  resampled for both runs — of the difference of the statistic; the percentile interval, and as p-value
  twice the smaller share of resampled differences on either side of 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from causal_datasets.uncertainty.intervals import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    TotalsFunction,
    bootstrap_distribution,
    cluster_sums,
    clustered_se,
    compact,
    totals_statistic,
)

PERMUTATIONS = 9999
#: up to this many clusters the permutation test enumerates every swap (2^16 = 65,536)
EXACT_CLUSTERS = 16


@dataclass(frozen=True)
class Difference:
    """Run A's number minus run B's on the same items: interval, p-value and how they were computed."""

    a: float
    b: float
    difference: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n_paired: int
    clusters: int
    method: str


def paired_binary(a: np.ndarray, b: np.ndarray, codes: np.ndarray, *, seed: int = SEED) -> Difference:
    """Two runs' 0/1 scores on the same items (``codes``: each item's cluster)."""
    from scipy import stats

    codes, count = compact(np.asarray(codes))
    differences = a - b
    mean = float(differences.mean())

    def result(ci_low: float | None, ci_high: float | None, p_value: float | None, method: str) -> Difference:
        return Difference(float(a.mean()), float(b.mean()), mean, ci_low, ci_high, p_value, len(a), count, method)

    se = clustered_se(differences, codes)
    if se is None:
        return result(None, None, None, "no test: one cluster")
    critical = float(stats.t.ppf((1 + CONFIDENCE) / 2, count - 1))
    low, high = max(mean - critical * se, -1.0), min(mean + critical * se, 1.0)  # a difference of shares is in [−1, 1]
    if count == len(a):
        only_a, only_b = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
        p_value, method = mcnemar_mid_p(only_a, only_b), "McNemar mid-p"
    else:
        p_value = cluster_permutation_p(cluster_sums(a, codes, count), cluster_sums(b, codes, count), seed=seed)
        method = "paired cluster permutation test"
    return result(low, high, p_value, f"{method}; t interval on the cluster-robust SE")


def mcnemar_mid_p(only_a: int, only_b: int) -> float:
    """Two-sided mid-p of McNemar's exact test from the discordant counts (right in A only, in B only)."""
    from scipy import stats

    discordant = only_a + only_b
    if not discordant:
        return 1.0
    smaller = min(only_a, only_b)
    return float(min(1.0, 2 * stats.binom.cdf(smaller, discordant, 0.5) - stats.binom.pmf(smaller, discordant, 0.5)))


def cluster_permutation_p(sums_a: np.ndarray, sums_b: np.ndarray, *, seed: int = SEED) -> float:
    """Two-sided p of the total difference when A's and B's sums are swapped within clusters at random."""
    from scipy import stats

    if np.all(sums_a == sums_b):
        return 1.0
    result = stats.permutation_test(
        (sums_a, sums_b),
        lambda x, y, axis=-1: np.sum(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=2 ** len(sums_a) if len(sums_a) <= EXACT_CLUSTERS else PERMUTATIONS,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def paired_bootstrap(
    components_a: np.ndarray,
    components_b: np.ndarray,
    names: Sequence[str],
    function: TotalsFunction,
    codes: np.ndarray,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Difference | None:
    """A statistic of component totals (``names``: the K columns of both n × K arrays) in run A minus run B,
    with the same clusters resampled for both; None when it is undefined in either run."""
    codes, count = compact(np.asarray(codes))
    width = len(names)
    sums = np.concatenate([cluster_sums(components_a, codes, count), cluster_sums(components_b, codes, count)], axis=1)
    statistic = totals_statistic(names, function)

    def difference(*columns: np.ndarray, axis: int = -1) -> np.ndarray:
        gap: np.ndarray = statistic(*columns[:width], axis=axis) - statistic(*columns[width:], axis=axis)
        return gap

    a, b = float(statistic(*sums[:, :width].T)), float(statistic(*sums[:, width:].T))
    if not (math.isfinite(a) and math.isfinite(b)):
        return None
    low = high = p_value = None
    if count >= 2:
        replicates = bootstrap_distribution(difference, list(sums.T), resamples=resamples, seed=seed)
        replicates = replicates[np.isfinite(replicates)]
        if len(replicates):
            low, high = (float(q) for q in np.quantile(replicates, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2]))
            below, above = np.sum(replicates <= 0), np.sum(replicates >= 0)
            p_value = float(min(1.0, 2 * (min(below, above) + 1) / (len(replicates) + 1)))
    kind = "paired cluster bootstrap" if count < len(components_a) else "paired bootstrap"
    method = f"{kind}, percentile interval, {resamples} resamples" if count >= 2 else "no test: one cluster"
    return Difference(
        a=a,
        b=b,
        difference=a - b,
        ci_low=low,
        ci_high=high,
        p_value=p_value,
        n_paired=len(components_a),
        clusters=count,
        method=method,
    )


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (None: no test, left out of the family)."""
    tested = sorted((p, index) for index, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p))
        adjusted[index] = running
    return adjusted
