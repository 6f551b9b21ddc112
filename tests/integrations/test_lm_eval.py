"""The lm-evaluation-harness tasks: what lm-eval sends (recorded by the stub server), how it scores, and
parity with ``causal-datasets eval cladder_pairs`` on the local model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from huggingface_hub import HfApi
from lm_eval import simple_evaluate
from lm_eval.tasks import TaskManager

from causal_datasets.cladder_pairs.cladder import formal_expression
from causal_datasets.cladder_pairs.estimand_task import extract_estimand, score_answer
from causal_datasets.cladder_pairs.records import CladderQuestionRow
from causal_datasets.errors import DatasetFolderError, RunConfigurationError
from causal_datasets.hub.push import push_folder
from causal_datasets.integrations.lm_eval import tasks_dir
from causal_datasets.integrations.lm_eval.data import load_cladder_estimand, location
from causal_datasets.integrations.lm_eval.settings import gen_kwargs
from causal_datasets.llm.config import LLMConfig
from causal_datasets.llm.stub_server import (
    STUB_MODEL,
    StubReply,
    StubServer,
    completion_body,
)
from causal_datasets.recast.parsing import parse_graph_answer
from causal_datasets.scoring.graph_compare import compare_graphs
from tests.support.hub_server import TOKEN
from tests.support.prompt_builds import prompt_builds
from tests.support.replay import conversation_key, recording, replaying
from tests.support.runs import item_fields, run_eval, run_on_stub
from tests.support.selection import lm_eval_samples, run_ids, selected_ids

LIMIT = 8


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return prompt_builds(tmp_path_factory.mktemp("hub"))


def prompts(hub, name, n=LIMIT, keep=lambda row: True):
    loaded = datasets.load_dataset(str(hub / name), "prompts", split="test")
    return [row for row in loaded if keep(row)][:n]


def replying(answers: dict[str, str]):
    """A stub responder answering by the request's last user message (lm-eval reorders requests by length)."""

    def respond(request, index):
        return StubReply(body=completion_body(answers.get(request["messages"][-1]["content"], "no idea")))

    return respond


def cladder_answers(hub, rows=None):
    """Varied replies to ``rows`` (default: the first questions): the estimand, the quantity restated, a naive
    estimand, nothing."""
    questions = datasets.load_dataset(str(hub / "cladder_pairs"), "questions", split="test")
    position = {question_id: index for index, question_id in enumerate(questions["id"])}
    replies = {}
    for index, row in enumerate(prompts(hub, "cladder_pairs") if rows is None else rows):
        question = CladderQuestionRow.from_row(questions[position[row["id"]]], questions.features)
        replies[row["prompt"][-1]["content"]] = (
            f"Reasoning.\nEstimand: {row['reference']}",
            f"Estimand: {formal_expression(question).text}",
            "Estimand: P(Y=1|X=1) - P(Y=1|X=0)",
            "I cannot tell.",
        )[index % 4]
    return replies


def in_process(tasks, base_url, metadata, *, limit=LIMIT, samples=None, gen_kwargs=None, **options):
    """lm-eval's Python API with only our task folder indexed; returns (results, samples per task). ``samples``
    (doc indices per task) instead of the first ``limit`` docs: give ``limit=None`` with it."""
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata=metadata)
    out = simple_evaluate(
        model="local-chat-completions",
        tasks=tasks,
        task_manager=manager,
        limit=limit,
        samples=samples,
        log_samples=True,
        gen_kwargs=gen_kwargs,
        model_args=f"base_url={base_url}/chat/completions,model={STUB_MODEL},tokenizer_backend=None,seed=0",
        **({"apply_chat_template": True} | options),
    )
    return out["results"], out["samples"]


def test_the_module_prints_the_task_folder():
    printed = subprocess.run(
        [sys.executable, "-m", "causal_datasets.integrations.lm_eval"], capture_output=True, text=True, check=True
    ).stdout.strip()
    folder = Path(printed)
    assert folder.is_absolute() and folder == tasks_dir()
    assert {p.name for p in folder.glob("*.yaml")} == {
        "causal_cladder_estimand.yaml",
        "causal_cladder_yes_no.yaml",
        "causal_recast_graph.yaml",
        "causal_cobe_queries.yaml",
        "causal_reasoning.yaml",
    }
    assert (folder / "utils.py").is_file() and (folder / "_prompts_template_yaml").is_file()


def test_lm_eval_sends_the_prompts_messages_and_scores_like_the_runner(hub, tmp_path):
    """The documented command line against the stub: every request is the prompts row's messages with the
    runner's sampling; per-item scores are score_answer of the same replies, as the runner's. lm-eval runs the
    items ``--limit`` selects (spread over the clusters) by ``--samples``."""
    selected = selected_ids("cladder_pairs", "--limit", str(LIMIT), "--model", STUB_MODEL, "--hub-dir", str(hub))
    rows = prompts(hub, "cladder_pairs", keep=lambda row: row["id"] in selected)
    assert len(rows) == LIMIT
    answers = cladder_answers(hub, rows)
    with StubServer(replying(answers)) as server:
        command = [
            sys.executable,
            "-m",
            "lm_eval",
            "--model",
            "local-chat-completions",
            "--model_args",
            f"base_url={server.base_url}/chat/completions,model={STUB_MODEL},tokenizer_backend=None,seed=0",
            "--apply_chat_template",
            "--tasks",
            "causal_cladder_estimand",
            "--include_path",
            str(tasks_dir()),
            "--metadata",
            json.dumps({"hub_dir": str(hub)}),
            "--samples",
            json.dumps(lm_eval_samples("causal_cladder_estimand", selected, {"hub_dir": str(hub)})),
            "--output_path",
            str(tmp_path / "lm"),
            "--log_samples",
        ]
        subprocess.run(command, check=True, capture_output=True)
        lm_requests = list(server.requests)
        run_on_stub("cladder_pairs", server.base_url, hub, tmp_path / "cd", "--limit", str(LIMIT), "--concurrency", "1")
        cd_requests = server.requests[len(lm_requests) :]

    assert sorted(run_ids(tmp_path / "cd")) == sorted(selected)  # results.jsonl holds them in the order they finished
    by_messages = {json.dumps(r["messages"]): r for r in lm_requests}
    assert len(lm_requests) == len(by_messages) == LIMIT
    for row in rows:
        assert by_messages[json.dumps(row["prompt"])]["messages"] == row["prompt"]  # exactly the config's turns
    for request in cd_requests:  # the same body as the runner's but for an empty stop list (no stop sequence)
        assert by_messages[json.dumps(request["messages"])] == request | {"stop": []}
    assert cd_requests[0] == {
        "model": STUB_MODEL,
        "messages": rows[0]["prompt"],
        "temperature": 0.0,
        "max_tokens": 512,
        "seed": 0,
    }

    (samples_file,) = (tmp_path / "lm").glob("*/samples_causal_cladder_estimand_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    runner = {r["id"]: r for r in item_fields(tmp_path / "cd")}
    assert [s["doc"]["id"] for s in samples] == [row["id"] for row in rows]
    for sample in samples:
        reply = sample["resps"][0][0]
        assert reply == answers[sample["doc"]["prompt"][-1]["content"]]
        scores = score_answer(
            extract_estimand(reply), CladderQuestionRow.model_validate_json(sample["doc"]["question"])
        )
        ran = runner[sample["doc"]["id"]]
        assert (
            sample["accuracy"]
            == sample["identification_accuracy"]
            == float(scores["identified"] is True)
            == float(ran["identified"] is True)
        )  # both default to the identification rule
        assert sample["equivalence_accuracy"] == float(scores["equivalent"] is True) == float(ran["equivalent"] is True)
        assert (
            sample["string_match"]
            == float(scores["string_match"])
            == float(runner[sample["doc"]["id"]]["string_match"])
        )
    assert {s["accuracy"] for s in samples} == {0.0, 1.0} and {s["string_match"] for s in samples} == {0.0, 1.0}
    assert sum(s["equivalence_accuracy"] for s in samples) > sum(
        s["accuracy"] for s in samples
    )  # the restated quantities
    results = json.loads(next((tmp_path / "lm").glob("*/results_*.json")).read_text())["results"][
        "causal_cladder_estimand"
    ]
    assert results["accuracy,none"] == sum(s["accuracy"] for s in samples) / LIMIT


def test_the_yes_no_task_scores_each_reply_as_the_runner_does(hub, tmp_path):
    """``causal_cladder_yes_no`` and ``eval cladder_yes_no`` on the same stub replies (yes, no, or unreadable by
    the request): the same per-question correctness, and the mean as lm-eval's accuracy."""
    selected = selected_ids("cladder_yes_no", "--limit", str(LIMIT), "--model", STUB_MODEL, "--hub-dir", str(hub))
    loaded = datasets.load_dataset(str(hub / "cladder_pairs"), "yes_no_prompts", split="test")
    rows = [row for row in loaded if row["id"] in selected]
    replies = ("Answer: yes", "No, it does not.", "Maybe.")
    answers = {row["prompt"][-1]["content"]: replies[index % 3] for index, row in enumerate(rows)}
    metadata = {"hub_dir": str(hub)}
    with StubServer(replying(answers)) as server:
        samples_of = lm_eval_samples("causal_cladder_yes_no", selected, metadata)
        results, samples = in_process(
            ["causal_cladder_yes_no"], server.base_url, metadata, limit=None, samples=samples_of
        )
        run_on_stub("cladder_yes_no", server.base_url, hub, tmp_path / "cd", "--limit", str(LIMIT))
    runner = {r["id"]: r for r in item_fields(tmp_path / "cd")}
    scored = samples["causal_cladder_yes_no"]
    assert sorted(s["doc"]["id"] for s in scored) == sorted(runner) == sorted(selected) and len(rows) == LIMIT
    for sample in scored:
        ran = runner[sample["doc"]["id"]]
        assert sample["accuracy"] == float(ran["correct"]) and sample["answered"] == float(ran["answer"] is not None)
    assert {s["answered"] for s in scored} == {0.0, 1.0} and {s["accuracy"] for s in scored} == {0.0, 1.0}
    assert results["causal_cladder_yes_no"]["accuracy,none"] == pytest.approx(
        sum(r["correct"] for r in runner.values()) / LIMIT
    )


def test_the_group_runs_recast_and_cobe_on_their_prompts(hub):
    recast = prompts(hub, "recast", n=3, keep=lambda row: row["variant"] == 0)  # the standard variant
    cobe = prompts(hub, "cobe", n=3)
    references = {row["prompt"][-1]["content"]: row["reference"] for row in recast}
    half = {
        text: "```json\n"
        + json.dumps(
            {"relationships": [{"source": s, "sink": t} for s, t in list(parse_graph_answer(ref).graph.edges)[::2]]}
        )
        + "\n```"
        for text, ref in references.items()
    }
    answers = half | {cobe[0]["prompt"][-1]["content"]: "Alice bent down.", cobe[1]["prompt"][-1]["content"]: "  "}
    answers[recast[2]["prompt"][-1]["content"]] = "<think>no graph</think> Sorry."
    with StubServer(replying(answers)) as server:
        results, samples = in_process(["causal_reasoning"], server.base_url, {"hub_dir": str(hub)}, limit=3)
        sent = [r["messages"] for r in server.requests]
    assert len(sent) == 9
    for row in recast + cobe:
        assert row["prompt"] in sent
    assert [m["role"] for m in cobe[0]["prompt"]] == ["user"]
    assert [m["role"] for m in recast[0]["prompt"]] == ["system", "user"]

    graphs = samples["causal_recast_graph"]
    assert [s["doc"]["id"] for s in graphs] == [row["id"] for row in recast]
    for sample, row in zip(graphs[:2], recast, strict=False):
        reply = sample["resps"][0][0]
        normalized = compare_graphs(
            parse_graph_answer(reply).graph, parse_graph_answer(row["reference"]).graph, node_matching="normalized"
        )
        assert sample["parsed"] == 1.0 and sample["edge_f1"] == normalized.edge_f1 and sample["shd"] == normalized.shd
        assert 0 < sample["edge_f1"] < 1
    assert graphs[2]["parsed"] == 0.0 and "edge_f1" not in graphs[2]  # left out of the graph means, as the runner does
    assert results["causal_recast_graph"]["parsed,none"] == pytest.approx(2 / 3)
    assert results["causal_recast_graph"]["edge_f1,none"] == pytest.approx(
        (graphs[0]["edge_f1"] + graphs[1]["edge_f1"]) / 2
    )
    assert [s["nonempty"] for s in samples["causal_cobe_queries"]] == [1.0, 0.0, 1.0]
    cobe_doc = samples["causal_cobe_queries"][0]["doc"]
    assert cobe_doc["should_change"] and "latent_factors" in cobe_doc  # what a judge needs afterwards


def test_a_pushed_dataset_is_read_by_hub_id(hub, local_hub):
    push_folder(hub / "cladder_pairs", "org/cladder_pairs", api=HfApi(endpoint=local_hub.endpoint, token=TOKEN))
    version = json.loads((hub / "cladder_pairs" / "manifest.json").read_text())["version"]
    metadata = {"dataset": "org/cladder_pairs", "dataset_revision": f"v{version}"}
    with StubServer(replying(cladder_answers(hub))) as server:
        results, _ = in_process(["causal_cladder_estimand"], server.base_url, metadata, limit=2)
        equivalence, _ = in_process(
            ["causal_cladder_estimand"], server.base_url, metadata | {"scoring": "equivalence"}, limit=2
        )
        sent = [r["messages"] for r in server.requests]
    assert sent and all(row["prompt"] in sent for row in prompts(hub, "cladder_pairs", n=2))
    # item 0 answers the estimand; item 1 restates the asked quantity, which identifies nothing but is equal
    assert results["causal_cladder_estimand"]["accuracy,none"] == 0.5
    assert equivalence["causal_cladder_estimand"]["accuracy,none"] == 1.0
    with pytest.raises(RunConfigurationError, match="--metadata scoring must be one of equivalence, identification"):
        load_cladder_estimand(hub_dir=str(hub), scoring="strict")


@pytest.mark.parametrize(
    ("metadata", "error", "message"),
    [
        ({"hub_dir": "/nonexistent/hub"}, DatasetFolderError, "no built cladder_pairs dataset in /nonexistent/hub"),
        ({"hub_dir": "hub", "dataset": "org/cladder_pairs"}, RunConfigurationError, "not both"),
        ({"dataset": "cladder_pairs"}, RunConfigurationError, "Hub id ORG/NAME"),
        ({"dataset_revision": "v1.2.0"}, RunConfigurationError, "needs dataset=ORG/NAME"),
        ({"dataset": "org/cladder_pairs", "dataset_revision": 1.2}, RunConfigurationError, "must be a string"),
    ],
)
def test_bad_metadata_is_one_clear_error(metadata, error, message):
    with pytest.raises(error, match=message):
        location("cladder_pairs", {"model": STUB_MODEL, "base_url": "http://x", **metadata})  # model args come along


def test_a_missing_build_fails_when_lm_eval_loads_the_task(tmp_path):
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata={"hub_dir": str(tmp_path)})
    with pytest.raises(DatasetFolderError, match=f"causal-datasets build cladder_pairs --hub-dir {tmp_path}"):
        manager.load(["causal_cladder_estimand"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"apply_chat_template": False}, "--apply_chat_template"),
        ({"system_instruction": "Be brief."}, "--system_instruction"),
    ],
)
def test_requests_that_would_change_the_messages_are_refused(hub, options, message):
    with StubServer() as server, pytest.raises(RunConfigurationError, match=message):
        in_process(["causal_cladder_estimand"], server.base_url, {"hub_dir": str(hub)}, limit=1, **options)
    assert server.count == 0


@pytest.mark.llm
def test_parity_with_causal_datasets_eval_on_the_local_model(hub, local_llm, tmp_path):
    """Same model, items, max tokens and temperature 0: the same requests and, on the bundled model's
    replies recorded through ``causal-datasets eval`` and replayed to lm_eval (tests/support/replay.py),
    the same extracted expressions and verdicts."""
    tokens = 96
    respond, replies = recording(local_llm.base_url)
    with StubServer(respond, slots=1) as proxy:  # the one slot of the server behind it
        run_eval(
            "cladder_pairs",
            "--limit",
            "3",
            "--max-tokens",
            str(tokens),
            "--temperature",
            "0",
            "--model",
            local_llm.model,
            "--base-url",
            proxy.base_url,
            "--hub-dir",
            str(hub),
            "--out",
            str(tmp_path / "cd"),
            "--no-cache",
            "--concurrency",
            "1",
        )
        ours_sent = proxy.requests
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata={"hub_dir": str(hub)})
    with StubServer(replaying(replies)) as replay:
        lm = simple_evaluate(
            model="local-chat-completions",
            tasks=["causal_cladder_estimand"],
            task_manager=manager,
            model_args=f"base_url={replay.base_url}/chat/completions,model={local_llm.model},"
            "tokenizer_backend=None,seed=0,max_retries=1",
            apply_chat_template=True,
            samples=lm_eval_samples("causal_cladder_estimand", run_ids(tmp_path / "cd"), {"hub_dir": str(hub)}),
            log_samples=True,
            gen_kwargs={"max_gen_toks": tokens, "temperature": 0},
        )
        lm_sent = replay.requests
    assert sorted(map(conversation_key, lm_sent)) == sorted(map(conversation_key, ours_sent))
    runner = item_fields(tmp_path / "cd")
    samples = lm["samples"]["causal_cladder_estimand"]
    assert [r["id"] for r in runner] == [s["doc"]["id"] for s in samples]
    for item, sample in zip(runner, samples, strict=True):
        expression = extract_estimand(sample["resps"][0][0])
        verdict = score_answer(expression, CladderQuestionRow.model_validate_json(sample["doc"]["question"]))
        print(
            f"{item['id']}: expression {item['expression']!r} | {expression!r}; equivalent {item['equivalent']} | "
            f"{verdict['equivalent']}; error {item['error']} | {verdict['error']}; "
            f"same reply {item['raw'] == sample['resps'][0][0]}"
        )
        assert expression == item["expression"]
        assert (verdict["equivalent"], verdict["error"]) == (item["equivalent"], item["error"])
        assert sample["accuracy"] == float(item["equivalent"] is True)


def test_model_settings_pass_as_gen_kwargs_into_the_same_request_body(hub, tmp_path):
    """``gen_kwargs(LLMConfig)`` makes lm-eval's local-chat-completions send the body ``causal-datasets eval``
    sends with the same settings (reasoning effort and a server's own switch included), but for ``stop``."""
    thinking = {"chat_template_kwargs": {"enable_thinking": True}}
    config = LLMConfig(model=STUB_MODEL, max_tokens=64, temperature=0.3, reasoning_effort="high", extra_body=thinking)
    metadata = {"hub_dir": str(hub)}
    # the items the run below selects, which lm-eval runs too
    selected = selected_ids("cladder_pairs", "--limit", "2", "--model", STUB_MODEL, "--hub-dir", str(hub))
    rows = prompts(hub, "cladder_pairs", keep=lambda row: row["id"] in selected)
    with StubServer(replying(cladder_answers(hub, rows))) as server:
        in_process(
            ["causal_cladder_estimand"],
            server.base_url,
            metadata,
            limit=None,
            samples=lm_eval_samples("causal_cladder_estimand", selected, metadata),
            gen_kwargs=gen_kwargs(config),
        )
        lm_requests = list(server.requests)
        run_on_stub(
            "cladder_pairs",
            server.base_url,
            hub,
            tmp_path / "cd",
            "--limit",
            "2",
            "--max-tokens",
            "64",
            "--temperature",
            "0.3",
            "--reasoning-effort",
            "high",
            "--extra-body",
            json.dumps(thinking),
        )
        cd_requests = server.requests[len(lm_requests) :]
    assert sorted(run_ids(tmp_path / "cd")) == sorted(selected)  # results.jsonl holds them in the order they finished
    by_messages = {json.dumps(r["messages"]): r for r in lm_requests}
    assert len(cd_requests) == len(by_messages) == 2
    for request in cd_requests:
        assert by_messages[json.dumps(request["messages"])] == request | {"stop": []}
        assert (request["reasoning_effort"], request["chat_template_kwargs"], request["max_tokens"]) == (
            "high",
            {"enable_thinking": True},
            64,
        )
    assert gen_kwargs(LLMConfig(model="m", max_completion_tokens=4096))["max_gen_toks"] == 4096
