"""Uncertainty of a run's numbers: standard errors, 95% intervals (clustered where items share a unit),
paired comparisons of two runs, Holm's correction and the smallest detectable difference.

``intervals`` holds the one-run statistics, ``paired`` the two-run ones, ``estimators`` what a benchmark's
numbers are made of (means of per-item values, statistics of component totals). All of it is numpy and
scipy over plain arrays; :mod:`causal_datasets.runners.estimates` applies it to a run's results.
"""

from causal_datasets.uncertainty.estimators import Estimator, Mean, Statistic, difference, interval, item_values, ratio
from causal_datasets.uncertainty.intervals import (
    ALPHA,
    CONFIDENCE,
    ITEM,
    POWER,
    Interval,
    bootstrap_interval,
    cluster_codes,
    clustered_se,
    mean_interval,
    minimum_detectable_difference,
)
from causal_datasets.uncertainty.paired import Difference, holm, mcnemar_mid_p, paired_binary, paired_bootstrap

__all__ = [
    "ALPHA",
    "CONFIDENCE",
    "ITEM",
    "POWER",
    "Difference",
    "Estimator",
    "Interval",
    "Mean",
    "Statistic",
    "bootstrap_interval",
    "cluster_codes",
    "clustered_se",
    "difference",
    "holm",
    "interval",
    "item_values",
    "mcnemar_mid_p",
    "mean_interval",
    "minimum_detectable_difference",
    "paired_binary",
    "paired_bootstrap",
    "ratio",
]
