"""Every benchmark with the real local model on a tiny limit, plus the reference agents, then one report.

Whatever SmolLM2-135M answers, each run must complete, classify every item, and the report's
numbers must equal the summaries'.
"""

import pytest

from causal_datasets.cli import main
from causal_datasets.registry import get_builder
from causal_datasets.runners.results import read_summary
from tests.report.test_report import _number, _png, _table
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """Every dataset, built once from the released files beside the checkout (the maintainer's build)."""
    root = tmp_path_factory.mktemp("hub")
    assert main(["build", "--all", "--hub-dir", str(root), "--sources", str(SHARED_DATA_DIR)]) == 0
    return root


def model_flags(local_llm, tmp_path, max_tokens=96):
    cache = str(tmp_path / "cache")
    return [
        "--model",
        local_llm.model,
        "--base-url",
        local_llm.base_url,
        "--max-tokens",
        str(max_tokens),
        "--cache-dir",
        cache,
        "--concurrency",
        "2",
        "--max-retries",
        "1",
    ]


def judge_flags(local_llm, tmp_path):
    return [
        "--judge-model",
        local_llm.model,
        "--judge-base-url",
        local_llm.base_url,
        "--judge-max-tokens",
        "8",
        "--judge-cache-dir",
        str(tmp_path / "cache"),
        "--judge-max-retries",
        "1",
    ]


def test_every_benchmark_runs_with_the_local_model_and_reports(hub, local_llm, tmp_path):
    flags = model_flags(local_llm, tmp_path)
    judged = [*flags, *judge_flags(local_llm, tmp_path)]
    runs = {
        "shapeworld-llm": ["shapeworld", "--config", "core", "--limit", "2", *flags],
        "shapeworld-oracle": ["shapeworld", "--config", "advanced", "--agent", "oracle", "--limit", "40"],
        "causalab-llm": ["causalab", "--config", "3nodes", "--limit", "1", "--max-turns", "3", *flags],
        "causalab-experimenter": ["causalab", "--config", "3nodes", "4nodes", "--agent", "experimenter"],
        "recast-llm": ["recast", "--ids", "91", "98", "--max-attempts", "1", *judged],  # the two shortest papers
        "cobe-llm": ["cobe", "--config", "queries", "--limit", "2", "--max-attempts", "1", *judged],
        "cladder-llm": ["cladder_pairs", "--limit", "2", *flags],
    }
    for name, argv in runs.items():
        # 0: every item scored; 3: the tiny model's server failed some (kept as failed items)
        assert main(["eval", *argv, "--hub-dir", str(hub), "--out", str(tmp_path / name)]) in (0, 3), name

    for name, argv in runs.items():
        summary = read_summary(tmp_path / name)  # the run records the version of the dataset it read
        assert summary["package_version"] and summary["dataset"]["version"] == get_builder(argv[0]).version
        assert summary["status"] in ("complete", "incomplete"), name
        items = item_fields(tmp_path / name)
        assert items, name
        if name.endswith("-llm"):
            assert summary["usage_total"]["calls"] > 0, name
    # every item of a model run has an outcome: a classified error or a scored answer
    for item in item_fields(tmp_path / "shapeworld-llm"):
        assert item["status"] == "failed" or (item["error"] is None) == (item["prediction"] in ("yes", "no"))
    for item in item_fields(tmp_path / "cladder-llm"):
        assert item["status"] == "failed" or item["error"] is not None or item["equivalent"] in (True, False)
    for item in item_fields(tmp_path / "recast-llm"):
        assert item["status"] == "failed" or item["error"] is not None or item["deterministic"] is not None

    out = tmp_path / "report"
    assert main(["report", *(str(tmp_path / name) for name in runs), "--out", str(out)]) == 0
    report = (out / "report.md").read_text()
    for title in ("ShapeWorld", "CausaLab", "ReCAST", "CoBe", "CLadder pairs"):
        assert f"## {title}" in report
    oracle = read_summary(tmp_path / "shapeworld-oracle")
    row = _table(report, "| run | episodes |")["agent:oracle (shapeworld-oracle)"]
    assert int(row[0]) == oracle["metrics"]["count"] == 40 and _number(row[1]) == oracle["metrics"]["accuracy"] == 1.0
    cladder_summary = read_summary(tmp_path / "cladder-llm")
    cladder = cladder_summary["metrics"]
    cladder_row = next(v for k, v in _table(report, "| run | questions |").items() if "cladder-llm" in k)
    assert int(cladder_row[0]) == cladder["count"] == 2 - cladder_summary["items"]["failed"]
    assert (cladder_row[1], cladder_row[2]) == (cladder["scoring"], cladder["reference"])
    assert _number(cladder_row[3]) == pytest.approx(cladder["accuracy"], abs=1e-4)
    experimenter = read_summary(tmp_path / "causalab-experimenter")
    assert experimenter["metrics"]["task_accuracy"] == 1.0 and set(experimenter["slices"]["by_num_nodes"]) == {"3", "4"}
    pngs = sorted(out.glob("*.png"))
    assert {p.name for p in pngs} >= {
        "shapeworld-accuracy-by-number-of-variables.png",
        "causalab-task-accuracy-by-number-of-nodes.png",
    }
    for png in pngs:
        _png(png)
        assert f"]({png.name})" in report
