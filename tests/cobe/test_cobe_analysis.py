"""CoBe's analyses: Table 5's mean ± SD over phrasings, per-model tables, text statistics (Table 2),
Fleiss' and Cohen's κ, and the published verdicts summarised offline by ``eval cobe --config responses``.

Statistics are checked on cases computed by hand; the offline summary against figures computed here
straight from the website file (not through the package's reader).
"""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from causal_datasets.agreement import cohen_kappa, cohen_kappa_counts, fleiss_kappa
from causal_datasets.builder import BuildContext
from causal_datasets.cobe.scoring import ScoredRow, by_model, summarize
from causal_datasets.cobe.statistics import text_statistics
from causal_datasets.errors import RunConfigurationError
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields, run_eval

SOURCE = SHARED_DATA_DIR / "cobe" / "category-examples.json"
PHRASING_OF_INDEX = {2: "A", 5: "B", 7: "C"}  # the website's query_idx of the three templates


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub")
    build_to_folder(get_builder("cobe"), root, BuildContext(seed=0, source=SOURCE))
    return root


def row(verdict, phrasing, model="m", **passed):
    return ScoredRow(verdict=verdict, passed=passed, phrasing=phrasing, model=model, graph_type="chain")


# --- statistics by hand ---------------------------------------------------------------------------


def test_accuracy_as_mean_and_sd_over_the_phrasings():
    rows = [row("correct", "A"), row("wrong", "A"), row("correct", "B"), row("correct", "B"), row("wrong", "C")]
    summary = summarize(rows)
    # phrasing accuracies 1/2, 1, 0: mean 1/2, population SD √(1/6)
    assert summary["accuracy"] == pytest.approx(3 / 5)
    assert summary["accuracy_phrasing_mean"] == pytest.approx(0.5)
    assert summary["accuracy_phrasing_sd"] == pytest.approx(math.sqrt(1 / 6))


def test_per_model_table_with_criterion_failure_rates():
    rows = [
        row("correct", "A", "x", E1=True, E2=True),
        row("wrong", "B", "x", E1=False, E2=True),
        row("unknown", "A", "y", E1=None, E2=True),
        row("correct", "B", "y", E1=True, E2=True),
    ]
    table = by_model(rows)
    assert list(table) == ["x", "y"]
    assert (table["x"]["accuracy"], table["x"]["failure_rate"]["E1"], table["x"]["failure_rate"]["E2"]) == (
        0.5,
        0.5,
        0.0,
    )
    assert table["y"]["failure_rate"]["E1"] == 0.0  # the unresolved E1 is left out of the rate
    assert table["y"]["accuracy"] == 0.5 and table["y"]["accuracy_decided"] == 1.0  # unknown is not decided
    assert table["y"]["accuracy_phrasing_mean"] == pytest.approx(0.5) and table["y"][
        "accuracy_phrasing_sd"
    ] == pytest.approx(0.5)
    assert table["x"]["failure_rate"]["E4"] is None  # no row has E4
    assert summarize(rows)["by_graph_type"]["chain"]["model_accuracy"] == {"x": 0.5, "y": 0.5}


def test_fleiss_kappa_by_hand():
    # three raters, four items, labels y/n
    ratings = [["y", "y", "y"], ["y", "y", "n"], ["n", "n", "n"], ["y", "n", "n"]]
    # per item agreement (Σ n² − 3)/6: 1, 1/3, 1, 1/3 → P̄ = 2/3; pooled p(y) = p(n) = 6/12 → P_e = 1/2
    assert fleiss_kappa(ratings) == pytest.approx((2 / 3 - 1 / 2) / (1 - 1 / 2))
    assert fleiss_kappa([["y", "y"], ["y", "y"]]) is None  # chance agreement already perfect
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([["y", "n"], ["y"]])


def test_cohen_kappa_by_hand():
    first, second = list("yyyynnnn"), list("yyynnnny")
    # p_o = 6/8; both raters say y half the time: p_e = 1/2 → κ = 1/2
    assert cohen_kappa(first, second) == pytest.approx(0.5)
    assert cohen_kappa_counts(tp=3, fp=1, fn=1, tn=3) == pytest.approx(0.5)
    assert cohen_kappa(list("abcabc"), list("abcacb")) == pytest.approx((4 / 6 - 1 / 3) / (1 - 1 / 3))


def test_the_papers_judge_agreement_is_reproduced_from_its_confusion():
    # App. C.3: N = 100, 21 false negatives and 2 false positives; precision 95.8% gives 46 true positives
    from causal_datasets.agreement import agreement

    judge = ["correct"] * 46 + ["correct"] * 2 + ["wrong"] * 21 + ["wrong"] * 31
    humans = ["correct"] * 46 + ["wrong"] * 2 + ["correct"] * 21 + ["wrong"] * 31
    result = agreement(judge, humans)
    assert (round(result["accuracy"], 2), round(result["precision"], 3), round(result["recall"], 3)) == (
        0.77,
        0.958,
        0.687,
    )
    assert round(result["f1"], 1) == 0.8 and round(result["cohen_kappa"], 2) == 0.55  # the paper's κ = 0.55


def test_several_raters_fleiss_kappa_majority_and_pairwise_by_hand():
    from causal_datasets.cobe.scoring import rater_agreement

    c, w = "correct", "wrong"
    raters = [[c, c, w, c, w], [c, w, w, c, "unknown"], [c, c, w, w, w]]
    judge = [c, w, w, w, c]
    result = rater_agreement(judge, raters)
    # item 5 has an "unknown" rating: left out. Items 1-4 ratings: ccc, cwc, www, ccw
    assert result["items"] == 4 and result["unanimous_share"] == 0.5
    assert result["fleiss_kappa"] == pytest.approx(fleiss_kappa([[c, c, c], [c, w, c], [w, w, w], [c, c, w]]))
    # rater 1 vs 2 on items 1-4: c/c, c/w, w/w, c/c → p_o 3/4; rates c 3/4 and 2/4 → p_e 3/8 + 1/8 = 1/2
    assert result["raters_pairwise_kappa"]["1-2"] == pytest.approx(0.5)
    # strict majority c, c, w, c against the judge c, w, w, w
    assert result["predicted_vs_majority"]["tp"] == 1 and result["predicted_vs_majority"]["fn"] == 2
    assert set(result["predicted_vs_rater_kappa"]) == {"1", "2", "3"}
    with pytest.raises(ValueError, match="at least two raters"):
        rater_agreement(judge, raters[:1])


def test_text_statistics_by_hand():
    stats = text_statistics(["The dog barked, and the cat ran. It rained.", "Snow fell."])
    # words 9 and 2; sentences 2 and 1; clauses: dog barked | the cat ran | it rained, and snow fell
    assert stats == {
        "scenarios": 2,
        "words_per_scenario": 5.5,
        "sentences_per_scenario": 1.5,
        "clauses_per_scenario": 2.0,
        "clauses_per_sentence": pytest.approx(4 / 3),
    }
    assert text_statistics([])["words_per_scenario"] is None


# --- the published verdicts, offline --------------------------------------------------------------


def published_by_hand():
    """Per model: phrasing → (correct, total) over the distinct scenarios of the website file."""
    document = json.loads(SOURCE.read_text(encoding="utf-8"))
    entries = {
        e["example_id"]: e
        for section in ("by_domain", "by_graph")
        for group in document[section].values()
        for e in group
    }
    counts: dict[str, Counter] = {}
    for entry in entries.values():
        phrasing = PHRASING_OF_INDEX[entry["query_idx"]]
        for model, output in entry["model_outputs"].items():
            counts.setdefault(model, Counter())[(phrasing, "n")] += 1
            counts[model][(phrasing, "correct")] += output["verdict"] == "correct"
    return counts


def test_published_verdicts_give_per_model_accuracy_and_table_5_without_any_model(hub, tmp_path):
    out = tmp_path / "run"
    summary = run_eval(
        "cobe", "--config", "responses", "--out", str(out), "--hub-dir", str(hub), "--source", str(SOURCE)
    )
    assert summary.solver == "published" and summary.models == {} and summary.usage_total.calls == 0
    assert summary.status == "complete" and summary.metrics.count == 127 * 9
    expected = published_by_hand()
    table = summary.slices["by_model"]
    assert set(table) == set(expected)
    for model, counts in expected.items():
        n = sum(counts[(p, "n")] for p in "ABC")
        correct = sum(counts[(p, "correct")] for p in "ABC")
        per_phrasing = [counts[(p, "correct")] / counts[(p, "n")] for p in "ABC"]
        entry = table[model]
        assert (entry["n"], entry["correct"]) == (n, correct) and entry["accuracy"] == pytest.approx(correct / n)
        assert entry["accuracy_phrasing_mean"] == pytest.approx(np.mean(per_phrasing))
        assert entry["accuracy_phrasing_sd"] == pytest.approx(np.std(per_phrasing))
        assert set(entry["failure_rate"].values()) == {None}  # the source has no per-criterion verdicts
    graph = summary.slices["by_graph_type"]
    assert set(graph["(not given)"]["model_accuracy"]) == set(expected)
    assert summary.metrics.text_statistics["scenarios"] == 127 and summary.metrics.agreement is None
    results = item_fields(out)
    assert all(r["verdict"] == r["published_verdict"] and r["criteria"] == [] for r in results)


def test_failure_modes_need_a_judge(hub, tmp_path):
    with pytest.raises(RunConfigurationError, match="--failure-modes needs a judge"):
        run_eval(
            "cobe",
            "--config",
            "responses",
            "--failure-modes",
            "--out",
            str(tmp_path / "run"),
            "--hub-dir",
            str(hub),
            "--source",
            str(SOURCE),
        )
    assert not (tmp_path / "run").exists()


def test_report_of_the_published_verdicts_draws_figures_6_to_8(hub, tmp_path):
    from causal_datasets.cli import main

    run_eval(
        "cobe", "--config", "responses", "--out", str(tmp_path / "run"), "--hub-dir", str(hub), "--source", str(SOURCE)
    )
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    images = sorted(p.name for p in (tmp_path / "report").glob("cobe-*.png"))
    assert images == [
        "cobe-accuracy-by-domain-fig-8.png",
        "cobe-accuracy-by-graph-type-fig-6.png",
        "cobe-accuracy-by-query-phrasing-fig-7.png",
    ]
    assert "No plot: no run has values for `failure_rate`" in report  # one verdict per response: no E1–E5
    assert "### By model" in report and "accuracy_phrasing_sd" in report
