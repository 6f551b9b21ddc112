"""``causal-datasets eval causalab``: agents end to end, resume, clear errors."""

from __future__ import annotations

import pytest

from causal_datasets.cli import main
from causal_datasets.errors import RunConfigurationError, SourceUnavailable, UnknownConfig
from causal_datasets.runners.results import read_summary
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields, run_eval


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("hub")


def test_experimenter_run_builds_the_dataset_and_scores(dataset_dir, tmp_path):
    out = tmp_path / "run"
    code = main(
        [
            "eval",
            "causalab",
            "--config",
            "upstream_5nodes",
            "--agent",
            "experimenter",
            "--limit",
            "4",
            "--source",
            str(SHARED_DATA_DIR / "causalab" / "data"),
            "--hub-dir",
            str(dataset_dir),
            "--out",
            str(out),
            "--concurrency",
            "2",
        ]
    )
    assert code == 0
    items = item_fields(out)
    assert [i["id"] for i in items] and len(items) == 4
    assert all(i["outcome"] == "solved" and i["mechanism"]["edge_f1"] == 1.0 for i in items)
    assert all(i["config"] == "upstream_5nodes" for i in items)
    assert all(len(i["trajectory"]) == len(i["steps"]) == 17 for i in items)  # 16 interventions + submit
    summary = read_summary(out)
    assert summary["metrics"]["task_accuracy"] == 1.0 and summary["metrics"]["outcomes"]["solved"] == 4 == sum(
        summary["metrics"]["outcomes"].values()
    )
    assert summary["dataset"]["configs"] == ["upstream_5nodes"] and summary["solver"] == "agent:experimenter"
    assert set(summary["slices"]["by_suite"]["5nodes"]) >= {"coefficient_f1", "root_f1", "edge_f1"}


def test_resume_skips_finished_episodes(dataset_dir, tmp_path):
    out = tmp_path / "run"
    base = [
        "eval",
        "causalab",
        "--config",
        "3nodes",
        "--agent",
        "random",
        "--hub-dir",
        str(dataset_dir),
        "--out",
        str(out),
    ]
    assert main([*base, "--limit", "2"]) == 0
    first = {i["id"]: i for i in item_fields(out)}
    assert main([*base, "--limit", "2"]) == 2  # results exist and --resume was not given
    assert main([*base, "--limit", "3", "--resume"]) == 2  # more items than the run has: that extends it
    assert main([*base, "--limit", "3", "--extend"]) == 0
    items = item_fields(out)
    assert len(items) == 3 and all(items[k] == v for k, v in enumerate(first.values()))
    assert read_summary(out)["items"] == {"selected": 3, "scored": 3, "failed": 0, "missing": 0}


def test_bad_invocations_are_clear(dataset_dir, tmp_path, capsys):
    with pytest.raises(SystemExit):  # argparse: not one of the configs
        main(["eval", "causalab", "--config", "nope", "--agent", "random", "--out", str(tmp_path)])
    assert "invalid choice: 'nope'" in capsys.readouterr().err
    with pytest.raises(RunConfigurationError, match="exactly one of --agent"):
        run_eval("causalab", "--config", "3nodes", "--hub-dir", str(dataset_dir), "--out", str(tmp_path / "a"))
    with pytest.raises(SystemExit):  # causalab uses no judge: the option is not offered
        main(["eval", "causalab", "--agent", "random", "--judge-model", "j", "--out", str(tmp_path / "b")])
    assert "unrecognized arguments: --judge-model j" in capsys.readouterr().err


def test_configs_the_build_lacks_are_named(tmp_path, monkeypatch):
    monkeypatch.delenv("CAUSAL_DATASETS_SOURCES", raising=False)
    hub = tmp_path / "hub"
    upstream = ["causalab", "--config", "upstream_3nodes", "--agent", "random", "--hub-dir", str(hub)]
    with pytest.raises(SourceUnavailable, match="pass --source DIR, the data/ folder of the CausaLab release"):
        run_eval(*upstream, "--out", str(tmp_path / "run"))  # nothing built without the release
    assert not hub.exists()
    run_eval(
        "causalab",
        "--config",
        "3nodes",
        "--agent",
        "random",
        "--limit",
        "1",
        "--hub-dir",
        str(hub),
        "--out",
        str(tmp_path / "generated"),
    )  # built on demand without the release: the generated suites
    with pytest.raises(UnknownConfig, match="has no config 'upstream_3nodes'.*pass --source DIR"):
        run_eval(*upstream, "--out", str(tmp_path / "run-2"))
