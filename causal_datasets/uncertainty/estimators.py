"""What a benchmark's numbers are made of, so each can get an interval and two runs can be compared.

A benchmark names every number it wants an interval for as one of two estimators, both read off its
per-item results (each item's typed scores, as the benchmark's task declares them):

* :class:`Mean` — the mean of a per-item value over the items that have one (``None``: the item is not
  part of this mean, e.g. a no-case for the accuracy on yes-cases). Analytic interval.
* :class:`Statistic` — a function of the totals of per-item components: F1 from tp/fp/fn, Cohen's κ from a
  2×2 table, a mean of group means, or a ratio of sums whose denominator depends on the answers
  (:func:`ratio`: the mean steps over the episodes that were answered). Cluster-bootstrap interval.

:func:`item_values` turns results into one array per estimator (computed once; slices index into it),
:func:`interval` gives the :class:`~causal_datasets.uncertainty.intervals.Interval` of a set of items and
:func:`difference` the paired :class:`~causal_datasets.uncertainty.paired.Difference` of two runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from causal_datasets.uncertainty.intervals import Interval, TotalsFunction, bootstrap_interval, is_binary, mean_interval
from causal_datasets.uncertainty.paired import Difference, paired_binary, paired_bootstrap

#: one item's result as a benchmark's estimators read it (its task's scores model)
Result = Any


@dataclass(frozen=True)
class Mean:
    """``name`` is the mean of ``value(result)`` over the items where it is not None."""

    name: str
    value: Callable[[Result], float | None]


@dataclass(frozen=True)
class Statistic:
    """``name`` is ``function(totals)``, ``totals[c]`` the sum of ``values(result)[c]`` over the items, for each
    component ``c`` of ``components``; ``function`` works on arrays (NaN where undefined)."""

    name: str
    components: tuple[str, ...]
    values: Callable[[Result], Mapping[str, float]]
    function: TotalsFunction


Estimator = Mean | Statistic


def ratio(name: str, numerator: Callable[[Result], float], denominator: Callable[[Result], float]) -> Statistic:
    """Σ numerator / Σ denominator over the items (undefined when the denominator sums to 0)."""
    return Statistic(name, ("numerator", "denominator"),
                     lambda result: {"numerator": numerator(result), "denominator": denominator(result)}, divide)


def divide(totals: Mapping[str, np.ndarray]) -> np.ndarray:
    """``numerator / denominator``, NaN where the denominator is 0."""
    numerator, denominator = totals["numerator"], totals["denominator"]
    return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def item_values(estimator: Estimator, results: Sequence[Result]) -> np.ndarray:
    """Per item: the mean's value (NaN where None), shape (n,); or the statistic's components, shape (n, K)."""
    if isinstance(estimator, Mean):
        return np.array([np.nan if (v := estimator.value(r)) is None else float(v) for r in results], dtype=float)
    rows = [estimator.values(r) for r in results]
    return np.array([[float(row[c]) for c in estimator.components] for row in rows], dtype=float).reshape(
        len(results), len(estimator.components))


def interval(estimator: Estimator, values: np.ndarray, codes: np.ndarray, unit: str) -> Interval | None:
    """The estimator's number over the items of ``values`` (rows of :func:`item_values`), clustered by ``codes``."""
    if isinstance(estimator, Mean):
        present = ~np.isnan(values)
        return mean_interval(values[present], codes[present], unit)
    return bootstrap_interval(values, estimator.components, estimator.function, codes, unit)


def difference(estimator: Estimator, values_a: np.ndarray, values_b: np.ndarray,
               codes: np.ndarray) -> Difference | None:
    """Run A minus run B on the same items (row i of both is item i); None when either run lacks the number."""
    if isinstance(estimator, Mean):
        both = ~np.isnan(values_a) & ~np.isnan(values_b)
        a, b, codes = values_a[both], values_b[both], codes[both]
        if not len(a):
            return None
        if is_binary(a) and is_binary(b):
            return paired_binary(a, b, codes)
        ones = np.ones_like(a)
        return paired_bootstrap(np.column_stack([a, ones]), np.column_stack([b, ones]), ("numerator", "denominator"),
                                divide, codes)
    return paired_bootstrap(values_a, values_b, estimator.components, estimator.function, codes)
