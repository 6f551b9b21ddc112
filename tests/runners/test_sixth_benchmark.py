"""A sixth benchmark from a package of its own (``tests/support/sixth_benchmark``), registered the way an installed
distribution registers one — an entry point of each group in its ``dist-info`` — runs through ``eval``,
``report``, ``rescore``, ``schema`` and inspect_ai without a line of causal_datasets naming it."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from causal_datasets import registry
from causal_datasets.cli import main
from causal_datasets.integrations import inspect_tasks
from causal_datasets.llm.stub_server import StubServer
from causal_datasets.runners import registry as task_registry
from causal_datasets.runners.results import read_results, read_summary
from tests.support.inspect_offline import use_offline_encoding
from tests.support.installed import installed_entry_points
from tests.support.sixth_replies import adder
from tests.support.stub_flags import stub_flags

ENTRY_POINTS = """\
[causal_datasets.builders]
sixth = tests.support.sixth_benchmark:BUILDER

[causal_datasets.tasks]
sixth = tests.support.sixth_benchmark:TASK
"""


def eval_sixth(base_url: str, hub, out) -> list[str]:
    return ["eval", "sixth", *stub_flags(base_url), "--hub-dir", str(hub), "--out", str(out)]


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The test package installed as a distribution: its dist-info (metadata and entry points) on sys.path."""
    with installed_entry_points(tmp_path / "site", monkeypatch, ENTRY_POINTS):
        yield tmp_path


def test_a_benchmark_from_another_package_runs_through_every_tool(installed, capsys, monkeypatch):
    hub, run, again, report = (installed / name for name in ("hub", "run", "again", "report"))
    assert "sixth" in task_registry.tasks() and registry.get_builder("sixth").name == "sixth"
    with StubServer(adder) as server:
        assert main(eval_sixth(server.base_url, hub, run)) == 0
        asked = server.count
        assert main(["rescore", str(run), "--out", str(again)]) == 0
        assert server.count == asked == 6
    capsys.readouterr()
    summary = read_summary(run)
    odd = sum(line["scores"]["parity"] == "odd" for line in read_results(run))
    assert summary["benchmark"] == "sixth" and summary["metrics"]["count"] == 6
    assert summary["metrics"]["accuracy"] == odd / 6 and summary["slices"]["by_parity"]["odd"]["accuracy"] == 1.0
    scores = {line["id"]: line["scores"] for line in read_results(run)}
    assert {line["id"]: line["scores"] for line in read_results(again)} == scores
    assert read_summary(again)["metrics"] == summary["metrics"]

    assert main(["report", str(run), str(again), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    assert "## Sums (a sixth benchmark)" in text and "| run | questions | accuracy |" in text
    assert "![Sums: accuracy by parity of the sum](sums-accuracy-by-parity-of-the-sum.png)" in text

    capsys.readouterr()
    assert main(["schema", "item-result", "sixth"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "SumScores" in schema["$defs"] and set(schema["$defs"]["SumScores"]["properties"]) == {
        "answer",
        "correct",
        "parity",
    }

    monkeypatch.setenv("STUB_API_KEY", "unused")  # inspect's openai-api/<service> provider wants a key
    use_offline_encoding()
    registered = inspect_tasks.register_tasks()
    assert inspect_tasks.inspect_tasks()["sixth_sums"] == ("sixth", "sums")
    with StubServer(adder) as server:
        [log] = inspect_eval(
            registered["sixth_sums"](hub_dir=str(hub)),
            log_dir=str(installed / "logs"),
            model=get_model("openai-api/stub/stub", base_url=server.base_url),
            display="none",
        )
    assert log.status == "success" and len(log.samples) == 6
    (accuracy,) = log.results.scores
    assert accuracy.metrics["mean"].value == pytest.approx(summary["metrics"]["accuracy"])


def test_without_its_entry_points_the_benchmark_is_unknown_everywhere(installed, capsys):
    run = installed / "run"
    with StubServer(adder) as server:
        assert main(eval_sixth(server.base_url, installed / "hub", run)) == 0
    capsys.readouterr()
    (installed / "site" / "sixth_benchmark-0.1.dist-info" / "entry_points.txt").unlink()
    task_registry.tasks.cache_clear()
    assert main(["report", str(run), "--out", str(installed / "report")]) == 2
    assert "unknown benchmark 'sixth': no installed package registers a task of that name" in capsys.readouterr().err
    assert main(["rescore", str(run), "--out", str(installed / "again")]) == 2
    assert "unknown benchmark 'sixth'" in capsys.readouterr().err
