"""The engine's rules, each checked on all five tasks: typed summaries that validate against the exported
schema, failed items for transport errors (a failed run exits non-zero), the one resume rule, declared
roles only, every client closed, Ctrl-C keeping what is done."""

from __future__ import annotations

import dataclasses
import json

import jsonschema
import pytest

from causal_datasets.cli import main
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.client import LLMClient
from causal_datasets.llm.config import LLMConfig
from causal_datasets.llm.options import ModelSpec
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.results import read_results, read_settings, read_summary
from causal_datasets.runners.task import RunSettings
from tests.support.benchmarks import NAMES, build_every_dataset, eval_argv
from tests.support.builds import built_once
from tests.support.stub_flags import stub_flags


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return built_once(tmp_path_factory, "every-dataset", build_every_dataset)


def answer_t(request, index):
    return StubReply(text="T")


def stub_settings(tmp_path, hub, base_url: str, **fields) -> RunSettings:
    """One item at a time into ``tmp_path/run``, reading ``hub``, the stub model at ``base_url`` without retries."""
    model = ModelSpec(LLMConfig(model="stub", base_url=base_url, max_retries=0))
    return RunSettings(
        out=tmp_path / "run", location=DatasetLocation(hub_dir=hub), concurrency=1, models={"model": model}, **fields
    )


def argv(name: str, hub, out, base_url: str, *extra: str) -> list[str]:
    return eval_argv(name, hub, out, base_url, "--model", "stub", "--no-cache", *extra)


def test_every_task_is_declared():
    assert sorted(tasks()) == NAMES


def test_an_item_result_schema_needs_its_benchmark(capsys):
    assert main(["schema", "item-result"]) == 2
    assert "item-result needs a benchmark" in capsys.readouterr().err
    assert main(["schema", "item-result", "cladder_pairs"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert {"CladderGeneration", "CladderScores", "Failure", "ModelCall"} <= set(schema["$defs"])


@pytest.mark.parametrize("name", NAMES)
def test_every_summary_and_result_validates_against_the_exported_schemas(name, hub, tmp_path, capsys):
    with StubServer(answer_t) as server:
        assert main(argv(name, hub, tmp_path / "run", server.base_url, "--json")) == 0
    printed = json.loads(capsys.readouterr().out)  # --json: the summary as written
    written = read_summary(tmp_path / "run")
    assert printed == written
    task = tasks()[name]
    jsonschema.validate(written, task.summary_model.model_json_schema())
    settings = read_settings(tmp_path / "run")  # each call's settings once per run, by id
    for line in read_results(tmp_path / "run"):
        jsonschema.validate(line, task.result_model.model_json_schema())
        assert line["scores"] and line["calls"]
        assert all(call["messages"] and settings[call["settings_id"]] for call in line["calls"])
        assert not any("settings" in call for call in line["calls"])
    assert main(["schema", "run-summary"]) == 0  # every registered benchmark's, told apart by `benchmark`
    jsonschema.validate(written, json.loads(capsys.readouterr().out))
    summary = task.summary_model.model_validate(written)
    assert summary.benchmark == name and summary.status == "complete"
    assert summary.items.model_dump() == {"selected": 2, "scored": 2, "failed": 0, "missing": 0}
    assert summary.usage_total.calls > 0 and summary.invocations == 1


@pytest.mark.parametrize("name", NAMES)
def test_transport_errors_fail_items_and_resume_runs_exactly_those_again(name, hub, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer() as gone:
        dead = gone.base_url  # nothing listens there any more
    assert main(argv(name, hub, out, dead)) == 1  # a run that scored nothing is a failed run
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"{name}: failed: 0 of 2 items scored, 2 failed") and "--resume" in err
    summary = read_summary(out)
    assert summary["status"] == "failed" and summary["items"]["failed"] == 2
    assert summary["failures"] == {"model": {"retries_exhausted": 2}}  # the same vocabulary in every benchmark
    assert all(line["status"] == "failed" and line["failure"]["role"] == "model" for line in read_results(out))
    with StubServer(answer_t) as server:
        assert main(argv(name, hub, out, server.base_url, "--resume")) == 0
        asked = server.count
        assert asked > 0
        assert main(argv(name, hub, out, server.base_url, "--resume")) == 0
        assert server.count == asked  # scored items are never run again
    capsys.readouterr()
    summary = read_summary(out)
    assert summary["status"] == "complete" and summary["invocations"] == 3
    assert len(read_results(out)) == 2  # one line per item, the latest


@pytest.mark.parametrize("name", NAMES)
def test_only_the_roles_a_task_declares_are_offered(name, hub, tmp_path, capsys):
    roles = {spec.role for spec in tasks()[name].roles}
    with StubServer(answer_t) as server:
        command = argv(
            name,
            hub,
            tmp_path / "run",
            server.base_url,
            *stub_flags(server.base_url, role="judge"),
        )
        if "judge" in roles:
            assert main(command) == 0
            assert read_summary(tmp_path / "run")["models"]["judge"] == "stub"
        else:
            with pytest.raises(SystemExit) as stopped:
                main(command)
            assert stopped.value.code == 2
            assert "unrecognized arguments: --judge-model" in capsys.readouterr().err


@pytest.mark.parametrize("name", NAMES)
def test_every_client_is_closed_also_when_a_run_fails(name, hub, tmp_path, monkeypatch):
    opened, closed = [], []
    real_enter, real_exit = LLMClient.__enter__, LLMClient.__exit__
    monkeypatch.setattr(LLMClient, "__enter__", lambda self: (opened.append(self), real_enter(self))[1])
    monkeypatch.setattr(LLMClient, "__exit__", lambda self, *exc: (closed.append(self), real_exit(self, *exc))[1])
    task = dataclasses.replace(tasks()[name], summarize=_raise)
    with StubServer(answer_t) as server:
        settings = stub_settings(
            tmp_path, hub, server.base_url, limit=1, options=task.options.model_validate(_options(name))
        )
        with pytest.raises(RuntimeError, match="summary broke"):
            run_task(task, settings)
    assert opened and opened == closed


@pytest.mark.parametrize("name", NAMES)
def test_ctrl_c_keeps_what_is_done_and_resume_goes_on(name, hub, tmp_path):
    base = tasks()[name]
    solved = []

    def stop_on_second(item, context):
        if solved:
            raise KeyboardInterrupt
        solved.append(item.id)
        return base.solve(item, context)

    with StubServer(answer_t) as server:
        settings = stub_settings(
            tmp_path,
            hub,
            server.base_url,
            limit=2,
            configs=_configs(name),
            options=base.options.model_validate(_options(name)),
        )
        with pytest.raises(KeyboardInterrupt):
            run_task(dataclasses.replace(base, solve=stop_on_second), settings)
        summary = base.summary_model.model_validate(read_summary(tmp_path / "run"))
        assert summary.status == "interrupted" and summary.items.scored == 1 and summary.items.missing == 1
        assert [line["id"] for line in read_results(tmp_path / "run")] == solved
        resumed = run_task(base, dataclasses.replace(settings, resume=True))
    assert resumed.status == "complete" and resumed.items.scored == 2 and resumed.invocations == 2


def test_interrupted_command_exits_130_and_says_how_to_go_on(monkeypatch, tmp_path, capsys):
    from causal_datasets.commands import eval as eval_command

    def interrupted(task, settings):
        raise KeyboardInterrupt

    monkeypatch.setattr(eval_command, "run_task", interrupted)
    assert main(["eval", "shapeworld", "--agent", "oracle", "--out", str(tmp_path / "run")]) == 130
    assert capsys.readouterr().err == f"interrupted: what was done is in {tmp_path / 'run'}; continue with --resume\n"


def _raise(results, context):
    raise RuntimeError("summary broke")


def _options(name: str) -> dict:
    return {
        "causalab": {"max_turns": 2},
        "recast": {"ids": [91, 98], "max_attempts": 1},
        "cobe": {"max_attempts": 1},
    }.get(name, {})


def _configs(name: str) -> tuple[str, ...]:
    return {"causalab": ("3nodes",), "cobe": ("queries",)}.get(name, ())


def test_an_item_that_runs_out_of_time_is_failed_and_its_later_calls_are_never_sent(hub, tmp_path):
    def keep_playing(request, index):
        last = request["messages"][-1]["content"]
        text = '{"shape": "circle", "action": "move"}' if '"shape"' in last else '{"next": "continue interaction"}'
        return StubReply(text=text, delay=0.2)

    with StubServer(keep_playing) as server:
        summary = run_task(
            tasks()["shapeworld"],
            stub_settings(tmp_path, hub, server.base_url, limit=1, item_timeout=0.5),
        )
        sent = server.count
    assert summary.status == "failed" and summary.failures == {"model": {"timeout": 1}}
    (line,) = read_results(tmp_path / "run")
    assert "ran out of time" in line["failure"]["detail"] and 2 <= sent <= 4  # 0.2 s per call, 0.5 s for the item


@pytest.mark.parametrize("name", NAMES)
def test_rescore_with_the_same_rules_reproduces_every_score_and_asks_no_model(name, hub, tmp_path, capsys):
    run, again = tmp_path / "run", tmp_path / "again"
    with StubServer(answer_t) as server:
        assert main(argv(name, hub, run, server.base_url)) == 0
        asked = server.count
        eval_table = capsys.readouterr().out
        assert main(["rescore", str(run), "--out", str(again)]) == 0  # the dataset read where the run read it
        table = capsys.readouterr().out
        assert main(["rescore", str(run), "--out", str(tmp_path / "json"), "--json"]) == 0
        assert server.count == asked  # not one request
    assert table == eval_table.replace(str(run), str(again))  # eval's table, not the summary
    assert json.loads(capsys.readouterr().out)["rescored"]["source"] == str(run)
    before, after = read_results(run), read_results(again)
    assert [line["scores"] for line in after] == [line["scores"] for line in before]
    assert [line["calls"] for line in after] == [line["calls"] for line in before]  # judge replies reused, in order
    old, new = read_summary(run), read_summary(again)
    assert new["metrics"] == old["metrics"] and new["slices"] == old["slices"] and new["items"] == old["items"]
    assert new["rescored"] == {
        "source": str(run),
        "scored_before_by": old["package_version"],
        "generated_by": old["package_version"],
        "options_before": old["options"],
        "task_version_before": old["task_version"],
        "judge_calls": 0,
        "notes": [],
    }
