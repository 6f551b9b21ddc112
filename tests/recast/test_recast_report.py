"""``report`` on a ReCAST run: the paper's tables (Table 2 with SD, Table 4, App. Table 2, the
knowledge-cutoff test) and figures (Figs. 2–4, App. Figs. 4–7 and 9) come out of the typed summary."""

from __future__ import annotations

import pytest

from causal_datasets.cli import main
from causal_datasets.llm.stub_server import StubServer
from causal_datasets.recast.release import read_release
from tests.data.recast.helpers import run_recast_eval
from tests.recast.test_recast_task import stub_model
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields
from tests.support.stub_flags import stub_flags

RELEASE = SHARED_DATA_DIR / "recast" / "test.parquet"
#: ten short samples across confounding, domains, and publication years on both sides of 2024
IDS = (91, 98, 25, 232, 24, 208, 192, 172, 56, 34)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("recast-report")
    samples = {s.id: s for s in read_release(RELEASE).samples}
    # the model answers with the true graph for every other sample and a single edge for the rest
    answers = {
        samples[i].input_text[:200]: list(samples[i].graph().edges)[:: 1 if n % 2 else 5] for n, i in enumerate(IDS)
    }
    with StubServer(stub_model(answers)) as server:
        summary = run_recast_eval(
            [
                *stub_flags(server.base_url),
                *stub_flags(server.base_url, role="judge", model="stub-judge"),
                "--hub-dir",
                str(root / "hub"),
                "--source",
                str(RELEASE),
                "--ids",
                *map(str, IDS),
                "--out",
                str(root / "run"),
                "--concurrency",
                "2",
                "--reversal-cost",
                "2",
            ]
        )
    assert main(["report", str(root / "run"), "--out", str(root / "report")]) == 0
    return summary, item_fields(root / "run"), root / "report"


def test_every_analysis_is_in_the_summary(run):
    summary, results, _ = run
    metrics, slices = summary.metrics, summary.slices
    assert metrics.count == len(IDS) and metrics.deterministic["exact"]["shd_sd"] is not None
    f1s = [r["judge"]["scores"]["f1"] for r in results if r.get("judge")]
    assert metrics.judge["f1_n"] == len(f1s) == len(IDS)
    assert set(slices) == {
        "by_confounding",
        "by_confounding_strict",
        "by_domain",
        "by_num_domains",
        "by_knowledge_cutoff",
        "by_size_quartile",
    }
    assert sum(entry["n"] for entry in slices["by_confounding"].values()) == len(IDS)
    assert sum(entry["dataset_n"] for entry in slices["by_confounding_strict"].values()) == 292
    assert sum(entry["n"] for entry in slices["by_knowledge_cutoff"].values()) == len(IDS)
    cutoff = metrics.knowledge_cutoff
    assert (cutoff["recent_n"], cutoff["older_n"]) == (3, 7) and 0 < cutoff["judge_f1_p"] <= 1
    assert set(metrics.size_confounding_r2) == {"text_length", "num_edges", "num_nodes"}
    assert all(r["text_length"] > 0 and r["confounding_strict"] is not None for r in results)


def test_report_holds_the_tables_and_draws_the_figures(run):
    _, _, out = run
    report = (out / "report.md").read_text()
    for heading in (
        "### By confounding",
        "### By confounding strict",
        "### By domain",
        "### By num domains",
        "### By knowledge cutoff",
        "### By size quartile",
        "### Knowledge cutoff: Mann–Whitney U test, recent vs older papers",
        "### R² of the lenient degree of confounding on log10 size",
    ):
        assert heading in report, heading
    images = sorted(p.name for p in out.glob("recast-*.png"))
    assert images == sorted(
        [
            "recast-judge-f1-by-degree-of-confounding-lenient-fig-2.png",
            "recast-edge-f1-normalized-names-by-degree-of-confounding-lenient-fig-2.png",
            "recast-judge-f1-by-degree-of-confounding-strict-app-fig-9.png",
            "recast-edge-f1-normalized-names-by-degree-of-confounding-strict-app-fig-9.png",
            "recast-judge-f1-by-domain-fig-4.png",
            "recast-edge-f1-normalized-names-by-domain-fig-4.png",
            "recast-text-length-vs-confounding-fig-3-app-fig-6.png",
            "recast-edges-vs-confounding-app-fig-7.png",
            "recast-nodes-vs-confounding-as-app-fig-7.png",
            "recast-answer-length-incl-reasoning-trace-app-figs-4-5.png",
        ]
    )
    for name in images:
        assert f"]({name})" in report


def test_every_mean_and_analysis_group_has_an_interval_clustered_by_paper(run):
    from causal_datasets.recast.deterministic import FIELDS
    from tests.support.intervals import assert_intervals

    summary, results, out = run
    deterministic = [f"deterministic.{matching}.{name}" for matching in ("exact", "normalized") for name in FIELDS]
    judge = [f"judge.{name}" for name in ("node_f1", "edge_f1", "f1")]
    scores = ("judge_f1", "edge_f1_normalized")
    assert_intervals(
        summary,
        "paper",
        ["scored_share", *deterministic, *judge],
        dict.fromkeys(
            ("by_confounding", "by_confounding_strict", "by_domain", "by_num_domains", "by_knowledge_cutoff"), scores
        ),
    )
    # a paper is one sample each: the bootstrap runs over items
    assert summary.intervals.metrics["deterministic.normalized.edge_f1"].method.startswith("bootstrap")
    assert all(line["cluster"].startswith("https://") for line in results)
    assert "[" in (out / "report.md").read_text().split("### Name-based scores", 1)[-1].split("###", 1)[0]
