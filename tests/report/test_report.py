"""The report command on real agent runs: tables equal the summaries, plots are real PNG images."""

import matplotlib.image
import pytest

from causal_datasets.cli import main
from causal_datasets.errors import RunFolderError
from causal_datasets.markdown import format_cell
from causal_datasets.report.render import write_report
from causal_datasets.report.runs import load_run
from causal_datasets.runners.results import read_summary


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    hub = root / "hub"
    commands = {
        "sw-oracle": ["shapeworld", "--config", "advanced", "--agent", "oracle", "--limit", "60"],
        "sw-random": ["shapeworld", "--config", "advanced", "--agent", "random", "--limit", "60"],
        "cl-experimenter": ["causalab", "--config", "3nodes", "5nodes", "--agent", "experimenter"],
    }
    for name, argv in commands.items():
        assert main(["eval", *argv, "--hub-dir", str(hub), "--out", str(root / name)]) == 0
    return root, list(commands)


def _table(report, header_start):
    """Rows of the first Markdown table whose header starts with ``header_start``: first cell → other cells."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def _number(cell):
    """The number of a cell, without the interval after it (``0.62 [0.51, 0.72]`` → 0.62)."""
    return float(cell.split(" [", 1)[0])


def _png(path):
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = matplotlib.image.imread(path)
    assert image.shape[0] > 100 and image.shape[1] > 100
    assert image[..., :3].std() > 0.01  # not a blank canvas


def test_report_tables_equal_the_summaries_and_plots_exist(runs, tmp_path, capsys):
    root, names = runs
    assert main(["report", *(str(root / n) for n in names), "--out", str(tmp_path)]) == 0
    report = (tmp_path / "report.md").read_text()
    assert "## ShapeWorld (CausalLink)" in report and "## CausaLab" in report

    headline = _table(report, "| run | episodes |")
    for name in ("sw-oracle", "sw-random"):
        summary = read_summary(root / name)
        metrics = summary["metrics"]
        cells = headline[f"{summary['solver']} ({name})"]
        assert int(cells[0]) == metrics["count"] == 60
        assert _number(cells[1]) == pytest.approx(metrics["accuracy"], abs=1e-4)
        assert _number(cells[8]) == pytest.approx(metrics["mean_steps"], abs=1e-4)
        low, high = (summary["intervals"]["metrics"]["accuracy"][end] for end in ("ci_low", "ci_high"))
        assert cells[1].endswith(f" [{format_cell(low)}, {format_cell(high)}]")  # the 95% interval beside it
    assert _number(headline["agent:oracle (sw-oracle)"][1]) == 1.0
    by_size = _rows(report, "| num_variables | run |")
    oracle_sizes = read_summary(root / "sw-oracle")["slices"]["by_num_variables"]
    assert {size for size, run in by_size if run == "agent:oracle (sw-oracle)"} == set(oracle_sizes)
    for size, entry in oracle_sizes.items():
        assert int(by_size[(size, "agent:oracle (sw-oracle)")][0]) == entry["episodes"]
    patterns = _table(report, "| failure_patterns |")
    random_patterns = read_summary(root / "sw-random")["metrics"]["failure_patterns"]
    assert {k: int(v[1]) for k, v in patterns.items()} == random_patterns  # shown since the typed summaries

    causalab = read_summary(root / "cl-experimenter")["slices"]
    assert set(causalab["by_num_nodes"]) == {"3", "5"}
    assert causalab["by_num_nodes"]["3"]["count"] == 50 and causalab["by_num_nodes"]["5"]["count"] == 50
    assert "### By num nodes" in report and "### By suite" in report
    by_suite = _rows(report, "| suite | run |")
    assert _number(by_suite[("3nodes", "agent:experimenter (cl-experimenter)")][-2]) == 1  # root-node F1, once dropped

    images = sorted(p.name for p in tmp_path.glob("*.png"))
    assert images == [  # every declared plot of the two benchmarks has data in these runs
        "causalab-accuracy-vs-edge-f1-by-regime-fig-3.png",
        "causalab-budget-used-by-success.png",
        "causalab-edge-f1-along-each-episode-app-fig-8.png",
        "causalab-edge-f1-at-each-step-mean-per-run.png",
        "causalab-final-hypothesis-fits-own-data-by-success.png",
        "causalab-scaling-all-edge-f1-app-figs-13-14.png",
        "causalab-scaling-task-accuracy-app-figs-13-14.png",
        "causalab-task-accuracy-by-number-of-nodes.png",
        "shapeworld-accuracy-by-number-of-variables.png",
        "shapeworld-accuracy-by-structure-95-interval-over-setups-fig-2.png",
        "shapeworld-all-moving-accuracy-by-variables-fig-3.png",
        "shapeworld-failure-patterns-share-of-wrong-table-2.png",
    ]
    for name in images:
        assert f"]({name})" in report
        _png(tmp_path / name)


def _rows(report, header_start):
    """Rows of a slice table keyed by (value, run)."""
    rows = {}
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[(cells[0], cells[1])] = cells[2:]
    return rows


def test_runs_of_one_benchmark_are_side_by_side(runs, tmp_path):
    root, _ = runs
    write_report([root / "sw-oracle", root / "sw-random"], tmp_path)
    report = (tmp_path / "report.md").read_text()
    rows = _rows(report, "| num_variables | run |")
    assert ("4", "agent:oracle (sw-oracle)") in rows and ("4", "agent:random (sw-random)") in rows


def test_a_folder_that_is_not_a_run_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(RunFolderError, match="no summary.json"):
        load_run(tmp_path)
    (tmp_path / "summary.json").write_text("{not json")
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "is not valid JSON" in capsys.readouterr().err
