"""Reasoning models through ``causal-datasets eval``: the reasoning settings given on the command line reach
every request, each item keeps its calls' reasoning apart from the replies (never sent back), the summary
counts reasoning and prompt-cache tokens and prices cached input, ``report`` shows example replies, and
``eval --help`` offers every role the options generated from ``LLMConfig``."""

from __future__ import annotations

import json
import threading

import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.cli import build_parser
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm.config import LLMConfig
from causal_datasets.llm.options import NOT_FLAGS
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.registry import get_builder
from causal_datasets.report.render import write_report
from causal_datasets.runners import tasks
from causal_datasets.runners.calls import full_messages
from causal_datasets.runners.results import read_results
from causal_datasets.shapeworld.task import TASK
from tests.shapeworld.test_shapeworld_runner import text_strategy_responder
from tests.support.runs import run_eval
from tests.support.stub_flags import stub_flags

ItemResult = TASK.result_model

THINKING = {"chat_template_kwargs": {"enable_thinking": True}}
LIMIT = 6


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build_to_folder(get_builder("shapeworld"), out, BuildContext(seed=0))
    return out


def thinking_model():
    """The strategy player as a reasoning model served the vLLM way: each reply carries a reasoning text of
    its own (``R<n>``) in both ``reasoning_content`` and ``reasoning`` (one trace, to be kept once) and usage
    details (7 reasoning tokens, 4 prompt tokens from the server's prompt cache)."""
    play = text_strategy_responder()
    sent: dict[str, str] = {}
    lock = threading.Lock()

    def respond(request, index):
        body = play(request, index).body
        marker = f"R{index}: the moving shapes tell me what to try next."
        body["choices"][0]["message"] |= {"reasoning_content": marker, "reasoning": marker}
        body["usage"] |= {
            "completion_tokens_details": {"reasoning_tokens": 7},
            "prompt_tokens_details": {"cached_tokens": 4},
        }
        with lock:
            sent[marker] = body["choices"][0]["message"]["content"]
        return StubReply(body=body)

    return respond, sent


@pytest.fixture(scope="module")
def reasoning_run(hub, tmp_path_factory):
    """``eval shapeworld --reasoning-effort high --extra-body '{chat_template_kwargs...}'`` against the stub."""
    out = tmp_path_factory.mktemp("runs") / "thinking"
    prices = out.parent / "prices.yaml"
    prices.write_text("stub:\n  prompt: 2.0\n  completion: 10.0\n  cache_read: 0.5\n")
    respond, sent = thinking_model()
    with StubServer(respond) as server:
        summary = run_eval(
            "shapeworld",
            *stub_flags(server.base_url),
            "--reasoning-effort",
            "high",
            "--extra-body",
            json.dumps(THINKING),
            "--prices",
            str(prices),
            "--limit",
            str(LIMIT),
            "--hub-dir",
            str(hub),
            "--out",
            str(out),
        )
        requests = list(server.requests)
    return out, summary, requests, sent


def test_both_settings_go_into_every_request(reasoning_run):
    _, summary, requests, _ = reasoning_run
    assert summary.status == "complete" and len(requests) > LIMIT  # several turns per episode
    for request in requests:
        assert (
            request["reasoning_effort"] == "high"
            and request["chat_template_kwargs"] == THINKING["chat_template_kwargs"]
        )


def test_each_item_keeps_its_calls_reasoning_apart_from_the_reply_and_never_sends_it_back(reasoning_run):
    out, summary, requests, sent = reasoning_run
    lines = [ItemResult.model_validate(line) for line in read_results(out)]
    calls = [call for line in lines for call in line.calls]
    assert len(lines) == LIMIT and all(line.calls for line in lines) and len(calls) == len(requests)
    for call in calls:
        assert call.role == "model" and call.model == "stub-model" and call.error is None
        assert call.reply == sent[call.reasoning]  # the reasoning the server sent with this very reply
        assert (call.reasoning_tokens, call.cache_read_tokens) == (7, 4)
    for line in lines:  # the transcript the benchmark keeps holds the replies, not the reasoning
        played = line.generation.transcript
        assert [c.reply for c in line.calls] == [t["content"] for t in played if t["role"] == "assistant"]
        assert full_messages(line.calls) == [played[:i] for i, t in enumerate(played) if t["role"] == "assistant"]
        assert all(c.continues == 1 and len(c.messages) == 1 for c in line.calls[1:])  # each keeps its new prompt
    conversation = json.dumps([request["messages"] for request in requests])
    assert "the moving shapes tell me" not in conversation


def test_the_summary_counts_reasoning_and_prompt_cache_tokens_and_prices_cached_input(reasoning_run):
    out, summary, requests, _ = reasoning_run
    usage, calls = summary.usage["model"], len(requests)
    assert (usage.calls, usage.reasoning_tokens, usage.cache_read_tokens) == (calls, 7 * calls, 4 * calls)
    assert summary.usage_total == usage
    assert usage.cost_usd == pytest.approx(calls * (6 * 2.0 + 4 * 0.5 + 5 * 10.0) / 1e6)  # 10 prompt tokens, 4 cached
    written = json.loads((out / "summary.json").read_text())["usage"]["model"]
    assert (written["reasoning_tokens"], written["cache_read_tokens"]) == (7 * calls, 4 * calls)


def test_the_report_shows_example_replies_with_their_reasoning(reasoning_run, hub, tmp_path):
    out, _, _, sent = reasoning_run
    oracle = tmp_path / "oracle"
    run_eval("shapeworld", "--agent", "oracle", "--limit", "2", "--hub-dir", str(hub), "--out", str(oracle))
    text = write_report([out, oracle], tmp_path / "report").read_text()
    examples = text.split("### Example replies", 1)[1].split("\n### ", 1)[0]
    first = ItemResult.model_validate(read_results(out)[0])
    assert f"item `{first.id}`" in examples and "(thinking)" in examples and "(oracle)" not in examples
    assert f"> reasoning: {first.calls[0].reasoning}" in examples and sent[first.calls[0].reasoning] in examples
    assert "7 of them reasoning" in examples


def test_eval_help_offers_each_declared_role_every_generated_option(capsys):
    """``eval recast --help`` has the options of its three roles, each generated from LLMConfig."""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "recast", "--help"])
    shown = capsys.readouterr().out
    fields = [name.replace("_", "-") for name in LLMConfig.model_fields if name not in NOT_FLAGS]
    for spec in tasks()["recast"].roles:
        for name in [*fields, "model-config", "prices"]:
            assert f"--{spec.flag}{name}" in shown
    assert "--judge-reasoning-effort {minimal,low,medium,high}" in shown and "--corrector-extra-body JSON" in shown
    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "shapeworld", "--help"])
    assert "--reasoning-effort" in capsys.readouterr().out.replace("--judge", "")
