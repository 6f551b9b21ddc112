"""``causal-datasets eval cobe``: generation + judging, judging published outputs, resume, failures kept and
classified."""

from __future__ import annotations

import json
import threading

import pytest

from causal_datasets.cli import main
from causal_datasets.cobe.prompts import build_messages
from causal_datasets.cobe.records import CoBeQuery
from causal_datasets.errors import ResultsExist, RunConfigurationError
from causal_datasets.hub.folder import load_records
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.runners.results import read_summary
from tests.support.cobe_runs import build_cobe, run_cobe
from tests.support.runs import item_fields
from tests.support.stub_flags import stub_flags


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return build_cobe(tmp_path_factory.mktemp("hub"))


def judge_all_true(request, index):
    return StubReply(text="T")


def test_judging_published_outputs_reports_agreement_and_resumes(tmp_path, hub):
    out = tmp_path / "run"
    argv = [
        "--config",
        "responses",
        "--models",
        "gpt",
        "claude",
        "--limit",
        "6",
        "--concurrency",
        "2",
    ]
    with StubServer(judge_all_true) as server:
        base = stub_flags(server.base_url, role="judge", model="stub-judge")
        summary = run_cobe(out, hub, *argv, *base)
        calls = server.count
        again = run_cobe(out, hub, *argv, *base, "--resume")
        with pytest.raises(ResultsExist, match="pass --resume"):
            run_cobe(out, hub, *argv, *base)
        assert server.count == calls  # every item was finished: nothing asked again
    results = item_fields(out)
    assert len(results) == 6 and {r["model"] for r in results} == {"gpt", "claude"}  # models mixed by the seeded order
    assert all(r["verdict"] == "correct" for r in results if r["response"].strip())
    assert calls == sum(len(r["criteria"]) for r in results)
    published = [r["published_verdict"] for r in results]
    known = [v for v in published if v != "unknown"]
    agreement = summary.metrics.agreement
    assert agreement["tp"] == known.count("correct") and agreement["fp"] == known.count("wrong")
    assert again.metrics == summary.metrics and again.slices == summary.slices
    gpt = [r for r in results if r["model"] == "gpt"]
    entry = summary.slices["by_model"]["gpt"]
    assert (entry["n"], entry["accuracy"], entry["published_accuracy"]) == (
        len(gpt),
        sum(r["verdict"] == "correct" for r in gpt) / len(gpt),
        [r["published_verdict"] for r in gpt].count("correct") / len(gpt),
    )
    assert entry["failure_rate"]["E1"] == 0.0 and entry["failure_rate"]["E4"] is None  # all T; no E4 criteria here
    written = read_summary(out)
    assert (written["dataset"]["configs"], written["solver"], written["models"], written["items"]["selected"]) == (
        ["responses"],
        "published",
        {"judge": "stub-judge"},
        6,
    )


def test_generation_and_judging_keep_and_classify_failures(tmp_path, hub):
    queries = {q.id: q for q in load_records(hub / "cobe", "queries", "test", CoBeQuery)}
    refused: list[str] = []  # the first generation asked for gets an HTTP 400
    lock = threading.Lock()

    def respond(request, index):
        prompt = request["messages"][0]["content"]
        if request["model"] == "writer":
            with lock:
                if not refused or refused[0] == prompt:
                    refused.append(prompt)
                    return StubReply(status=400, text="bad request")
            return StubReply(text="A rewritten story.")
        if "UNCHANGED" in prompt:
            return StubReply(text="I think so")  # never a single T/F: unresolved after 2 asks
        return StubReply(text="F" if "CHANGED" in prompt else "T")

    out = tmp_path / "run"
    with StubServer(respond) as server:
        summary = run_cobe(
            out,
            hub,
            "--config",
            "queries",
            "--model",
            "writer",
            "--base-url",
            server.base_url,
            "--no-cache",
            "--max-retries",
            "0",
            "--judge-model",
            "judge",
            "--judge-base-url",
            server.base_url,
            "--judge-no-cache",
            "--max-attempts",
            "2",
            "--limit",
            "4",
        )
    results = {r["id"]: r for r in item_fields(out)}
    assert len(results) == 4 and set(results) <= set(queries)  # four of the queries (spread over the scenarios)
    failed = [r for r in results.values() if r["status"] == "failed"]  # the server refused: not a wrong rewrite
    assert len(failed) == 1 and failed[0]["failure"]["category"] == "request_rejected"
    assert refused[0].startswith(queries[failed[0]["id"]].text)
    for item_id, item in results.items():
        query = queries[item_id]
        if item["status"] == "failed":
            continue
        assert item["calls"][0]["messages"] == build_messages(query) and item["calls"][0]["role"] == "model"
        assert item["verdict"] == "wrong"  # E2 answered F
        e1 = next(c for c in item["criteria"] if c["code"] == "E1")
        assert (e1["passed"], e1["error"], e1["answers"]) == (None, "invalid_judge_answer", ["I think so"] * 2)
    metrics = summary.metrics
    assert metrics.count == 3 and metrics.wrong == 3 and metrics.accuracy == 0.0
    assert metrics.errors["items"] == {"invalid_judge_answer": 3}
    assert metrics.failure_rate["E2"] == 1.0 and metrics.criteria["E1"]["unresolved"] == 3
    assert summary.status == "incomplete" and summary.failures == {"model": {"request_rejected": 1}}
    assert summary.models == {"model": "writer", "judge": "judge"} and summary.usage["judge"].calls > 0


def test_missing_options_are_explained_before_anything_is_built(tmp_path, capsys):
    fresh = tmp_path / "hub"
    with StubServer(judge_all_true) as server, pytest.raises(RunConfigurationError, match="needs --model"):
        run_cobe(tmp_path / "run", fresh, "--judge-model", "j", "--judge-base-url", server.base_url)
    assert not fresh.exists() and not (tmp_path / "run").exists()
    assert (
        main(
            [
                "eval",
                "cobe",
                "--config",
                "responses",
                "--judge-model",
                "j",
                "--out",
                str(tmp_path / "run2"),
                "--hub-dir",
                str(tmp_path / "empty"),
                "--source",
                str(tmp_path / "missing.json"),
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == f"error: --source {tmp_path / 'missing.json'} does not exist\n"


@pytest.mark.llm
def test_local_model_end_to_end(tmp_path, hub, local_llm):
    out = tmp_path / "run"
    argv = [
        "--config",
        "queries",
        "--model",
        local_llm.model,
        "--base-url",
        local_llm.base_url,
        "--max-tokens",
        "48",
        "--judge-model",
        local_llm.model,
        "--judge-base-url",
        local_llm.base_url,
        "--judge-max-tokens",
        "4",
        "--max-attempts",
        "2",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--judge-cache-dir",
        str(tmp_path / "cache"),
        "--limit",
        "2",
        "--concurrency",
        "1",
    ]
    summary = run_cobe(out, hub, *argv)
    results = item_fields(out)
    assert len(results) == 2 and summary.metrics.count + summary.items.failed == 2
    for item in results:
        assert item["verdict"] in {"correct", "wrong", "unknown"}
        assert item["response"]  # the tiny model answered something
        for criterion in item["criteria"]:
            # every criterion either got a valid T/F or carries an error category
            assert (criterion["passed"] is not None) != (criterion["error"] is not None)
        if item["verdict"] == "unknown":
            assert item["error"] is not None
    written = json.loads((out / "summary.json").read_text())
    assert written["models"] == {"model": local_llm.model, "judge": local_llm.model}
    assert written["usage"]["model"]["calls"] >= 2


def test_an_unexpected_failure_is_recorded_as_failed_and_retried_on_resume(tmp_path, hub, monkeypatch):
    from causal_datasets.cobe import task as runner

    real = runner.judge_response
    broken = {"first": True}

    def flaky(judge, criteria, response, max_attempts):
        if broken["first"]:
            broken["first"] = False
            raise KeyError("bug")
        return real(judge, criteria, response, max_attempts)

    monkeypatch.setattr(runner, "judge_response", flaky)
    argv = [
        "--config",
        "responses",
        "--limit",
        "3",
        "--concurrency",
        "1",
    ]
    with StubServer(judge_all_true) as server:
        base = ["--judge-model", "j", "--judge-base-url", server.base_url, "--judge-no-cache"]
        summary = run_cobe(tmp_path / "run", hub, *argv, *base)
        assert summary.metrics.count == 2 and summary.items.failed == 1 and summary.failures == {"task": {"crash": 1}}
        (crashed,) = [r for r in item_fields(tmp_path / "run") if r["status"] == "failed"]
        assert crashed["failure"] == {"role": "task", "category": "crash", "detail": "KeyError: 'bug'"}
        resumed = run_cobe(tmp_path / "run", hub, *argv, *base, "--resume")
    assert resumed.metrics.count == 3 and resumed.status == "complete" and resumed.failures == {}
