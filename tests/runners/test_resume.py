"""``--resume`` continues a run as it was asked for (its selection comes from its own summary.json) and
refuses a command line that asks for another one; ``--extend`` adds configs or items and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causal_datasets.cli import main
from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm.stub_server import StubServer
from causal_datasets.runners.results import read_results, read_summary
from tests.support.builds import small_cladder_build
from tests.support.runs import run_eval
from tests.support.stub_flags import stub_flags


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return small_cladder_build(tmp_path_factory.mktemp("hub"))


@pytest.fixture
def run(hub, tmp_path):
    """A CausaLab run of two configs, six episodes, by the experimenter agent; returns its base arguments."""
    base = ["eval", "causalab", "--hub-dir", str(hub), "--out", str(tmp_path / "run")]
    assert main([*base, "--config", "3nodes", "5nodes", "--agent", "experimenter", "--limit", "6"]) == 0
    return base


def state(run):
    out = run[run.index("--out") + 1]
    summary = read_summary(out)
    return summary["dataset"]["configs"], summary["selection"], summary["items"]["selected"], len(read_results(out))


def test_resume_alone_continues_the_run_with_its_own_selection(run):
    assert main([*run, "--resume"]) == 0
    assert state(run) == (["3nodes", "5nodes"], {"limit": 6, "models": {}}, 6, 6)
    assert read_summary(run[run.index("--out") + 1])["invocations"] == 2


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (
            ["--config", "3nodes", "--limit", "5"],
            "configs 3nodes (the run: 3nodes, 5nodes); --limit 5 (the run: --limit 6)",
        ),
        (["--agent", "random"], "solver agent:random (the run: agent:experimenter)"),
        (["--regime", "mixed"], "option regime='mixed' (the run: None)"),
        (["--split", "train"], "split train (the run: test)"),
    ],
)
def test_another_selection_is_refused_and_the_run_is_left_as_it_was(run, flags, named, capsys):
    before = state(run)
    capsys.readouterr()
    assert main([*run, *flags, "--resume"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and named in error and "--extend" in error and error.count("\n") == 1
    assert state(run) == before


def test_extend_adds_items_or_configs_and_never_removes_any(run, capsys):
    assert main([*run, "--limit", "8", "--resume"]) == 2  # more than the run: only with --extend
    assert "which adds to it: pass --extend" in capsys.readouterr().err
    assert main([*run, "--limit", "8", "--extend"]) == 0
    assert state(run) == (["3nodes", "5nodes"], {"limit": 8, "models": {}}, 8, 8)
    assert main([*run, "--config", "3nodes", "5nodes", "6nodes", "--extend"]) == 0  # the limit stays 8
    assert state(run)[0] == ["3nodes", "5nodes", "6nodes"]
    assert main([*run, "--limit", "4", "--extend"]) == 2
    assert "--extend only adds" in capsys.readouterr().err


def test_a_run_of_an_older_summary_format_is_not_continued(run, capsys):
    """Result lines before summary format 4 are untyped: such a run is refused, named, and left as it was."""
    out = Path(run[run.index("--out") + 1])
    summary = json.loads((out / "summary.json").read_text())
    summary.update(format=3, package_version="0.3.0")
    (out / "summary.json").write_text(json.dumps(summary))
    before = (out / "results.jsonl").read_bytes()
    for flag in ("--resume", "--extend"):
        assert main([*run, flag]) == 2
        error = capsys.readouterr().err
        assert "summary format 3, written by causal-datasets 0.3.0" in error
        assert "--resume/--extend reads format 4" in error
    assert (out / "results.jsonl").read_bytes() == before


def test_a_model_run_keeps_its_model_settings_but_not_its_server(hub, tmp_path):
    out = tmp_path / "model-run"
    common = [
        "cladder_pairs",
        "--out",
        str(out),
        "--hub-dir",
        str(hub),
        "--limit",
        "2",
    ]
    with StubServer() as first:
        summary = run_eval(*common, *stub_flags(first.base_url))
    recorded = summary.selection.models["model"]
    assert recorded["temperature"] == 0.0 and "base_url" not in recorded
    with StubServer() as moved:  # the same model served elsewhere (serve-local picks a new port each time)
        assert run_eval(*common, *stub_flags(moved.base_url), "--resume").invocations == 2
        with pytest.raises(RunConfigurationError, match=r"model temperature=0\.5 \(the run: 0\.0\)"):
            run_eval(*common, *stub_flags(moved.base_url), "--temperature", "0.5", "--resume")
        assert moved.count == 0  # nothing was left to ask, and the refused run asked nothing
