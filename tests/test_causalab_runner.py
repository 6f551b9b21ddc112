"""``causal-datasets eval causalab``: agents end to end, resume, clear errors."""

from __future__ import annotations

import argparse

import pytest

from causal_datasets.commands.eval import add_common_arguments
from causal_datasets.errors import CausalDatasetsError, RunConfigurationError, UnknownConfig
from causal_datasets.runners.causalab import EVAL_TASK
from causal_datasets.runners.results import read_results, read_summary
from tests.support.data import SHARED_DATA_DIR


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("hub")


def run_cli(*args: str) -> int:
    """``causal-datasets eval causalab ARGS`` with the eval command's own options (exit code 2 on
    a library error, like the CLI)."""
    parser = argparse.ArgumentParser()
    add_common_arguments(parser)
    EVAL_TASK.add_arguments(parser)
    try:
        EVAL_TASK.run(parser.parse_args(list(args)))
    except CausalDatasetsError:
        return 2
    return 0


def test_experimenter_run_builds_the_dataset_and_scores(dataset_dir, tmp_path):
    out = tmp_path / "run"
    code = run_cli("--config", "upstream_5nodes", "--agent", "experimenter", "--limit", "4",
                   "--source", str(SHARED_DATA_DIR / "causalab" / "data"),
                   "--hub-dir", str(dataset_dir), "--out", str(out), "--concurrency", "2")
    assert code == 0
    items = read_results(out)
    assert [i["id"] for i in items] and len(items) == 4
    assert all(i["outcome"] == "solved" and i["scores"]["edge_f1"] == 1.0 for i in items)
    assert all(len(i["trajectory"]) == len(i["steps"]) == 17 for i in items)  # 16 interventions + submit
    summary = read_summary(out)
    assert summary["metrics"]["task_accuracy"] == 1.0 and summary["metrics"]["outcomes"] == {"solved": 4}
    assert summary["run"]["config"] == "upstream_5nodes" and summary["run"]["agent"] == "agent:experimenter"


def test_resume_skips_finished_episodes(dataset_dir, tmp_path):
    out = tmp_path / "run"
    base = ["--config", "3nodes", "--agent", "random", "--hub-dir", str(dataset_dir), "--out", str(out)]
    assert run_cli(*base, "--limit", "2") == 0
    first = {i["id"]: i for i in read_results(out)}
    assert run_cli(*base, "--limit", "2") == 2  # results exist and --resume was not given
    assert run_cli(*base, "--limit", "3", "--resume") == 0
    items = read_results(out)
    assert len(items) == 3 and all(items[k] == v for k, v in enumerate(first.values()))
    assert read_summary(out)["run"]["episodes_scored"] == 3


def test_bad_invocations_are_clear(dataset_dir, tmp_path):
    parser = argparse.ArgumentParser()
    add_common_arguments(parser)
    EVAL_TASK.add_arguments(parser)
    args = parser.parse_args(["--config", "nope", "--agent", "random", "--hub-dir", str(dataset_dir), "--out", str(tmp_path)])
    with pytest.raises(UnknownConfig, match="unknown causalab config"):
        EVAL_TASK.run(args)
    args.config, args.agent = ["3nodes"], None
    with pytest.raises(RunConfigurationError, match="exactly one of --agent"):
        EVAL_TASK.run(args)
