"""The report on typed run folders written here by hand: every number of the summaries reaches report.md,
incomplete runs are marked, plots are honest PNGs, and unreadable folders are one clear error."""

from __future__ import annotations

import json

import matplotlib.image
import pytest

from causal_datasets.causalab.summary import CausaLabMetrics
from causal_datasets.cladder_pairs.metrics import CladderMetrics
from causal_datasets.cli import main
from causal_datasets.cobe.summary import CoBeMetrics
from causal_datasets.errors import RunFolderError
from causal_datasets.recast.summary import RecastMetrics
from causal_datasets.report.plots import figure
from causal_datasets.report.render import write_report
from causal_datasets.report.runs import load_run
from causal_datasets.report.tables import flatten
from causal_datasets.runners.records import SUMMARY_FORMAT, DatasetRef, ItemCounts, Usage
from causal_datasets.runners.registry import get_task
from causal_datasets.shapeworld.summary import ShapeWorldMetrics
from causal_datasets.views import SlicePlot

MISSING = "–"


# --- run folders ----------------------------------------------------------------------------------


def _summary(
    metrics, slices, *, solver, configs, status="complete", items=(10, 10, 0, 0), failures=None, models=None, usage=None
):
    selected, scored, failed, missing = items
    usage = usage or {}
    total = sum(usage.values(), Usage())
    return get_task(metrics.benchmark).summary_model(
        benchmark=metrics.benchmark,
        status=status,
        package_version="0.2.0",
        dataset=DatasetRef(
            name=metrics.benchmark,
            version="v1.0",
            seed=0,
            read_from=f"/hub/{metrics.benchmark}",
            configs=configs,
            split="test",
        ),
        solver=solver,
        models=models or {},
        options={},
        items=ItemCounts(selected=selected, scored=scored, failed=failed, missing=missing),
        failures=failures or {},
        invocations=1,
        usage=usage,
        usage_total=total,
        metrics=metrics,
        slices=slices,
    )


def _write(root, name, summary, results=()):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(summary.model_dump_json(indent=2))
    (folder / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in results))
    return folder


def _shapeworld_group(episodes, accuracy, mean_steps, patterns):
    errors = {"invalid_action": 2, "invalid_format": 1, "too_many_attempts": 0, "invalid_answer": 0, "llm_error": 0}
    return {
        "episodes": episodes,
        "accuracy": accuracy,
        "accuracy_true": min(1.0, accuracy + 0.1),
        "accuracy_false": max(0.0, accuracy - 0.1),
        "true_cases": episodes // 2,
        "false_cases": episodes - episodes // 2,
        "answered": episodes - 1,
        "predicted_yes": episodes // 3,
        "mean_steps": mean_steps,
        "error_total": 3,
        "errors": errors,
        "failure_patterns": patterns,
    }


SW_SLICES = {
    "by_structure": {
        "chain": _shapeworld_group(6, 0.6667, 3.2, {"illusive_confounder": 1, "root_cause": 1, "correlation": 0}),
        "fork": _shapeworld_group(6, 0.5, 4.0, {"illusive_confounder": 0, "root_cause": 2, "correlation": 1}),
    },
    "by_num_variables": {
        "3": _shapeworld_group(4, 0.75, 2.5, {"illusive_confounder": 1, "root_cause": 0, "correlation": 0}),
        "4": _shapeworld_group(8, 0.5, 4.125, {"illusive_confounder": 0, "root_cause": 3, "correlation": 1}),
    },
}


def _shapeworld(solver):
    group = _shapeworld_group(
        12,
        0.5833,
        3.6,
        {"illusive_confounder": 1, "root_cause": 3, "correlation": 1, "reverse_collider": 0, "uncategorized": 0},
    )
    return _summary(
        ShapeWorldMetrics(count=group.pop("episodes"), **group),
        SW_SLICES,
        solver=solver,
        configs=["advanced"],
        items=(12, 12, 0, 0),
    )


def _causalab_entry(count, accuracy, coefficient_f1, root_f1):
    return {
        "count": count,
        "task_accuracy": accuracy,
        "edge_precision": 0.8,
        "edge_recall": 0.7,
        "edge_f1": 0.7467,
        "shd": 1.5,
        "freq_edge_f1": 0.9,
        "coefficient_f1": coefficient_f1,
        "root_f1": root_f1,
        "formula_hit": 0.25,
    }


def _causalab(*, sizes, status="complete", items=(4, 4, 0, 0), failures=None):
    by_num_nodes = {str(n): _causalab_entry(2, 0.5 + 0.25 * i, 0.6, 0.8) for i, n in enumerate(sizes)}
    by_suite = {"plain": _causalab_entry(2, 0.5, 0.55, 0.75), "noisy": _causalab_entry(2, 1.0, 0.6125, 1.0)}
    metrics = CausaLabMetrics(
        count=items[1],
        task_accuracy=0.75,
        edge_precision=0.8,
        edge_recall=0.7,
        edge_f1=0.7467,
        shd=1.5,
        freq_edge_f1=0.9,
        coefficient_f1=0.58,
        root_f1=0.875,
        formula_hit=0.25,
        budget_used=0.4,
        invalid_steps=0.5,
        outcomes={"solved": 3, "gave_up": 1},
    )
    return _summary(
        metrics,
        {"by_num_nodes": by_num_nodes, "by_suite": by_suite},
        solver="model:small-llm",
        configs=[f"{n}nodes" for n in sizes],
        status=status,
        items=items,
        failures=failures,
        models={"model": "small-llm"},
        usage={"model": Usage(calls=6, prompt_tokens=1000, completion_tokens=234, cost_usd=0.0125)},
    )


def _cobe():
    criteria = {
        code: {
            "rows": 4,
            "judged": 4 - i % 2,
            "failed": i % 3,
            "unresolved": i % 2,
            "failure_rate": (i % 3) / (4 - i % 2),
        }
        for i, code in enumerate(("E1", "E2", "E4", "E5"))
    }
    criteria["E3"] = {"rows": 0, "judged": 0, "failed": 0, "unresolved": 0, "failure_rate": None}
    metrics = CoBeMetrics(
        count=4,
        accuracy=0.25,
        correct=1,
        wrong=2,
        unknown=1,
        failure_rate={code: entry["failure_rate"] for code, entry in criteria.items()},
        criteria=criteria,
        errors={"items": {"judge_error": 1}, "criteria": {"unresolved": 2}},
    )
    slices = {
        "by_domain": {
            "Engineering": {"n": 2, "correct": 1, "wrong": 1, "unknown": 0, "accuracy": 0.5},
            "Medicine": {"n": 2, "correct": 0, "wrong": 1, "unknown": 1, "accuracy": 0.0},
        },
        "by_graph_type": {"chain": {"n": 4, "correct": 1, "wrong": 2, "unknown": 1, "accuracy": 0.25}},
        "by_phrasing": {"(not given)": {"n": 4, "correct": 1, "wrong": 2, "unknown": 1, "accuracy": 0.25}},
    }
    return _summary(
        metrics,
        slices,
        solver="model:writer",
        configs=["queries"],
        items=(4, 4, 0, 0),
        models={"model": "writer", "judge": "strict-judge"},
    )


def _recast():
    scores = {
        "node_precision": 0.5,
        "node_recall": 0.4,
        "node_f1": 0.4444,
        "edge_precision": 0.3,
        "edge_recall": 0.2,
        "edge_f1": 0.24,
        "shd": 7.0,
        "normalized_shd": 0.35,
    }
    judge = {
        "precision": 0.61,
        "precision_sd": 0.1,
        "precision_n": 3,
        "recall": 0.52,
        "recall_sd": 0.05,
        "recall_n": 3,
        "f1": 0.5614,
        "f1_sd": 0.07,
        "f1_n": 3,
    }
    metrics = RecastMetrics(
        count=4,
        scored_share=0.75,
        corrected=1,
        judge_errors=0,
        generation={"ok": 3, "format_error": 1, "llm_error": 0},
        deterministic={"exact": {**scores, "n": 3}, "normalized": {**scores, "edge_f1": 0.31, "n": 3}},
        judge=judge,
    )
    by_confounding = {
        "0.00-0.25": {"n": 1, "edge_f1_normalized": 0.4, "judge_f1": 0.7},
        "0.25-0.50": {"n": 2, "edge_f1_normalized": 0.275, "judge_f1": 0.4921},
        "0.50-0.75": {"n": 0, "edge_f1_normalized": None, "judge_f1": None},
        "0.75-1.00": {"n": 0, "edge_f1_normalized": None, "judge_f1": None},
    }
    return _summary(
        metrics,
        {"by_confounding": by_confounding},
        solver="model:economist",
        configs=["test"],
        items=(4, 4, 0, 0),
        models={"model": "economist", "judge": "economist"},
    )


def _cladder_scores(equivalent, length):
    return {
        "reference": "P(Y=1)",
        "rung": 2,
        "query_type": "ate",
        "graph_id": "chain",
        "scoring": "equivalence",
        "raw": "Estimand: P(Y=1)",
        "expression": "P(Y=1)",
        "equivalent": equivalent,
        "identified": equivalent,
        "identification_error": None,
        "method": "proof" if length is not None else None,
        "proof_length": length,
        "string_match": False,
        "bleu": 0.5,
        "token_f1": 0.5,
        "error": None,
        "detail": None,
    }


def _cladder_line(item_id, status="scored", scores=None):
    failure = {"role": "model", "category": "timeout", "detail": "no answer"} if status == "failed" else None
    return {
        "id": item_id,
        "config": "questions",
        "status": status,
        "failure": failure,
        "calls": [],
        "generation": {},
        "scores": scores,
    }


CLADDER_RESULTS = [
    _cladder_line(f"q{i}", scores=_cladder_scores(equivalent, length))
    for i, (equivalent, length) in enumerate([(True, 1), (True, 3), (True, 3), (False, None), (True, 0)])
] + [_cladder_line("q5", "failed")]


def _cladder():
    metrics = CladderMetrics(
        count=5,
        scoring="equivalence",
        accuracy=0.8,
        equivalence_accuracy=0.8,
        identification_accuracy=0.4,
        string_match=0.2,
        errors={"unparsable": 1},
        identification_errors={"not_identified": 2},
        methods={"proof": 4, "numeric": 1},
        proof_lengths={"0": 1, "1": 1, "3": 2},
    )
    rates = {"n": 5, "accuracy": 0.8, "string_match": 0.2}
    slices = {
        "by_rung": {"2": rates, "10": {**rates, "n": 1}},
        "by_query_type": {"ate": rates},
        "by_graph_family": {"chain": rates},
    }
    return _summary(
        metrics,
        slices,
        solver="model:estimator",
        configs=["questions"],
        items=(6, 5, 1, 0),
        status="incomplete",
        failures={"model": {"timeout": 1}},
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    runs = {
        "sw-oracle": (_shapeworld("agent:oracle"), ()),
        "sw-strategy": (_shapeworld("agent:strategy"), ()),  # the same accuracy series as sw-oracle
        "cl-wide": (_causalab(sizes=(3, 5)), ()),
        "cl-one": (
            _causalab(sizes=(4,), status="incomplete", items=(10, 7, 2, 1), failures={"model": {"timeout": 2}}),
            (),
        ),
        "cobe-gen": (_cobe(), ()),
        "recast-llm": (_recast(), ()),
        "cladder-llm": (_cladder(), CLADDER_RESULTS),
    }
    folders = {name: _write(root, name, summary, results) for name, (summary, results) in runs.items()}
    out = root / "report"
    assert main(["report", *(str(folders[name]) for name in runs), "--out", str(out)]) == 0
    return {name: summary for name, (summary, _) in runs.items()}, folders, out, (out / "report.md").read_text()


# --- reading report.md ----------------------------------------------------------------------------


def _tables(report):
    """Every Markdown table keyed by (## heading, ### heading or None): (headers, rows of cells)."""
    tables, section, subsection, lines = {}, None, None, report.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("## "):
            section, subsection = line[3:], None
        elif line.startswith("### "):
            subsection = line[4:]
        elif line.startswith("|"):
            block = []
            while index < len(lines) and lines[index].startswith("|"):
                block.append([cell.strip() for cell in lines[index].strip().strip("|").split("|")])
                index += 1
            tables[(section, subsection)] = (block[0], block[2:])
            continue
        index += 1
    return tables


def _column(table, column, **where):
    """The cells of ``column`` in the rows whose named cells equal ``where``."""
    headers, rows = table
    found = [row[headers.index(column)] for row in rows if all(row[headers.index(k)] == v for k, v in where.items())]
    assert len(found) == 1, (column, where, found)
    return found[0]


def _equal(cell, value):
    if value is None:
        return cell == MISSING
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return cell != MISSING and float(cell) == pytest.approx(value, abs=5e-5)
    return cell == str(value)


def _label(name, summary):
    return f"{summary.solver} ({name})"


# --- tables ---------------------------------------------------------------------------------------


def test_every_scalar_mapping_and_slice_number_is_in_the_report(built):
    summaries, _, _, report = built
    tables = _tables(report)
    checked = 0
    for name, summary in summaries.items():
        title, label = get_task(summary.benchmark).view.title, _label(name, summary)
        metrics = summary.metrics
        for field_name, info in type(metrics).model_fields.items():
            value = getattr(metrics, field_name)
            if field_name == "benchmark" or (value is None and "dict" in str(info.annotation)):
                continue  # a mapping no run has: a sentence, see test_breakdowns_the_old_report_dropped_are_shown
            if not isinstance(value, dict):
                assert _equal(_column(tables[(title, None)], info.title, run=label), value), (name, field_name)
                checked += 1
                continue
            table = tables[(title, info.title[:1].upper() + info.title[1:])]
            if all(isinstance(entry, dict) for entry in value.values()):  # one row per key and run
                for key, entry in value.items():
                    for column, number in flatten(entry).items():
                        assert _equal(_column(table, column, **{field_name: key, "run": label}), number)
                        checked += 1
            else:  # one row per key, runs as columns
                for key, number in value.items():
                    assert _equal(_column(table, label, **{field_name: key}), number), (name, field_name, key)
                    checked += 1
        for slice_name, entries in summary.slices.items():
            table = tables[(title, "By " + slice_name.removeprefix("by_").replace("_", " "))]
            key_column = slice_name.removeprefix("by_")
            columns = {c for entry in entries.values() for c in flatten(entry)}
            assert columns <= set(table[0])
            for key, entry in entries.items():
                for column, number in flatten(entry).items():
                    assert _equal(_column(table, column, **{key_column: key, "run": label}), number), (
                        name,
                        key,
                        column,
                    )
                    checked += 1
    assert checked > 300  # not a vacuous loop


def test_headline_columns_are_the_titles_in_field_order(built):
    _, _, _, report = built
    headers, _ = _tables(report)[("ShapeWorld (CausalLink)", None)]
    scalar = [
        info.title
        for name, info in ShapeWorldMetrics.model_fields.items()
        if name != "benchmark" and "dict" not in str(info.annotation)
    ]
    assert headers == ["run", *scalar]
    assert headers[:3] == ["run", "episodes", "accuracy"]


def test_breakdowns_the_old_report_dropped_are_shown(built):
    _, _, _, report = built
    tables = _tables(report)
    patterns = tables[("ShapeWorld (CausalLink)", "Failure patterns")]
    assert patterns[0] == ["failure_patterns", "agent:oracle (sw-oracle)", "agent:strategy (sw-strategy)"]
    assert _column(patterns, "agent:oracle (sw-oracle)", failure_patterns="root_cause") == "3"
    assert (
        _column(
            tables[("ShapeWorld (CausalLink)", "Errors by mode")], "agent:oracle (sw-oracle)", errors="invalid_action"
        )
        == "2"
    )
    by_structure = tables[("ShapeWorld (CausalLink)", "By structure")][0]
    assert {"errors.invalid_format", "failure_patterns.root_cause"} <= set(by_structure)
    suite = tables[("CausaLab", "By suite")]
    assert _column(suite, "coefficient_f1", suite="noisy", run="model:small-llm (cl-wide)") == "0.6125"
    assert _column(suite, "root_f1", suite="plain", run="model:small-llm (cl-one)") == "0.75"
    confounding = tables[("ReCAST", "By confounding")]
    assert _column(confounding, "judge_f1", confounding="0.25-0.50", run="model:economist (recast-llm)") == "0.4921"
    assert _column(confounding, "judge_f1", confounding="0.75-1.00", run="model:economist (recast-llm)") == MISSING
    assert (
        _column(tables[("CoBe", "Failure rate per criterion")], "model:writer (cobe-gen)", failure_rate="E3") == MISSING
    )
    assert (
        _column(tables[("CoBe", "Criterion counts")], "unresolved", criteria="E2", run="model:writer (cobe-gen)") == "1"
    )
    assert (
        _column(
            tables[("CoBe", "Errors (items, criteria)")], "judge_error", errors="items", run="model:writer (cobe-gen)"
        )
        == "1"
    )
    assert "No run has agreement with the published verdicts." in report  # CoBe on generated text has none


def test_the_runs_table_and_incomplete_runs(built):
    summaries, folders, _, report = built
    runs = _tables(report)[("Runs", None)]
    assert runs[0][:7] == ["run", "benchmark", "configs", "dataset version", "read from", "package", "status"]
    assert len(runs[1]) == len(summaries)
    one, wide = "model:small-llm (cl-one)", "model:small-llm (cl-wide)"
    assert _column(runs, "status", run=one) == "**incomplete**"
    assert _column(runs, "status", run=wide) == "complete"
    assert [_column(runs, c, run=one) for c in ("scored", "failed", "missing", "selected")] == ["7", "2", "1", "10"]
    assert _column(runs, "configs", run=wide) == "3nodes, 5nodes"
    assert _column(runs, "tokens (cost)", run=wide) == "1234 ($0.0125)"
    assert _column(runs, "models", run="model:writer (cobe-gen)") == "model: writer, judge: strict-judge"
    assert _column(runs, "folder", run=wide) == str(folders["cl-wide"])
    causalab = report.split("## CausaLab")[1].split("\n## ")[0]
    assert f"**{one} is incomplete**: 7 of 10 selected items scored, 2 failed (model timeout: 2), 1 missing" in causalab
    assert f"{wide} is" not in causalab


# --- plots ----------------------------------------------------------------------------------------


def _png(path):
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = matplotlib.image.imread(path)
    assert image.shape[0] > 100 and image.shape[1] > 100
    assert image[..., :3].std() > 0.01  # not a blank canvas


def test_every_declared_plot_is_a_real_png_linked_from_the_report(built):
    _, _, out, report = built
    images = sorted(p.name for p in out.glob("*.png"))
    assert images == [
        "causalab-accuracy-vs-edge-f1-by-regime-fig-3.png",
        "causalab-task-accuracy-by-number-of-nodes.png",
        "cobe-failure-rate-per-criterion-fig-5.png",
        "proof-length-of-answers-proven-equivalent.png",
        "recast-edge-f1-normalized-names-by-degree-of-confounding-lenient-fig-2.png",
        "recast-judge-f1-by-degree-of-confounding-lenient-fig-2.png",
        "shapeworld-accuracy-by-number-of-variables.png",
        "shapeworld-accuracy-by-structure-95-interval-over-setups-fig-2.png",
    ]
    for name in images:
        assert f"]({name})" in report
        _png(out / name)


def test_pngs_are_deterministic(built, tmp_path):
    _, folders, out, _ = built
    write_report([folders["sw-oracle"], folders["sw-strategy"]], tmp_path)
    name = "shapeworld-accuracy-by-number-of-variables.png"
    assert (tmp_path / name).read_bytes() == (out / name).read_bytes()


def _plot(benchmark):
    return get_task(benchmark).view.plots[0]


def test_shares_have_a_fixed_unit_axis(built):
    _, folders, _, _ = built
    for benchmark, names in (
        ("shapeworld", ["sw-oracle"]),
        ("cobe", ["cobe-gen"]),
        ("recast", ["recast-llm"]),
        ("causalab", ["cl-wide", "cl-one"]),
    ):
        axes = figure(_plot(benchmark), [load_run(folders[n]) for n in names]).axes[0]
        assert axes.get_ylim() == (0, 1), benchmark


def test_counts_have_integer_ticks(built):
    _, folders, _, _ = built
    episodes = SlicePlot("by_num_variables", "episodes", "episodes by size", "variables", "episodes")
    axes = figure(episodes, [load_run(folders["sw-oracle"])]).axes[0]
    assert axes.get_ylim()[0] == 0
    assert all(float(tick).is_integer() for tick in axes.get_yticks())
    lengths = figure(_plot("cladder_pairs"), [load_run(folders["cladder-llm"])]).axes[0]
    assert all(float(tick).is_integer() for tick in lengths.get_yticks())
    assert all(float(tick).is_integer() for tick in lengths.get_xticks())


def test_one_node_size_gives_integer_x_ticks_only(built):
    _, folders, _, _ = built
    fig = figure(_plot("causalab"), [load_run(folders["cl-one"])])
    fig.canvas.draw()
    axes = fig.axes[0]
    assert list(axes.get_xticks()) == [4]
    assert [label.get_text() for label in axes.get_xticklabels()] == ["4"]
    low, high = axes.get_xlim()
    assert low < 4 < high


def test_identical_series_stay_visible_and_legends_name_run_and_config(built):
    _, folders, _, _ = built
    runs = [load_run(folders["sw-oracle"]), load_run(folders["sw-strategy"])]
    axes = figure(_plot("shapeworld"), runs).axes[0]
    first, second = axes.get_lines()
    assert list(first.get_ydata()) == list(second.get_ydata())
    assert (first.get_marker(), first.get_linestyle()) != (second.get_marker(), second.get_linestyle())
    assert first.get_marker() != second.get_marker() and first.get_linestyle() != second.get_linestyle()
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert legend == ["agent:oracle (sw-oracle) · advanced", "agent:strategy (sw-strategy) · advanced"]


def test_histogram_counts_only_scored_items_proven_equivalent(built):
    _, folders, _, _ = built
    axes = figure(_plot("cladder_pairs"), [load_run(folders["cladder-llm"])]).axes[0]
    heights = {round(patch.get_x() + patch.get_width() / 2): patch.get_height() for patch in axes.patches}
    assert {k: v for k, v in heights.items() if v} == {0: 1, 1: 1, 3: 2}  # the unproven answer is left out


def test_a_plot_without_data_is_a_sentence_not_a_png(tmp_path):
    run = _write(tmp_path, "cladder-empty", _cladder())  # no results: nothing to histogram
    out = tmp_path / "out"
    out.mkdir()
    stale = out / "proof-length-of-answers-proven-equivalent.png"
    stale.write_bytes(b"left by an earlier report")
    report = write_report([run], out).read_text()
    assert not list(out.glob("*.png"))
    assert (
        "No plot: no run has scored items with a numeric `proof_length` and a true `equivalent` "
        "(Proof length of answers proven equivalent)."
    ) in report
    assert "](proof-length" not in report


# --- unreadable folders ---------------------------------------------------------------------------


def test_old_layout_names_the_version_that_wrote_it(tmp_path, capsys):
    (tmp_path / "summary.json").write_text(
        json.dumps(
            {
                "run": {"dataset": "shapeworld", "package_version": "0.1.3", "policy": "agent:oracle"},
                "metrics": {"episodes": 3, "accuracy": 1.0},
            }
        )
    )
    with pytest.raises(RunFolderError, match=r"old untyped layout written by causal-datasets 0\.1\.3; run it again"):
        load_run(tmp_path)
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert "0.1.3" in error and len(error.strip().splitlines()) == 1


def test_newer_format_and_invalid_summaries_are_clear_errors(built, tmp_path):
    data = json.loads(_shapeworld("agent:oracle").model_dump_json())
    (tmp_path / "summary.json").write_text(json.dumps(dict(data, format=SUMMARY_FORMAT + 1)))
    newer = f"summary format {SUMMARY_FORMAT + 1}, written by a newer causal-datasets"
    with pytest.raises(RunFolderError, match=newer):
        load_run(tmp_path)
    del data["metrics"]["accuracy"]
    (tmp_path / "summary.json").write_text(json.dumps(data))
    with pytest.raises(RunFolderError, match=r"summary.json is not a valid run summary: field 'metrics\.accuracy'"):
        load_run(tmp_path)
    (tmp_path / "summary.json").write_text("{not json")
    with pytest.raises(RunFolderError, match="is not valid JSON"):
        load_run(tmp_path)
    with pytest.raises(RunFolderError, match="has no summary.json"):
        load_run(tmp_path / "nowhere")


def test_results_are_read_lazily_latest_line_per_item_and_validated(tmp_path):
    lines = [_cladder_line("q0", "failed"), _cladder_line("q0", scores=_cladder_scores(True, 2))]
    run = load_run(_write(tmp_path, "cladder", _cladder(), lines))
    (item,) = run.results
    assert item.status == "scored" and item.scores.proof_length == 2 and item.value("proof_length") == 2
    (tmp_path / "cladder" / "results.jsonl").write_text(json.dumps({"id": "q1", "status": "scored"}) + "\n")
    broken = load_run(tmp_path / "cladder")  # the summary alone is fine
    with pytest.raises(RunFolderError, match=r"results.jsonl item #1 \(id='q1'\): field 'config'"):
        _ = broken.results


def test_a_benchmark_no_package_registers_is_one_clear_error(tmp_path, capsys):
    data = json.loads(_shapeworld("agent:oracle").model_dump_json())
    data["benchmark"] = data["metrics"]["benchmark"] = "sixth"
    (tmp_path / "summary.json").write_text(json.dumps(data))
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {tmp_path / 'summary.json'}: unknown benchmark 'sixth': no installed package")
    assert len(error.strip().splitlines()) == 1


FORMAT_2_SUMMARY = {
    "format": 2,
    "benchmark": "cladder_pairs",
    "status": "incomplete",
    "package_version": "0.2.0",
    "dataset": {
        "name": "cladder_pairs",
        "version": "1.1.0",
        "seed": 0,
        "read_from": "hub/cladder_pairs",
        "configs": ["questions"],
        "split": "test",
    },
    "solver": "model:old-llm",
    "models": {"model": "old-llm", "judge": "old-judge"},
    "options": {"prompt": "estimand"},
    "items": {"selected": 3, "scored": 2, "failed": 1, "missing": 0},
    "failures": {"judge_timeout": 1},
    "invocations": 1,
    "usage": {},
    "usage_total": {"calls": 3},
    "metrics": {
        "benchmark": "cladder_pairs",
        "n": 2,
        "scoring": "identification",
        "accuracy": 0.5,
        "string_match": 0.0,
        "errors": {},
        "methods": {"proof": 2},
        "proof_lengths": {"1": 1, "4": 1},
    },
    "slices": {},
}
FORMAT_2_RESULTS = [
    {
        "id": "q0",
        "config": "questions",
        "status": "scored",
        "failure": None,
        "equivalent": True,
        "proof_length": 1,
        "messages": [{"role": "user", "content": "?"}],
        "raw": "Estimand: P(Y)",
        "calls": [{"role": "model", "model": "old-llm", "reply": "Estimand: P(Y)", "prompt_tokens": 3}],
    },
    {
        "id": "q1",
        "config": "questions",
        "status": "scored",
        "failure": None,
        "equivalent": True,
        "proof_length": 4,
        "calls": [],
    },
    {
        "id": "q2",
        "config": "questions",
        "status": "failed",
        "failure": "judge_timeout: the judge took too long",
        "calls": [{"role": "judge", "model": "old-judge", "error": "timeout: the judge took too long"}],
    },
]


def test_a_run_folder_of_summary_format_2_is_still_reported(tmp_path):
    """A run written before results were typed: its count field renamed, its failures by role and category, its
    lines read untyped (the histogram reads them, the example shows its calls)."""
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps(FORMAT_2_SUMMARY))
    (folder / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in FORMAT_2_RESULTS))
    run = load_run(folder)
    assert run.format == 2 and run.summary.metrics.count == 2 and run.summary.failures == {"judge": {"timeout": 1}}
    failed = run.results[2]
    assert (failed.failure.role, failed.failure.category) == ("judge", "timeout")
    assert (failed.calls[0].category, failed.calls[0].error) == ("timeout", "the judge took too long")
    assert [item.value("proof_length") for item in run.results] == [1, 4, None]
    report = write_report([folder], tmp_path / "out").read_text()
    assert "**model:old-llm (old) is incomplete**: 2 of 3 selected items scored, 1 failed (judge timeout: 1)" in report
    assert "![Proof length of answers proven equivalent](proof-length-of-answers-proven-equivalent.png)" in report
    assert "#### model:old-llm (old): item `q0` (questions)" in report  # its recorded call
