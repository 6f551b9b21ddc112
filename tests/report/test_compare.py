"""``causal-datasets compare``: paired differences of two ShapeWorld core runs (84 items, 16 initial setups),
items in one run only, Holm within slices, older runs, and bad input as one line with exit 2."""

from __future__ import annotations

import json

import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main
from causal_datasets.errors import ComparisonError
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from causal_datasets.report.compare import compare_runs
from causal_datasets.runners.results import read_results
from tests.support.runs import run_eval

#: pairs of random-agent runs (seeds 2k and 2k + 1) whose accuracy difference is tested
SEED_PAIRS = 20


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    build_to_folder(get_builder("shapeworld"), root / "hub", BuildContext(seed=0))

    def run(name: str, *argv: str):
        run_eval("shapeworld", "--out", str(root / name), "--hub-dir", str(root / "hub"), *argv)
        return root / name

    folders = {"oracle": run("oracle", "--agent", "oracle")}
    for seed in range(2 * SEED_PAIRS):
        folders[seed] = run(f"random-{seed}", "--agent", "random", "--agent-seed", str(seed))
    folders["random-60"] = run("random-60", "--agent", "random", "--limit", "60")
    folders["advanced"] = run("advanced", "--agent", "oracle", "--config", "advanced", "--limit", "6")
    return root, folders


def _headline(comparison, metric="accuracy"):
    return next(row.result for row in comparison.rows if row.slice is None and row.metric == metric)


def test_the_oracle_beats_the_random_agent_on_84_paired_items(runs):
    _, folders = runs
    comparison = compare_runs(folders["oracle"], folders[0])
    accuracy = _headline(comparison)
    assert accuracy.n_paired == 84 == comparison.paired and accuracy.clusters == 16 == comparison.clusters
    assert comparison.unit == "initial setup" and comparison.units_recorded
    random_accuracy = sum(r["scores"]["correct"] for r in read_results(folders[0])) / 84
    assert accuracy.a == 1.0 and accuracy.b == pytest.approx(random_accuracy)
    assert accuracy.difference == pytest.approx(1 - random_accuracy)
    assert 0 < accuracy.ci_low < accuracy.difference < accuracy.ci_high
    assert accuracy.p_value < 0.001 and accuracy.method.startswith("paired cluster permutation test")
    headline = {row.metric for row in comparison.rows if row.slice is None}
    assert headline == {"accuracy", "accuracy_true", "accuracy_false", "mean_steps"}
    assert _headline(comparison, "mean_steps").method.startswith("paired cluster bootstrap")


def test_two_random_agents_with_different_seeds_rarely_differ(runs):
    """Seeded runs, so the count is fixed: at most 3 of 20 pairs (15%) reach p < 0.05 on accuracy."""
    _, folders = runs
    p_values = [
        _headline(compare_runs(folders[2 * k], folders[2 * k + 1], "accuracy")).p_value for k in range(SEED_PAIRS)
    ]
    assert sum(p < 0.05 for p in p_values) <= 3, sorted(p_values)
    assert max(p_values) > 0.5  # not all pushed towards significance


def test_slices_are_adjusted_by_holm_within_each_number(runs):
    _, folders = runs
    comparison = compare_runs(folders["oracle"], folders[0], "accuracy")
    by_structure = [row for row in comparison.rows if row.slice == "by_structure"]
    assert [row.entry for row in by_structure] == ["direct", "mediation", "confounder", "confounder_with_edge"]
    assert sum(row.result.n_paired for row in by_structure) == 84
    ordered = sorted(by_structure, key=lambda row: row.result.p_value)
    for rank, row in enumerate(ordered):
        assert row.p_holm >= min(1.0, (len(ordered) - rank) * row.result.p_value) - 1e-12
        assert row.p_holm >= row.result.p_value
    assert {row.slice for row in comparison.rows} == {
        None,
        "by_structure",
        "by_num_variables",
        "by_num_variables_all_moving",
    }


def test_the_command_prints_the_table_or_json_rows_and_lists_unpaired_items(runs, capsys):
    _, folders = runs
    assert main(["compare", str(folders["oracle"]), str(folders["random-60"])]) == 0
    out = capsys.readouterr().out
    assert "paired items: 60" in out and "scored in A only: 24, in B only: 0" in out
    assert "scored in A only (24, not compared):" in out and "| accuracy | – | – |" in out
    assert main(["compare", str(folders["oracle"]), str(folders["random-60"]), "--json", "--metric", "accuracy"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert {"metric", "difference", "ci_low", "ci_high", "p_value", "n_paired"} <= set(rows[0])
    assert rows[0]["metric"] == "accuracy" and rows[0]["slice"] is None and rows[0]["n_paired"] == 60
    assert {row["metric"] for row in rows} == {"accuracy"}
    ids = {name: {r["id"] for r in read_results(folders[name])} for name in ("oracle", "random-60")}
    unpaired = ids["oracle"] - ids["random-60"]
    assert "scored in A only (24, not compared)" in captured.err and all(item in captured.err for item in unpaired)


def test_runs_written_before_typed_results_are_one_clear_error(runs, tmp_path, capsys):
    """Result lines written before summary format 4 are not typed: the estimators cannot read them."""
    _, folders = runs
    old = tmp_path / "old"
    old.mkdir()
    summary = json.loads((folders[1] / "summary.json").read_text())
    (old / "summary.json").write_text(json.dumps(summary | {"format": 3}))
    (old / "results.jsonl").write_text((folders[1] / "results.jsonl").read_text())
    with pytest.raises(ComparisonError, match="has summary format 3: its results are not typed"):
        compare_runs(old, folders[0])
    assert main(["compare", str(folders[0]), str(old)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("case", ["other benchmark", "no paired items", "no summary", "unknown metric"])
def test_bad_input_is_one_line_and_exit_2(runs, case, capsys, tmp_path):
    _, folders = runs
    argv = {
        "other benchmark": [str(folders["oracle"]), str(_cobe_like(tmp_path, folders["oracle"]))],
        "no paired items": [str(folders["oracle"]), str(folders["advanced"])],
        "no summary": [str(folders["oracle"]), str(tmp_path)],
        "unknown metric": [str(folders["oracle"]), str(folders[0]), "--metric", "speed"],
    }[case]
    assert main(["compare", *argv]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: ") and len(error.splitlines()) == 1
    assert {
        "other benchmark": "compare two runs of one benchmark",
        "no paired items": "no item is scored in both",
        "no summary": "has no summary.json",
        "unknown metric": "no number 'speed'",
    }[case] in error
    if case == "unknown metric":
        with pytest.raises(ComparisonError, match="choose from accuracy, accuracy_true"):
            compare_runs(*argv[:2], metric="speed")


def _cobe_like(tmp_path, folder):
    """A copy of a run folder whose summary says it is another benchmark's (the metrics re-labelled would not
    validate, so a real CausaLab-shaped summary is not needed: the benchmark check comes first)."""
    from causal_datasets.causalab.summary import CausaLabMetrics
    from causal_datasets.runners.registry import get_task

    summary = get_task("shapeworld").summary_model.model_validate_json((folder / "summary.json").read_text())
    other = summary.model_copy(update={"benchmark": "causalab", "metrics": CausaLabMetrics(count=0), "intervals": None})
    target = tmp_path / "causalab-run"
    target.mkdir()
    (target / "summary.json").write_text(other.model_dump_json())
    (target / "results.jsonl").write_text("")
    return target
