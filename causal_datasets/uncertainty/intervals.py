"""Standard errors and 95% intervals of one run's numbers: analytic for means, a cluster bootstrap otherwise.

Items often share a unit (the phrasings of one scenario, the questions of one story): their scores are
correlated, and a standard error that treats them as independent is too small. Every function here takes
each item's cluster (``codes``: the index of its unit; every item its own when nothing is shared).

* **A mean of per-item scores**: the cluster-robust standard error (Miller 2024, "Adding Error Bars to Evals",
  App. A, with the finite-cluster factor G/(G−1) that inspect_ai's ``stderr(cluster=...)`` also applies):
  √(G/(G−1) · Σ_clusters (Σ (x − x̄))²) / n, which is s/√n when every item is its own cluster. The interval
  of a proportion (0/1 scores) is Wilson's score interval: through scipy's ``binomtest`` without clusters,
  and with the Korn–Graubard effective sample size p̂(1−p̂)/SE² (capped at n) and a t critical value with G−1
  degrees of freedom with clusters (as inspect_ai's ``ci_wilson(cluster=...)``); any other mean gets
  x̄ ± t·SE, t with G−1 degrees of freedom.
* **Any other statistic** (a ratio of sums, F1 from counts, Cohen's κ, a mean of group means): the
  percentile interval of a seeded cluster bootstrap. The statistic is a function of the totals of per-item
  components; scipy's ``bootstrap`` resamples whole clusters (their component sums, paired) in vectorised
  batches, and the standard error is the SD of the bootstrap distribution. Resamples where the statistic is
  undefined (a ratio over an empty denominator) are left out.
* **mdd**: the smallest difference to another run of the same size that a two-sided test at α 0.05 finds
  with 80% power, (z₀.₉₇₅ + z₀.₈₀)·√2·SE ≈ 3.96·SE (two independent runs; two models answering the same
  items with correlated scores can detect a smaller one).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

CONFIDENCE = 0.95
ALPHA = 0.05
POWER = 0.80
#: bootstrap resamples per interval, and the seed every bootstrap starts from (summaries are reproducible)
RESAMPLES = 2000
SEED = 0
#: the unit named when every item is its own cluster
ITEM = "item"

#: a statistic of component totals: ``{component: array}`` → array of the same shape (NaN where undefined)
TotalsFunction = Callable[[Mapping[str, np.ndarray]], np.ndarray]


#: the parts of an interval, described once for every model that holds them (:class:`Interval` in a run's
#: summary, an exported run's result rows: :class:`~causal_datasets.records.run_results.RunResult`)
Estimate = Annotated[float, Field(description="The number.")]
StandardError = Annotated[float | None, Field(description="Its standard error (null with fewer than two clusters).")]
LowerEnd = Annotated[float | None, Field(description="Lower end of its 95% interval.")]
UpperEnd = Annotated[float | None, Field(description="Upper end of its 95% interval.")]
ItemCount = Annotated[int, Field(description="Items the number is computed over.")]
ClusterCount = Annotated[int, Field(description="Distinct clusters among the items the number is computed over.")]
ClusterUnit = Annotated[str, Field(description="What the items of one cluster share (`item`: every item its own).")]
IntervalMethod = Annotated[str, Field(description="How the standard error and the interval were computed.")]
DetectableDifference = Annotated[
    float | None,
    Field(
        description=(
            "Smallest difference to another run of this size that a two-sided test at α 0.05 finds with 80% power."
        )
    ),
]


class Interval(BaseModel):
    """A number with its standard error and 95% interval, how they were computed and over what (``mdd`` is None
    when the standard error is 0 or unknown)."""

    model_config = ConfigDict(extra="forbid")

    estimate: Estimate
    se: StandardError
    ci_low: LowerEnd
    ci_high: UpperEnd
    n: ItemCount
    clusters: ClusterCount
    cluster: ClusterUnit
    method: IntervalMethod
    mdd: DetectableDifference


def cluster_codes(labels: Sequence[Hashable]) -> np.ndarray:
    """Each label as the index of its cluster (0, 1, ... in first-seen order)."""
    index: dict[Hashable, int] = {}
    return np.fromiter((index.setdefault(label, len(index)) for label in labels), dtype=np.intp, count=len(labels))


def compact(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """``codes`` renumbered 0..G−1 (a subset of items may lack some clusters) and G."""
    unique, inverse = np.unique(codes, return_inverse=True)
    return inverse.reshape(-1), len(unique)


def cluster_sums(values: np.ndarray, codes: np.ndarray, count: int) -> np.ndarray:
    """Per-cluster sums of ``values`` (shape (n,) → (G,), (n, K) → (G, K))."""
    sums = np.zeros((count, *values.shape[1:]))
    np.add.at(sums, codes, values)
    return sums


def clustered_se(values: np.ndarray, codes: np.ndarray) -> float | None:
    """Cluster-robust standard error of the mean of ``values`` (None with fewer than two clusters)."""
    codes, count = compact(codes)
    if count < 2:
        return None
    deviations = cluster_sums(values - values.mean(), codes, count)
    return math.sqrt(count / (count - 1) * float(np.sum(deviations**2))) / len(values)


def minimum_detectable_difference(se: float | None, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """(z_{1−α/2} + z_power)·√2·SE: the difference two runs of this size detect with ``power`` (None for SE 0)."""
    if not se:
        return None
    from scipy import stats

    return float((stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)) * math.sqrt(2) * se)


def is_binary(values: np.ndarray) -> bool:
    return bool(np.all((values == 0) | (values == 1)))


def mean_interval(values: Sequence[float] | np.ndarray, codes: np.ndarray, unit: str) -> Interval | None:
    """The mean of ``values`` with its (cluster-robust) SE and 95% interval; None without values."""
    from scipy import stats  # scipy.stats takes half a second to import: only when an interval is computed

    values = np.asarray(values, dtype=float)
    if not len(values):
        return None
    codes, count = compact(np.asarray(codes))
    clustered = count < len(values)
    mean, se = float(values.mean()), clustered_se(values, codes)
    common = {
        "estimate": mean,
        "se": se,
        "n": len(values),
        "clusters": count,
        "cluster": unit if clustered else ITEM,
        "mdd": minimum_detectable_difference(se),
    }
    if se is None:
        return Interval(**common, ci_low=None, ci_high=None, method="none: fewer than two clusters")
    if is_binary(values) and not clustered:
        ci = stats.binomtest(int(values.sum()), len(values)).proportion_ci(CONFIDENCE, method="wilson")
        return Interval(**common, ci_low=ci.low, ci_high=ci.high, method="Wilson score interval")
    critical = float(stats.t.ppf(1 - (1 - CONFIDENCE) / 2, count - 1))
    if is_binary(values):
        low, high = _wilson(mean, _effective_size(mean, se, len(values)), critical)
        method = f"Wilson score interval, Korn–Graubard effective n, t({count - 1}), cluster-robust SE"
        return Interval(**common, ci_low=low, ci_high=high, method=method)
    kind = "cluster-robust SE" if clustered else "SE"
    return Interval(
        **common, ci_low=mean - critical * se, ci_high=mean + critical * se, method=f"mean ± t({count - 1})·{kind}"
    )


def _effective_size(mean: float, se: float, n: int) -> float:
    """Korn–Graubard: the sample size whose binomial variance equals the clustered one (at most n)."""
    spread = mean * (1 - mean)
    return min(spread / se**2, n) if spread > 0 and se > 0 else n


def _wilson(p: float, n: float, critical: float) -> tuple[float, float]:
    """Wilson's score interval of a proportion ``p`` over ``n`` (possibly effective, non-integer) trials."""
    denominator = 1 + critical**2 / n
    centre = (p + critical**2 / (2 * n)) / denominator
    half = critical * math.sqrt(p * (1 - p) / n + critical**2 / (4 * n * n)) / denominator
    return max(centre - half, 0.0), min(centre + half, 1.0)


def bootstrap_distribution(
    statistic: Callable[..., np.ndarray], samples: Sequence[np.ndarray], *, resamples: int = RESAMPLES, seed: int = SEED
) -> np.ndarray:
    """``statistic`` over ``resamples`` resamples of the rows shared by ``samples`` (per-cluster sums, paired):
    scipy's vectorised bootstrap, seeded."""
    from scipy import stats

    with warnings.catch_warnings():  # scipy warns when undefined resamples make its interval NaN; ours drops them
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap(
            tuple(samples),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=resamples,
            method="percentile",
            rng=np.random.default_rng(seed),
            batch=_batch(len(samples[0])),
        )
    return np.asarray(result.bootstrap_distribution, dtype=float)


def _batch(clusters: int) -> int:
    """Resamples per vectorised batch: about four million cluster draws at a time."""
    return max(1, 4_000_000 // max(clusters, 1))


def totals_statistic(names: Sequence[str], function: TotalsFunction) -> Callable[..., np.ndarray]:
    """``function`` of the component totals, as scipy's vectorised statistic of per-cluster sums."""

    def statistic(*sums: np.ndarray, axis: int = -1) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return function({name: column.sum(axis=axis) for name, column in zip(names, sums, strict=True)})

    return statistic


def bootstrap_interval(
    components: np.ndarray,
    names: Sequence[str],
    function: TotalsFunction,
    codes: np.ndarray,
    unit: str,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval | None:
    """``function`` of the totals of ``components`` (n items × K, columns ``names``) with the SE and percentile
    interval of a cluster bootstrap; None when the statistic is undefined on the items given."""
    if not len(components):
        return None
    codes, count = compact(np.asarray(codes))
    sums = cluster_sums(np.asarray(components, dtype=float), codes, count)
    statistic = totals_statistic(names, function)
    estimate = float(statistic(*sums.T))
    if not math.isfinite(estimate):
        return None
    clustered = count < len(components)
    common = {"estimate": estimate, "n": len(components), "clusters": count, "cluster": unit if clustered else ITEM}
    if count < 2:
        return Interval(**common, se=None, ci_low=None, ci_high=None, mdd=None, method="none: fewer than two clusters")
    replicates = bootstrap_distribution(statistic, list(sums.T), resamples=resamples, seed=seed)
    replicates = replicates[np.isfinite(replicates)]
    se = float(np.std(replicates, ddof=1)) if len(replicates) > 1 else None
    low, high = (
        np.quantile(replicates, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2]) if len(replicates) else (None, None)
    )
    kind = "cluster bootstrap" if clustered else "bootstrap"
    dropped = resamples - len(replicates)
    method = f"{kind} percentile interval, {resamples} resamples"
    method += f" ({dropped} undefined, left out)" if dropped else ""
    return Interval(
        **common,
        se=se,
        ci_low=None if low is None else float(low),
        ci_high=None if high is None else float(high),
        mdd=minimum_detectable_difference(se),
        method=method,
    )
