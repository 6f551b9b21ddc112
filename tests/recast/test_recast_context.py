"""ReCAST samples too long for the model are their own excluded category, and the assistant prefill.

The context window comes from ``--context-window`` (or the server); a sample whose prompt does not
fit is excluded before any request is sent, and a server's own "maximum context length" refusal
is classified the same way. ``--prefill '<think>'`` (the paper's base-model case study) sends the
prefill as the start of the reply and puts it back in front of what the server returns.
"""

from __future__ import annotations

import json

import pytest

from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.context import estimate_tokens, is_context_overflow, window_from_listing, window_from_props
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.recast.release import read_release
from tests.data.recast.helpers import run_recast_eval
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields
from tests.support.stub_flags import stub_flags

RELEASE = SHARED_DATA_DIR / "recast" / "test.parquet"
SHORT, LONG = 91, 54  # 684 and 38,115 characters of text


@pytest.fixture(scope="module")
def samples():
    return {s.id: s for s in read_release(RELEASE).samples}


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return tmp_path_factory.mktemp("hub")  # the recast build is made by the first run and shared


def graph_answer(sample) -> str:
    edges = [{"source": e.source, "sink": e.target} for e in sample.edges]
    return "```json\n" + json.dumps({"relationships": edges}) + "\n```"


def argv(server, tmp_path, hub, *extra):
    return [
        *stub_flags(server.base_url),
        "--max-tokens",
        "64",
        "--hub-dir",
        str(hub),
        "--source",
        str(RELEASE),
        "--ids",
        str(SHORT),
        str(LONG),
        "--out",
        str(tmp_path / "run"),
        "--concurrency",
        "1",
        *extra,
    ]


def test_a_sample_over_the_window_is_excluded_before_any_request(tmp_path, samples, hub):
    with StubServer(lambda request, index: StubReply(text=graph_answer(samples[SHORT]))) as server:
        summary = run_recast_eval(argv(server, tmp_path, hub, "--context-window", "1500"))
        sent = [m["content"] for r in server.requests for m in r["messages"]]
    assert not any(samples[LONG].input_text in content for content in sent)  # never sent
    results = {r["id"]: r for r in item_fields(tmp_path / "run")}
    excluded = results[str(LONG)]
    assert (
        excluded["status"] == "scored" and excluded["error"] == "context_exceeded" and excluded["deterministic"] is None
    )
    context = excluded["context"]
    assert (context["limit"], context["limit_from"], context["counted_by"], context["fits"]) == (
        1500,
        "flag",
        "estimate",
        False,
    )
    assert (
        context["prompt_tokens"] + context["reserved"] > 1500
        and "exceed the context window of 1500" in excluded["error_detail"]
    )
    assert results[str(SHORT)]["context"]["fits"] is True
    metrics = summary.metrics
    assert (metrics.count, metrics.excluded, metrics.generation["context_exceeded"], metrics.generation["ok"]) == (
        2,
        1,
        1,
        1,
    )
    assert (
        summary.status == "complete" and metrics.deterministic["exact"]["n"] == 1
    )  # the excluded sample is in no mean


def test_a_server_refusing_the_length_is_an_excluded_sample_not_a_failure(tmp_path, samples, hub):
    def respond(request, index):
        if samples[LONG].input_text[:200] in request["messages"][-1]["content"]:
            return StubReply(
                status=400,
                text="This model's maximum context length is 4096 tokens. However, you requested 4600 tokens.",
            )
        return StubReply(text=graph_answer(samples[SHORT]))

    with StubServer(respond) as server:
        summary = run_recast_eval(argv(server, tmp_path, hub, "--max-retries", "0"))
    results = {r["id"]: r for r in item_fields(tmp_path / "run")}
    assert results[str(LONG)]["error"] == "context_exceeded" and results[str(LONG)]["status"] == "scored"
    assert results[str(LONG)]["context"]["limit"] is None  # the stub reports no window: not checked before
    assert summary.metrics.excluded == 1 and summary.items.failed == 0


def test_prefill_is_sent_as_the_start_of_the_reply_and_kept_in_the_answer(tmp_path, samples, hub):
    reply = "reasoning about the text</think>\n" + graph_answer(samples[SHORT])
    with StubServer(lambda request, index: StubReply(text=reply)) as server:
        run_recast_eval(argv(server, tmp_path, hub, "--prefill", "<think>", "--ids", str(SHORT)))
        request = server.requests[0]
    assert request["messages"][-1] == {"role": "assistant", "content": "<think>"}
    (result,) = item_fields(tmp_path / "run")
    assert result["raw_answer"] == "<think>" + reply
    assert result["error"] is None and result["deterministic"]["exact"]["edge_f1"] == 1.0


def test_a_reply_that_already_repeats_the_prefill_is_not_doubled():
    with StubServer(lambda request, index: StubReply(text="<think> a </think> b")) as server:
        client = LLMClient(LLMConfig(model="m", base_url=server.base_url, prefill="<think>"))
        assert client.chat([{"role": "user", "content": "q"}]).text == "<think> a </think> b"


def test_context_windows_as_servers_report_them():
    assert window_from_listing({"data": [{"id": "m", "max_model_len": 32768}]}, "m") == 32768  # vLLM
    assert (
        window_from_listing({"data": [{"id": "a", "context_length": 8}, {"id": "m", "context_length": 128000}]}, "m")
        == 128000
    )
    assert window_from_listing({"data": [{"id": "only", "top_provider": {"context_length": 200000}}]}, "m") == 200000
    assert window_from_listing({"data": [{"id": "a"}, {"id": "b", "context_length": 9}]}, "m") is None  # not this model
    assert (
        window_from_listing({"data": [{"id": "m", "meta": {"n_ctx_train": 8192}}]}, "m") is None
    )  # training length only
    assert window_from_props({"default_generation_settings": {"n_ctx": 4096}}) == 4096  # llama.cpp
    with StubServer() as server:  # the stub lists its model without a window: unknown, nothing checked
        client = LLMClient(LLMConfig(model="stub-model", base_url=server.base_url))
        assert client.context_window() == (None, None)
        assert client.check_context([{"role": "user", "content": "x" * 400}]).fits is None


def test_context_overflow_refusals_are_recognised():
    from causal_datasets.errors import LLMRequestError

    refusal = LLMRequestError("This model's maximum context length is 4096 tokens.", status=400)
    assert is_context_overflow(refusal)
    assert is_context_overflow(LLMRequestError("the request exceeds the available context size", status=400))
    assert not is_context_overflow(LLMRequestError("invalid model", status=400))
    assert not is_context_overflow(LLMRequestError("maximum context length", status=500))


@pytest.mark.llm
def test_the_local_server_counts_the_prompt_and_excludes_the_long_sample(local_llm, tmp_path, hub, samples):
    from causal_datasets.recast.prompts import build_messages

    out = tmp_path / "run"
    summary = run_recast_eval(
        [
            "--model",
            local_llm.model,
            "--base-url",
            local_llm.base_url,
            "--context-window",
            "4096",
            "--max-tokens",
            "16",
            "--no-cache",
            "--hub-dir",
            str(hub),
            "--source",
            str(RELEASE),
            "--ids",
            str(LONG),
            "--out",
            str(out),
        ]
    )
    (result,) = item_fields(out)
    context = result["context"]
    assert result["error"] == "context_exceeded" and (context["counted_by"], context["fits"]) == ("server", False)
    assert summary.metrics.excluded == 1 and summary.usage["model"].calls == 0  # nothing was sent to the chat endpoint
    client = local_llm.client(context_window=4096, max_tokens=16)
    short = client.check_context(build_messages(samples[SHORT]))
    assert (short.counted_by, short.limit, short.fits) == ("server", 4096, True)
    # the server's tokenizer and the 4-characters-per-token estimate agree within a factor of two on English prose
    estimate = estimate_tokens(build_messages(samples[SHORT]))
    assert estimate / 2 < short.prompt_tokens < estimate * 2 and short.prompt_tokens != estimate
