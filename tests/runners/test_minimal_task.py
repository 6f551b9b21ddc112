"""A task that declares only its name, dataset, solving and scoring (tests/support/sixth_benchmark/minimal.py) runs
through ``eval``, ``rescore``, ``report``, ``schema`` and inspect_ai on the defaults; a task declares a model role
of its own (``critic``), offered as flags and checked wherever runs are configured and results read; a task's
version is recorded, kept by ``--resume`` and noted by ``rescore``; a failure's category is one of the vocabulary."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import ValidationError

from causal_datasets.cli import main
from causal_datasets.errors import RunConfigurationError, TaskRegistrationError
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.integrations import inspect_tasks
from causal_datasets.llm.stub_server import StubServer
from causal_datasets.runners import registry as task_registry
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.records import Failure
from causal_datasets.runners.results import read_results, read_summary
from causal_datasets.runners.task import RoleSpec, RunSettings
from tests.support.installed import installed_entry_points
from tests.support.sixth_replies import adder
from tests.support.stub_flags import stub_flags

ENTRY_POINTS = """\
[causal_datasets.builders]
sixth = tests.support.sixth_benchmark:BUILDER

[causal_datasets.tasks]
minimal = tests.support.sixth_benchmark.minimal:MINIMAL
critiqued = tests.support.sixth_benchmark.minimal:CRITIQUED
"""


@pytest.fixture
def installed(tmp_path, monkeypatch):
    with installed_entry_points(tmp_path / "site", monkeypatch, ENTRY_POINTS):
        yield tmp_path


def eval_argv(task: str, folder, base_url: str, *extra: str) -> list[str]:
    hub, out = folder / "hub", folder / task
    return ["eval", task, *stub_flags(base_url), "--hub-dir", str(hub), "--out", str(out), *extra]


def odd_share(run) -> float:
    """The share of the run's sums that are odd: those the stub adds right."""
    questions = [line["calls"][0]["messages"][-1]["content"] for line in read_results(run)]
    sums = [sum(int(n) for n in question.removeprefix("What is ").split("?")[0].split(" + ")) for question in questions]
    return sum(total % 2 for total in sums) / len(sums)


def test_a_minimal_task_runs_on_its_defaults(installed, capsys):
    task = task_registry.get_task("minimal")
    assert (task.dataset, task.configs, task.default_configs, task.help) == (
        "sixth",
        ("sums",),
        ("sums",),
        "Sums (a sixth benchmark)",
    )
    run, again = installed / "minimal", installed / "again"
    with StubServer(adder) as server:
        assert main(eval_argv("minimal", installed, server.base_url)) == 0
        assert main(["rescore", str(run), "--out", str(again)]) == 0
        assert server.count == 6  # one call per row, none by the rescore
    summary = read_summary(run)
    assert summary["task_version"] == 0 and summary["models"] == {"model": "stub"}
    assert summary["metrics"] == {"benchmark": "minimal", "count": 6, "correct": odd_share(run)}
    assert 0 < odd_share(run) < 1  # a mean of right and wrong answers, not a constant
    assert set(summary["intervals"]["metrics"]) == {"correct"}
    assert sorted(line["id"] for line in read_results(run)) == [f"sum-{index}" for index in range(6)]
    assert read_summary(again)["metrics"] == summary["metrics"]

    assert main(["report", str(run), "--out", str(installed / "report")]) == 0
    assert "| run | items | correct |" in (installed / "report" / "report.md").read_text()
    capsys.readouterr()
    assert main(["schema", "run-summary", "minimal"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$defs"]["MinimalMetrics"]["properties"]["correct"]["title"] == "correct"
    assert inspect_tasks.inspect_tasks()["minimal_sums"] == ("minimal", "sums")


def test_a_task_declares_a_model_role_of_its_own(installed, capsys):
    critic = ["--critic-model", "stub", "--critic-base-url"]
    with StubServer(adder) as server:
        assert main(eval_argv("critiqued", installed, server.base_url, *critic, server.base_url)) == 0
        capsys.readouterr()
        with pytest.raises(SystemExit) as stopped:  # the minimal task declares no critic: no such flag
            main(eval_argv("minimal", installed, server.base_url, *critic, server.base_url))
        assert stopped.value.code == 2 and "unrecognized arguments: --critic-model" in capsys.readouterr().err
        assert main(eval_argv("critiqued", installed, server.base_url, "--out", str(installed / "alone"))) == 2
        assert "needs the model that checks a sum: give --critic-model" in capsys.readouterr().err
    run = installed / "critiqued"
    lines = read_results(run)
    assert [[call["role"] for call in line["calls"]] for line in lines] == [["model", "critic"]] * 6
    summary = read_summary(run)
    assert summary["models"] == {"critic": "stub", "model": "stub"} and summary["usage"]["critic"]["calls"] == 6
    assert summary["metrics"]["critic_agrees"] == summary["metrics"]["correct"] == odd_share(run)

    task, minimal = task_registry.get_task("critiqued"), task_registry.get_task("minimal")
    judged = lines[0] | {"calls": [lines[0]["calls"][0] | {"role": "judge"}]}
    with pytest.raises(ValidationError, match="role 'judge' is not one the task declares"):
        task.result_model.model_validate(judged)
    with pytest.raises(ValidationError, match="role 'critic' is not one the task declares"):
        minimal.summary_model.model_validate(
            summary | {"benchmark": "minimal", "metrics": {"benchmark": "minimal", "count": 6}}
        )
    settings = RunSettings(out=installed / "other", location=DatasetLocation(hub_dir=installed / "hub"))
    with pytest.raises(RunConfigurationError, match="minimal uses no critic model"):
        run_task(minimal, dataclasses.replace(settings, models={"critic": object()}))  # type: ignore[dict-item]
    for name in ("task", "Critic", "my-critic", ""):
        with pytest.raises(TaskRegistrationError, match="a role is one lower-case word"):
            RoleSpec(name, "a role")
    with pytest.raises(TaskRegistrationError, match="declares a role twice"):
        dataclasses.replace(minimal, roles=(RoleSpec("model", "a"), RoleSpec("model", "b")))


def test_a_task_version_is_recorded_kept_by_resume_and_noted_by_rescore(installed, monkeypatch, capsys):
    run = installed / "minimal"
    with StubServer(adder) as server:
        assert main(eval_argv("minimal", installed, server.base_url)) == 0
        newer = dataclasses.replace(task_registry.get_task("minimal"), version="2")
        monkeypatch.setitem(task_registry.tasks(), "minimal", newer)
        capsys.readouterr()
        assert main([*eval_argv("minimal", installed, server.base_url), "--resume"]) == 2
        assert "task version 2 (the run: 0)" in capsys.readouterr().err
        assert main(["rescore", str(run), "--out", str(installed / "again")]) == 0
        assert server.count == 6
    rescored = read_summary(installed / "again")
    assert rescored["task_version"] == "2" and rescored["rescored"]["task_version_before"] == 0
    assert rescored["rescored"]["notes"] == [
        "the transcripts were made by version 0 of the minimal task and scored now by version 2: "
        "its items and prompts are those of the run"
    ]


def test_a_failure_category_is_one_of_the_error_vocabulary():
    assert Failure(role="critic", category="timeout", detail="").key == "critic timeout"
    assert Failure(role="task", category="crash", detail="").category == "crash"
    with pytest.raises(ValidationError, match="category"):
        Failure(role="model", category="bad_luck", detail="")
    with pytest.raises(ValidationError, match="role"):
        Failure(role="Model!", category="timeout", detail="")
