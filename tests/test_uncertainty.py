"""The statistics behind every interval and comparison: formulas against scipy, inspect_ai and lm-eval, the
coverage of the bootstrap's intervals and the size of the paired tests on simulated data (seeded)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.scorer._metrics.std import ci_wilson, stderr
from lm_eval.api.metrics import mean_stderr
from scipy import stats

from causal_datasets.agreement import agreement, agreement_estimators, cohen_kappa
from causal_datasets.uncertainty import (
    ITEM,
    Mean,
    bootstrap_interval,
    cluster_codes,
    clustered_se,
    difference,
    holm,
    interval,
    item_values,
    mcnemar_mid_p,
    mean_interval,
    minimum_detectable_difference,
    paired_binary,
    ratio,
)
from causal_datasets.uncertainty.estimators import divide


def _sample_scores(values, clusters):
    return [
        SampleScore(score=Score(value=float(v)), sample_id=i, sample_metadata={"cluster": c})
        for i, (v, c) in enumerate(zip(values, clusters, strict=True))
    ]


def _clustered(rng, clusters, truth, spread=8.0):
    """0/1 scores of clusters of 1–6 items whose own rate scatters around ``truth`` (Beta with that mean)."""
    sizes = rng.integers(1, 7, clusters)
    rates = rng.beta(truth * spread, (1 - truth) * spread, clusters)
    codes = np.repeat(np.arange(clusters), sizes)
    return (rng.random(len(codes)) < rates[codes]).astype(float), codes


# --- one run ---------------------------------------------------------------------------------------


def test_the_clustered_se_is_inspects_and_without_clusters_lm_evals():
    rng = np.random.default_rng(1)
    values, codes = _clustered(rng, 25, 0.6)
    labels = [f"c{c}" for c in codes]
    scores = _sample_scores(values, labels)
    assert clustered_se(values, codes) == pytest.approx(stderr(cluster="cluster")(scores), rel=1e-12)
    assert clustered_se(values, np.arange(len(values))) == pytest.approx(mean_stderr(list(values)), rel=1e-12)
    assert clustered_se(values, np.arange(len(values))) == pytest.approx(stderr()(scores), rel=1e-12)
    assert clustered_se(values, codes) > clustered_se(values, np.arange(len(values)))  # correlated clusters widen it


def test_proportions_get_wilson_intervals_as_scipy_and_inspect_give_them():
    rng = np.random.default_rng(2)
    values, codes = _clustered(rng, 30, 0.7)
    unclustered = mean_interval(values, np.arange(len(values)), "scenario")
    expected = stats.binomtest(int(values.sum()), len(values)).proportion_ci(0.95, method="wilson")
    assert (unclustered.ci_low, unclustered.ci_high) == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert unclustered.cluster == ITEM and unclustered.method == "Wilson score interval"
    clustered = mean_interval(values, codes, "scenario")
    inspect = ci_wilson(cluster="cluster")(_sample_scores(values, codes.tolist()))
    assert (clustered.ci_low, clustered.ci_high) == pytest.approx((inspect["lower"], inspect["upper"]), rel=1e-12)
    assert clustered.cluster == "scenario" and clustered.clusters == 30 and "Korn–Graubard" in clustered.method
    assert clustered.ci_high - clustered.ci_low > unclustered.ci_high - unclustered.ci_low


def test_other_means_get_a_t_interval_on_the_clustered_se():
    values = np.array([0.2, 0.4, 0.9, 0.1, 0.5, 0.7])
    codes = cluster_codes(["a", "a", "b", "c", "c", "c"])
    result = mean_interval(values, codes, "story")
    half = stats.t.ppf(0.975, 2) * clustered_se(values, codes)
    assert (result.ci_low, result.ci_high) == pytest.approx((values.mean() - half, values.mean() + half))
    assert result.method == "mean ± t(2)·cluster-robust SE" and result.n == 6 and result.clusters == 3


def test_one_cluster_has_no_interval_and_none_has_no_number():
    one = mean_interval(np.array([1.0, 0.0, 1.0]), np.zeros(3, dtype=int), "graph")
    assert one.se is None and one.ci_low is None and one.estimate == pytest.approx(2 / 3)
    assert one.method.startswith("none")
    assert mean_interval(np.array([]), np.array([], dtype=int), "graph") is None


def test_the_smallest_detectable_difference_is_the_power_formula():
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert minimum_detectable_difference(0.05) == pytest.approx(z * math.sqrt(2) * 0.05)
    assert minimum_detectable_difference(0.0) is None and minimum_detectable_difference(None) is None


def test_the_cluster_bootstraps_95_percent_intervals_cover_the_truth():
    """1,000 seeded draws of clustered data (60 clusters of 1–6 items): the accuracy on the items of one kind
    is a ratio whose denominator depends on the draw; its bootstrap interval must cover the true 0.7 in at
    least 93% of the draws."""
    rng = np.random.default_rng(2024)
    estimator = ratio("accuracy_on_kind", lambda r: r["right"] * r["kind"], lambda r: r["kind"])
    covered = 0
    for _ in range(1000):
        right, codes = _clustered(rng, 60, 0.7)
        kind = (rng.random(len(codes)) < 0.5).astype(float)
        components = np.column_stack([right * kind, kind])
        result = bootstrap_interval(
            components,
            estimator.components,
            estimator.function,
            codes,
            "graph",
            resamples=1000,
            seed=int(rng.integers(1 << 31)),
        )
        covered += result.ci_low <= 0.7 <= result.ci_high
    assert covered >= 930, covered


def test_the_clustered_proportion_intervals_cover_the_truth():
    rng = np.random.default_rng(7)
    covered = 0
    for _ in range(1000):
        values, codes = _clustered(rng, 40, 0.3)
        result = mean_interval(values, codes, "setup")
        covered += result.ci_low <= 0.3 <= result.ci_high
    assert covered >= 930, covered


def test_a_statistic_of_counts_is_recomputed_on_every_resample():
    """Cohen's κ of a judge against reference verdicts, through the same formulas as :func:`agreement`."""
    rng = np.random.default_rng(4)
    labels = np.array(["correct", "wrong", "unknown"])
    reference = list(labels[rng.choice(3, 40, p=[0.5, 0.45, 0.05])])
    predicted = [r if rng.random() < 0.75 else str(rng.choice(labels)) for r in reference]
    results = [{"p": p, "r": r} for p, r in zip(predicted, reference, strict=True)]
    kappa = next(e for e in agreement_estimators("agree", lambda r: (r["p"], r["r"])) if e.name == "agree.cohen_kappa")
    result = interval(kappa, item_values(kappa, results), np.arange(len(results)) // 8, "story")
    assert result.estimate == pytest.approx(agreement(predicted, reference)["cohen_kappa"])
    decided = [i for i, (p, r) in enumerate(zip(predicted, reference, strict=True)) if "unknown" not in (p, r)]
    decided_kappa = cohen_kappa([predicted[i] for i in decided], [reference[i] for i in decided])
    assert result.estimate == pytest.approx(decided_kappa)
    assert result.ci_low < result.estimate < result.ci_high and "cluster bootstrap" in result.method


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 5)), min_size=1, max_size=40))
def test_proportion_intervals_hold_the_estimate_within_zero_and_one(pairs):
    values = np.array([v for v, _ in pairs], dtype=float)
    result = mean_interval(values, cluster_codes([c for _, c in pairs]), "unit")
    assert result.estimate == pytest.approx(values.mean())
    if result.ci_low is not None:
        assert 0 <= result.ci_low <= result.estimate + 1e-12 and result.estimate - 1e-12 <= result.ci_high <= 1


# --- two runs --------------------------------------------------------------------------------------


def test_mcnemar_mid_p_is_the_exact_binomial_minus_half_the_observed():
    exact = stats.binomtest(2, 12, 0.5).pvalue
    assert mcnemar_mid_p(10, 2) == pytest.approx(exact - stats.binom.pmf(2, 12, 0.5))
    assert mcnemar_mid_p(3, 3) == 1.0 and mcnemar_mid_p(0, 0) == 1.0


def test_paired_tests_keep_their_size_under_no_difference():
    """Two runs equally good in expectation, 300 seeded draws each. Items of one difficulty each: McNemar
    rejects at α 0.05 in at most 8% of the draws. Clusters where each run has its own strengths (a run's
    rate per cluster drawn apart): the cluster permutation test stays within 8%, while McNemar, blind to
    the clusters, rejects more often: why clustered items need the clustered test."""
    rng = np.random.default_rng(11)
    rejected = {"McNemar, items": 0, "permutation, clusters": 0, "McNemar, clusters": 0}
    for draw in range(300):
        difficulty = rng.beta(3, 2, 120)
        a, b = (rng.random(120) < difficulty).astype(float), (rng.random(120) < difficulty).astype(float)
        rejected["McNemar, items"] += paired_binary(a, b, np.arange(120)).p_value < 0.05
        sizes = rng.integers(1, 7, 25)
        codes = np.repeat(np.arange(25), sizes)
        rate_a, rate_b = rng.beta(4.8, 3.2, 25), rng.beta(4.8, 3.2, 25)
        a = (rng.random(len(codes)) < rate_a[codes]).astype(float)
        b = (rng.random(len(codes)) < rate_b[codes]).astype(float)
        rejected["permutation, clusters"] += paired_binary(a, b, codes, seed=draw).p_value < 0.05
        rejected["McNemar, clusters"] += paired_binary(a, b, np.arange(len(a))).p_value < 0.05
    assert rejected["McNemar, items"] <= 24 and rejected["permutation, clusters"] <= 24, rejected
    assert rejected["McNemar, clusters"] > rejected["permutation, clusters"], rejected


def test_a_clear_difference_is_found_and_identical_runs_are_not():
    rng = np.random.default_rng(3)
    a, codes = _clustered(rng, 30, 0.8)
    b = (rng.random(len(a)) < 0.3).astype(float)
    found = paired_binary(a, b, codes)
    assert found.p_value < 0.001 and found.ci_low > 0 and found.method.startswith("paired cluster permutation")
    same = paired_binary(a, a, codes)
    assert same.p_value == 1.0 and same.difference == 0.0


def test_a_paired_bootstrap_compares_statistics_and_non_binary_means():
    rng = np.random.default_rng(5)
    f1_a, f1_b = rng.uniform(0.4, 1.0, 80), rng.uniform(0.0, 0.6, 80)
    results_a, results_b = [{"f1": v} for v in f1_a], [{"f1": v} for v in f1_b]
    mean = Mean("f1", lambda r: r["f1"])
    codes = np.arange(80) // 4
    found = difference(mean, item_values(mean, results_a), item_values(mean, results_b), codes)
    assert found.difference == pytest.approx(f1_a.mean() - f1_b.mean())
    assert found.ci_low < found.difference < found.ci_high
    assert found.p_value < 0.01 and found.method.startswith("paired cluster bootstrap")
    same = difference(mean, item_values(mean, results_a), item_values(mean, results_a), codes)
    assert same.p_value == 1.0


def test_holm_adjusts_step_down_and_skips_missing_tests():
    assert holm([0.01, 0.04, None, 0.03]) == pytest.approx([0.03, 0.06, None, 0.06], nan_ok=True)
    assert holm([0.2, 0.5]) == [0.4, 0.5] and holm([]) == []


def test_divide_is_undefined_over_an_empty_denominator():
    assert np.isnan(divide({"numerator": np.array(0.0), "denominator": np.array(0.0)}))
    assert divide({"numerator": np.array([1.0, 2.0]), "denominator": np.array([2.0, 0.0])})[0] == 0.5
