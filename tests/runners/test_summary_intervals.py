"""Every benchmark's summary holds a 95% interval, its method and its cluster unit for every headline number and
every slice figure; the report shows them in its tables and as error bars; inspect_ai reports the same clustered
standard error; older summaries still report."""

from __future__ import annotations

import json
import re

import pytest
from inspect_ai import eval as inspect_eval
from matplotlib.container import ErrorbarContainer

from causal_datasets.builder import BuildContext
from causal_datasets.causalab.metrics import SCORE_FIELDS
from causal_datasets.cobe.prompts import CRITERION_CODES
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.integrations import inspect_tasks
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.registry import get_builder
from causal_datasets.report.plots import figure
from causal_datasets.report.render import write_report
from causal_datasets.report.runs import load_run
from causal_datasets.runners.records import SUMMARY_FORMAT
from causal_datasets.runners.registry import get_task
from tests.support.builds import small_cladder_build
from tests.support.data import SHARED_DATA_DIR
from tests.support.inspect_offline import use_offline_encoding
from tests.support.intervals import assert_intervals
from tests.support.runs import item_fields, run_eval
from tests.support.stub_flags import stub_flags

COBE_SOURCE = SHARED_DATA_DIR / "cobe" / "category-examples.json"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = small_cladder_build(tmp_path_factory.mktemp("hub"))
    build_to_folder(get_builder("cobe"), root, BuildContext(seed=0, source=COBE_SOURCE))
    build_to_folder(get_builder("shapeworld"), root, BuildContext(seed=0))
    return root


def test_shapeworld_core_every_rate_and_slice_clustered_by_initial_setup(hub, tmp_path):
    summary = run_eval("shapeworld", "--agent", "random", "--out", str(tmp_path / "run"), "--hub-dir", str(hub))
    rates = ("accuracy", "accuracy_true", "accuracy_false", "mean_steps")
    checked = assert_intervals(
        summary,
        "initial setup",
        rates,
        dict.fromkeys(("by_structure", "by_num_variables", "by_num_variables_all_moving"), rates),
    )
    assert checked > 30
    accuracy = summary.intervals.metrics["accuracy"]
    assert (accuracy.n, accuracy.clusters, accuracy.cluster) == (84, 16, "initial setup") and accuracy.mdd > 0
    assert "Korn–Graubard" in accuracy.method
    assert summary.intervals.metrics["mean_steps"].method.startswith("cluster bootstrap")
    lines = item_fields(tmp_path / "run")
    assert all(line["cluster"] == line["setup"] for line in lines)
    assert all(line["groups"]["by_structure"] == [line["structure"]] for line in lines)
    assert summary.format == SUMMARY_FORMAT


def test_causalab_means_and_ratios_clustered_by_config_graph(tmp_path):
    summary = run_eval(
        "causalab",
        "--config",
        "upstream_4nodes",
        "upstream_4nodes_hidden_n1",
        "--agent",
        "random",
        "--source",
        str(SHARED_DATA_DIR / "causalab" / "data"),
        "--hub-dir",
        str(tmp_path / "hub"),
        "--out",
        str(tmp_path / "run"),
    )
    headline = ("task_accuracy", *SCORE_FIELDS, "budget_used", "invalid_steps", "reasks", "consistent")
    assert_intervals(summary, "graph config", headline, {"by_num_nodes": headline[:9], "by_suite": headline[:9]})
    # the two suites play the same 50 graphs: 100 episodes in 50 clusters
    assert summary.intervals.clusters == 50 and summary.intervals.metrics["edge_f1"].clusters == 50
    assert summary.intervals.slices["by_suite"]["4nodes"]["edge_f1"].n == 50


def test_cobe_published_verdicts_per_model_clustered_by_scenario(hub, tmp_path):
    summary = run_eval("cobe", "--config", "responses", "--hub-dir", str(hub), "--out", str(tmp_path / "run"))
    numbers = ("accuracy", "accuracy_decided", "accuracy_phrasing_mean", "accuracy_phrasing_sd")
    assert_intervals(
        summary,
        "scenario",
        ("accuracy", "accuracy_phrasing_mean", "accuracy_phrasing_sd"),
        {"by_model": numbers, "by_domain": ("accuracy",), "by_graph_type": ("accuracy",), "by_phrasing": ("accuracy",)},
    )
    by_model = summary.intervals.slices["by_model"]
    assert len(by_model) == len(summary.slices["by_model"]) > 5
    by_graph = summary.intervals.slices["by_graph_type"]
    for key, entry in summary.slices["by_graph_type"].items():  # each model's accuracy within the entry (Fig. 6)
        assert set(by_graph[key]) >= {f"model_accuracy.{model}" for model in entry["model_accuracy"]}
    assert summary.intervals.metrics["accuracy"].clusters < summary.items.scored  # nine models answer each scenario


def test_cobe_judged_rewrites_criteria_and_agreement(hub, tmp_path):
    verdicts = iter(["T", "F", "T", "T", "F", "T", "T"] * 400)
    with StubServer(lambda request, index: StubReply(text=next(verdicts))) as judge:
        summary = run_eval(
            "cobe",
            "--config",
            "responses",
            "--models",
            "gpt",
            "claude",
            *stub_flags(judge.base_url, role="judge"),
            "--hub-dir",
            str(hub),
            "--out",
            str(tmp_path / "run"),
            "--concurrency",
            "1",
        )
    rates = [f"failure_rate.{code}" for code in CRITERION_CODES if summary.metrics.failure_rate[code] is not None]
    agreement = [
        f"agreement.{rate}"
        for rate in ("accuracy", "precision", "recall", "f1", "cohen_kappa")
        if summary.metrics.agreement[rate] is not None
    ]
    assert rates and "agreement.cohen_kappa" in agreement
    assert_intervals(
        summary, "scenario", ["accuracy", *rates, *agreement], {"by_model": ["accuracy", "published_accuracy", *rates]}
    )
    assert summary.intervals.metrics["agreement.cohen_kappa"].method.startswith("cluster bootstrap")


def test_cladder_pairs_clustered_by_story_and_causal_model(hub, tmp_path):
    replies = ["Estimand: P(Y=1|X=1) - P(Y=1|X=0)", "Estimand: P(Y=1)", "Verdict: equivalent", "no verdict"]

    def respond(request, index):
        return StubReply(body=completion_body(replies[index % 4], prompt_tokens=1, completion_tokens=1))

    with StubServer(respond) as server:
        summary = run_eval(
            "cladder_pairs",
            "--out",
            str(tmp_path / "run"),
            "--hub-dir",
            str(hub),
            "--limit",
            "120",
            *stub_flags(server.base_url),
            *stub_flags(server.base_url, role="judge"),
            "--concurrency",
            "1",
        )
    headline = ("accuracy", "string_match", "bleu", "token_f1", "judge")
    assert_intervals(
        summary,
        "CLadder story and causal model",
        headline,
        dict.fromkeys(("by_rung", "by_query_type", "by_graph_family"), headline),
    )
    accuracy = summary.intervals.metrics["accuracy"]
    lines = item_fields(tmp_path / "run")
    clusters = [line["cluster"] for line in lines]  # file/story/model
    assert all(re.fullmatch(r"[\w.-]+/[^/]+/[^/]+", cluster) for cluster in clusters)
    # --limit spreads the 120 items over the causal models: one each, and the interval counts them
    assert accuracy.n == 120 and accuracy.clusters == len({line["cluster"] for line in lines}) == 120


def test_the_report_shows_intervals_in_tables_and_as_error_bars(hub, tmp_path):
    run_eval("shapeworld", "--agent", "random", "--out", str(tmp_path / "random"), "--hub-dir", str(hub))
    run_eval("shapeworld", "--agent", "oracle", "--out", str(tmp_path / "oracle"), "--hub-dir", str(hub))
    old = tmp_path / "old"  # a format 2 summary: no intervals, still reported
    old.mkdir()
    data = json.loads((tmp_path / "random" / "summary.json").read_text())
    (old / "summary.json").write_text(json.dumps({k: v for k, v in data.items() if k != "intervals"} | {"format": 2}))
    (old / "results.jsonl").write_text((tmp_path / "random" / "results.jsonl").read_text())
    report = write_report([tmp_path / "random", tmp_path / "oracle", old], tmp_path / "report").read_text()
    random = load_run(tmp_path / "random").summary
    low = random.intervals.metrics["accuracy"].ci_low
    assert f"| {random.metrics.accuracy} [{low:.4f}".rstrip("0") in report and "### 95% intervals" in report
    assert "| agent:random (random) | accuracy | " in report and "initial setup (16)" in report
    assert f"| agent:random (old) | 84 | {random.metrics.accuracy} |" in report  # no interval, the bare number
    runs = [load_run(tmp_path / "random"), load_run(tmp_path / "oracle")]
    for plot in get_task("shapeworld").view.plots[:3]:
        axes = figure(plot, runs).axes[0]
        bars = [c for c in axes.containers if isinstance(c, ErrorbarContainer)]
        assert len(bars) == 2, plot.title  # one per run
        segments = bars[0].lines[2][0].get_segments()
        assert all(segment[0][1] <= segment[1][1] for segment in segments)


def test_inspect_reports_the_same_clustered_standard_error(hub, tmp_path, monkeypatch):
    monkeypatch.setenv("STUB_API_KEY", "unused")
    use_offline_encoding()
    [log] = inspect_eval(
        inspect_tasks.shapeworld_core(hub_dir=str(hub), agent="random"),
        model="mockllm/model",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    summary = run_eval("shapeworld", "--agent", "random", "--out", str(tmp_path / "run"), "--hub-dir", str(hub))
    [score] = log.results.scores
    interval = summary.intervals.metrics["accuracy"]
    assert score.metrics["mean"].value == pytest.approx(interval.estimate, abs=1e-12)
    assert score.metrics["stderr"].value == pytest.approx(interval.se, rel=1e-12)
    setups = {line["setup"] for line in item_fields(tmp_path / "run")}
    assert {sample.metadata["cluster"] for sample in log.samples} == setups
