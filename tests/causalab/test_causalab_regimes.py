"""Interaction regimes (RQ2, Fig. 3), the scaling sweep (App. Figs. 13–14), consistency with the
agent's own data, budget use by outcome, and scoring the authors' released run with our metrics."""

from __future__ import annotations

from statistics import fmean

import pytest

from causal_datasets.causalab.episode import run_episode
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.generator import generate_suite
from causal_datasets.causalab.lab import Lab
from causal_datasets.causalab.metrics import consistency
from causal_datasets.causalab.options import CausaLabOptions
from causal_datasets.causalab.regimes import REGIMES, Setting, regime_of, scaling_setting, with_setting
from causal_datasets.causalab.suites import SUITE_SPECS
from causal_datasets.causalab.upstream import load_suite
from causal_datasets.causalab.upstream_run import (
    UpstreamRunError,
    parse_observations,
    parse_submissions,
    read_upstream_run,
)
from causal_datasets.cli import main
from causal_datasets.report.render import write_report
from causal_datasets.runners.results import read_summary
from tests.causalab.data import RELEASE, SAMPLE
from tests.support.runs import item_fields, run_eval


def test_generated_observations_extend_the_rows_own_and_zero_is_allowed():
    episode = generate_suite(SUITE_SPECS["5nodes"], count=1)[0]
    many = with_setting(episode, Setting(prior_observations=6, budget=0))
    assert many.prior_records[:2] == episode.prior_records and len(many.prior_records) == 6 and many.budget == 0
    assert len({tuple(p.value for p in r.properties) for r in many.prior_records}) == 6
    assert with_setting(episode, Setting(prior_observations=6)) == with_setting(episode, Setting(prior_observations=6))
    none = with_setting(episode, Setting(prior_observations=0))
    assert none.prior_records == [] and none.observation_crystals == [] and none.budget == episode.budget
    golden = generate_suite(SUITE_SPECS["4nodes_golden"], count=1)[0]
    assert with_setting(golden, Setting(prior_observations=0)).prior_records == golden.prior_records[2:]


def test_with_no_budget_the_lab_refuses_and_the_experimenter_fits_the_records():
    episode = with_setting(load_suite(RELEASE, "4nodes")[0], Setting(prior_observations=6, budget=0))
    assert Lab(episode).intervene(episode.controllable[0], 5).reason == "budget_exhausted"
    result = run_episode(episode, ExperimenterAgent())
    assert result.success and result.interventions_used == 0 and len(result.steps) == 1
    scores = result.scores(episode)
    assert scores["freq_edge_f1"] == 1.0 and scores["edge_f1"] < 1.0  # only the frequency's parents are identified


def test_regimes_reproduce_the_papers_shape_with_the_experimenter():
    # observation-only: the frequency is predicted from records alone, but the graph is not recovered
    episodes = load_suite(RELEASE, "6nodes")[:12]
    by_regime = {}
    for name, setting in REGIMES.items():
        results = [(run_episode(e := with_setting(ep, setting), ExperimenterAgent()), e) for ep in episodes]
        by_regime[name] = (fmean(r.success for r, _ in results), fmean(r.scores(e)["edge_f1"] for r, e in results))
    assert by_regime["observation-only"][0] == 1.0 and by_regime["observation-only"][1] < 0.6
    assert by_regime["mixed"] == (1.0, 1.0) == by_regime["intervention-only"]


def test_too_few_records_or_interventions_fail_honestly():
    episodes = load_suite(RELEASE, "6nodes")[:12]
    for family in ("observation", "intervention"):  # 3 records or 3 interventions cannot pin 6 unknowns
        results = [run_episode(with_setting(e, scaling_setting(family, 3)), ExperimenterAgent()) for e in episodes]
        assert fmean(r.success for r in results) < 0.6, family


def test_regime_names_and_option_precedence():
    assert [regime_of(12, 0), regime_of(2, 12), regime_of(0, 12), regime_of(0, 0)] == [
        "observation-only",
        "mixed",
        "intervention-only",
        "observation-only",
    ]
    assert CausaLabOptions(regime="observation-only").setting() == Setting(12, 0)
    assert CausaLabOptions(regime="observation-only", prior_observations=3).setting() == Setting(3, 0)
    assert CausaLabOptions(budget=0).setting() == Setting(None, 0)
    assert [scaling_setting(f, 6) for f in ("observation", "intervention", "mixed")] == [
        Setting(6, 0),
        Setting(0, 6),
        Setting(3, 6),
    ]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return tmp_path_factory.mktemp("hub")


def test_eval_with_zero_observations_and_zero_budget(hub, tmp_path):
    summary = run_eval(
        "causalab",
        "--config",
        "3nodes",
        "--agent",
        "experimenter",
        "--limit",
        "2",
        "--prior-observations",
        "0",
        "--budget",
        "0",
        "--hub-dir",
        str(hub),
        "--out",
        str(tmp_path / "run"),
    )
    items = item_fields(tmp_path / "run")
    assert all(i["prior_observations"] == 0 and i["budget"] == 0 and i["interventions_used"] == 0 for i in items)
    assert (
        summary.metrics.regime == "observation-only"
        and summary.metrics.budget == 0
        and summary.metrics.budget_used is None
    )
    assert summary.options["prior_observations"] == 0  # one manipulator reading cannot pin the frequency
    assert summary.metrics.task_accuracy < 1.0


def test_bad_regime_values_are_one_line(hub, tmp_path, capsys):
    assert (
        main(
            [
                "eval",
                "causalab",
                "--agent",
                "random",
                "--budget",
                "-1",
                "--hub-dir",
                str(hub),
                "--out",
                str(tmp_path / "a"),
            ]
        )
        == 2
    )
    assert "--budget" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["eval", "causalab", "--agent", "random", "--regime", "passive", "--out", str(tmp_path / "b")])
    capsys.readouterr()
    assert (
        main(["sweep", "--agent", "random", "--budget", "3", "--hub-dir", str(hub), "--out", str(tmp_path / "c")]) == 2
    )
    assert "a sweep sets the number of observations and the budget itself" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_sweep_writes_one_run_per_point_and_report_draws_the_curves(hub, tmp_path):
    out = tmp_path / "sweep"
    code = main(
        [
            "sweep",
            "--families",
            "observation",
            "mixed",
            "--counts",
            "3",
            "12",
            "--agent",
            "experimenter",
            "--config",
            "4nodes",
            "--limit",
            "2",
            "--hub-dir",
            str(hub),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    points = sorted(p.name for p in out.iterdir())
    assert points == ["mixed-o3-i12", "mixed-o3-i3", "observation-o12-i0", "observation-o3-i0"]
    summary = read_summary(out / "observation-o12-i0")
    assert (summary["metrics"]["prior_observations"], summary["metrics"]["budget"], summary["metrics"]["regime"]) == (
        12,
        0,
        "observation-only",
    )
    report = write_report(sorted(out.iterdir()), tmp_path / "report")
    text = report.read_text()
    for png in (
        "causalab-scaling-task-accuracy-app-figs-13-14.png",
        "causalab-scaling-all-edge-f1-app-figs-13-14.png",
        "causalab-accuracy-vs-edge-f1-by-regime-fig-3.png",
    ):
        assert png in text and (tmp_path / "report" / png).stat().st_size > 0


def test_experimenter_final_hypotheses_are_consistent_and_use_the_budget(hub, tmp_path):
    summary = run_eval(
        "causalab",
        "--config",
        "4nodes",
        "--agent",
        "experimenter",
        "--limit",
        "3",
        "--hub-dir",
        str(hub),
        "--out",
        str(tmp_path / "run"),
    )
    metrics = summary.metrics
    assert metrics.consistent == 1.0 and metrics.consistent_by_success == {"solved": 1.0, "failed": None}
    assert metrics.budget_used_by_success == {"solved": 1.0, "failed": None} and metrics.reasks == 0
    steps = summary.slices["by_step"]
    assert (
        list(steps) == [str(i) for i in range(1, 14)] and steps["13"]["edge_f1"] == 1.0 and steps["1"]["running"] == 3
    )


def test_consistency_is_measured_on_every_record():
    episode = load_suite(RELEASE, "4nodes")[0]  # freq = 25 + density + moisture
    from causal_datasets.causalab.dsl import Hypothesis

    data = [
        {"props": {"density": 1, "moisture": 2, "quantumSize": 0}, "freq": 28.0},
        {"props": {"density": 10, "moisture": 0, "quantumSize": 0}, "freq": 35.0},
    ]
    exact = Hypothesis(freq_equation="resonanceFreq = 25 + density + moisture")
    assert consistency(exact, data, episode.tolerance).consistent
    off = consistency(Hypothesis(freq_equation="resonanceFreq = 20 + density + 2*moisture"), data, 5.0)
    # residuals |20+1+4−28| = 3 and |20+10−35| = 5: the second is not below the 5 Hz tolerance
    assert not off.consistent and off.max_residual == 5.0 and off.mean_residual == 4.0
    broken = consistency(Hypothesis(freq_equation="resonanceFreq = radiation"), data, 5.0)
    assert not broken.consistent and "unknown name" in broken.error


def test_the_released_gpt5_mini_run_scored_with_our_metrics(tmp_path, capsys):
    run = read_upstream_run(SAMPLE)
    assert (run.suite, run.budget, run.submissions, run.activated) == ("4nodes", 12, [99.25531914893617], False)
    assert main(["score-upstream-run", str(SAMPLE.parent), "--out", str(tmp_path / "scored")]) == 0
    (item,) = item_fields(tmp_path / "scored")
    summary = read_summary(tmp_path / "scored")
    assert (
        item["id"] == "upstream_4nodes/4nodes_0@sample_run_4nodes_0_gpt-5-mini" and item["config"] == "upstream_4nodes"
    )
    assert (item["outcome"], item["interventions_used"], item["budget"], item["prior_observations"]) == (
        "wrong_answer",
        3,
        12,
        2,
    )
    assert item["mechanism"]["edge_f1"] == pytest.approx(2 / 3) and item["mechanism"]["shd"] == 2
    assert len(item["trajectory"]) == len(item["steps"]) == 14
    assert [call["reply"] for call in item["calls"]] == run.replies and item["agent"] == "published"
    # its final equation, base −56.70 + 1.234·moisture + quantumSize, fits both observations but
    # misses the reading before any intervention by 50 Hz (density 39 never enters it)
    assert not item["consistency"]["consistent"] and item["consistency"]["max_residual"] == pytest.approx(50.0)
    assert summary["solver"] == "published" and summary["models"] == {"model": "gpt-5-mini"}
    assert summary["metrics"]["budget_used_by_success"] == {"solved": None, "failed": 0.25}
    assert summary["metrics"]["consistent_by_success"] == {"solved": None, "failed": 0.0}
    write_report([tmp_path / "scored"], tmp_path / "report")
    assert "published (scored)" in (tmp_path / "report" / "report.md").read_text()


def test_a_folder_that_is_no_upstream_run_is_one_line(tmp_path, capsys):
    (tmp_path / "graph_config.json").write_text("{}")
    with pytest.raises(UpstreamRunError, match="has no Reactor_Lab"):
        read_upstream_run(tmp_path)
    assert main(["score-upstream-run", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_task_text_and_dialog_parsers():
    text = (
        "EXISTING OBSERVATIONS:\n\n"
        "- Observation 1: {'density': 14, 'resonanceFreq': 42.0}\n"
        "- Observation 2: {'ph': -3.5}\n"
    )
    assert parse_observations(text) == [{"density": 14.0, "resonanceFreq": 42.0}, {"ph": -3.5}]
    with pytest.raises(ValueError):
        parse_observations("- Observation 1: {'density': 'high'}")
    messages = [
        "Frequency set to 99.5 Hz.\nUsage: 1/3 submissions.",
        "Frequency set to 99.5 Hz.\nUsage: 1/3 submissions.",
        "Frequency set to 120 Hz.\nUsage: 2/3 submissions.",
    ]
    assert parse_submissions(messages) == [99.5, 120.0]
