"""Mechanism metrics: the real episode's final hypothesis against a hand computation, edge cases,
the quadratic family, trajectories and the evaluate module."""

from __future__ import annotations

import evaluate
import pytest

from causal_datasets.causalab.dsl import DslEdge, Hypothesis, parse_step
from causal_datasets.causalab.metrics import aggregate, score_batch, score_hypothesis, score_trajectory
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.upstream import load_suite
from causal_datasets.paths import metric_path
from tests.causalab.data import RELEASE


def test_final_hypothesis_of_the_real_episode_matches_a_hand_computation(sample):
    run, episode = sample
    final = parse_step(run.replies[-1]).step.hypothesis
    scores = score_hypothesis(final, episode)
    # truth: density->freq, moisture->freq, density->quantumSize (weights 1, base 25)
    # stated: moisture->freq, quantumSize->freq, density->quantumSize
    assert scores.edge_precision == scores.edge_recall == scores.edge_f1 == pytest.approx(2 / 3)
    assert scores.shd == 2  # density->freq missing, quantumSize->freq extra
    assert scores.freq_edge_f1 == pytest.approx(0.5)  # {moisture, quantumSize} vs {density, moisture}
    assert scores.coefficient_f1 == 0.0  # c_moisture 1.234 ≠ 1; quantumSize is no parent
    assert scores.root_f1 == 1.0  # both graphs: {density, moisture}
    # -56.702 + 1.234·34 + 1·114 = 99.2553 Hz against 156 Hz
    assert scores.formula_prediction == pytest.approx(-56.70212765957447 + 1.2340425531914894 * 34 + 114)
    assert not scores.formula_hit
    assert abs(scores.formula_prediction - 99.25531914893617) < 1e-9  # what the model submitted


def test_the_true_mechanism_scores_perfectly_and_a_reversal_counts_once():
    episode = load_suite(RELEASE, "4nodes")[0]
    truth = Hypothesis(
        edges=[DslEdge(source=e.source, target=e.target) for e in episode.edges],
        freq_equation="frequency = b + c_density*density + c_moisture*moisture",
        coefficients={"b": 25, "c_density": 1, "c_moisture": 1},
    )
    perfect = score_hypothesis(truth, episode)
    assert (perfect.edge_f1, perfect.shd, perfect.freq_edge_f1, perfect.coefficient_f1, perfect.root_f1) == (
        1,
        0,
        1,
        1,
        1,
    )
    assert perfect.formula_hit and perfect.formula_prediction == episode.reactor_frequency
    flipped = truth.model_copy(update={"edges": [DslEdge(source="quantumSize", target="density"), *truth.edges[:2]]})
    assert score_hypothesis(flipped, episode).shd == 1


def test_an_empty_or_unusable_hypothesis_scores_zero_without_raising():
    episode = load_suite(RELEASE, "4nodes")[0]
    empty = score_hypothesis(Hypothesis(), episode)
    assert (empty.edge_f1, empty.freq_edge_f1, empty.coefficient_f1, empty.root_f1) == (0, 0, 0, 0)
    assert empty.shd == 3 and empty.formula_hit is False
    broken = score_hypothesis(Hypothesis(freq_equation="resonanceFreq = base * (", coefficients={"base": 1}), episode)
    assert broken.formula_prediction is None and "cannot parse" in broken.formula_error


def test_quadratic_terms_are_scored():
    episode = load_suite(RELEASE, "4nodes_quad_hard")[0]  # freq: density (0.016, -1.73385), moisture (0.008, -0.572005)
    # named as the authors' step prompt names them: c_<P>_1 of P^2, c_<P>_2 of P
    exact = {
        "base": 90.009481,
        "c_density_1": 0.016,
        "c_density_2": -1.73385,
        "c_moisture_1": 0.008,
        "c_moisture_2": -0.572005,
    }
    hypothesis = Hypothesis(coefficients=exact)
    assert score_hypothesis(hypothesis, episode).coefficient_f1 == 1.0
    assert score_hypothesis(hypothesis, episode).formula_hit
    swapped = Hypothesis(
        coefficients={"base": 90.009481}
        | {k[:-1] + ("2" if k[-1] == "1" else "1"): v for k, v in exact.items() if k != "base"}
    )
    assert score_hypothesis(swapped, episode).coefficient_f1 == 0.0  # the reading the package had before
    half = Hypothesis(coefficients=exact | {"c_density_2": -1.7, "c_moisture_1": 0.009})
    assert score_hypothesis(half, episode).coefficient_f1 == 0.5
    linear_only = Hypothesis(coefficients={"base": 90, "c_density": -1.73385, "c_moisture": -0.572005})
    assert score_hypothesis(linear_only, episode).coefficient_f1 == pytest.approx(2 * 2 / (2 + 4))


def test_trajectory_and_aggregate(sample):
    run, episode = sample
    steps = [parse_step(reply).step.hypothesis for reply in run.replies]
    trajectory = score_trajectory(steps, episode)
    assert len(trajectory) == 14
    assert trajectory[0].edge_f1 == 0.0 and trajectory[-1].edge_f1 == pytest.approx(2 / 3)
    summary = aggregate(
        [{"success": True, "scores": trajectory[-1].to_dict()}, {"success": False, "scores": trajectory[0].to_dict()}]
    )
    assert summary["task_accuracy"] == 0.5 and summary["edge_f1"] == pytest.approx(1 / 3)


def test_evaluate_module_agrees_with_the_library(sample):
    run, episode = sample
    metric = evaluate.load(str(metric_path("causalab_mechanism")))
    predictions = [run.replies[-1], "nothing readable"]
    references = [episode.model_dump_json(), episode.model_dump_json()]
    result = metric.compute(predictions=predictions, references=references, successes=[False, True])
    assert result == score_batch(predictions, [episode, episode], [False, True])
    assert result["unparsable"] == 1 and result["task_accuracy"] == 0.5
    assert result["edge_f1"] == pytest.approx(1 / 3)
    # the unreadable one is the worst: the maximal SHD over the episode's nodes, beside the read one's
    read = score_hypothesis(parse_step(run.replies[-1]).step.hypothesis, episode).shd
    n = len(episode.nodes)
    assert result["shd"] == pytest.approx((read + n * (n - 1)) / 2)
    assert "task_accuracy" not in metric.compute(predictions=predictions[:1], references=references[:1])


def test_the_module_takes_dataset_rows_as_they_load(sample):
    """A `causalab` row as load_dataset gives it (family and origin as class-label integers)."""
    run, episode = sample
    metric = evaluate.load(str(metric_path("causalab_mechanism")))
    row = episode.to_row()
    features = CausaLabEpisode.features()
    row = {
        **row,
        "family": features["family"].str2int(row["family"]),
        "origin": features["origin"].str2int(row["origin"]),
    }
    by_row = metric.compute(predictions=[run.replies[-1]], references=[row])
    assert by_row == metric.compute(predictions=[run.replies[-1]], references=[episode.model_dump_json()])
    assert by_row["unparsable"] == 0


@pytest.mark.parametrize(
    ("inputs", "error", "message"),
    [
        ({"predictions": [], "references": []}, ValueError, "empty batch"),
        ({"predictions": ["{}"], "references": ["{}"]}, ValueError, r"references\[0\] is not a CausaLabEpisode row"),
        ({"predictions": ["{}"], "references": [7]}, TypeError, r"references\[0\] must be a CausaLabEpisode row"),
    ],
)
def test_bad_references_name_the_item(sample, inputs, error, message):
    with pytest.raises(error, match=message):
        score_batch(**inputs)


def test_bad_successes_name_the_item(sample):
    _, episode = sample
    with pytest.raises(TypeError, match=r"successes\[1\]"):
        score_batch(["{}", "{}"], [episode, episode], [True, "maybe"])
    with pytest.raises(ValueError, match="1 successes"):
        score_batch(["{}", "{}"], [episode, episode], [True])


def test_an_episode_without_a_readable_hypothesis_scores_the_worst(sample):
    _, episode = sample
    empty = score_hypothesis(Hypothesis(), episode)
    worst = score_hypothesis(None, episode)
    assert worst.shd > empty.shd and worst.edge_f1 == empty.edge_f1 == 0.0 and not worst.formula_hit
