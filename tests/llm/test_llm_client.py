"""LLMClient against a scripted local endpoint: retries, final errors, cache, usage, batches, API-key handling."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time

import pytest

from causal_datasets.llm import (
    LLMClient,
    LLMConfig,
    LLMConfigError,
    LLMError,
    LLMRequestError,
    LLMRetriesExhausted,
    LLMTimeout,
    ModelPrice,
    concurrency,
)
from causal_datasets.llm.config import DEFAULT_TIMEOUT, SINGLE_SLOT_TIMEOUT
from causal_datasets.llm.retry import Backoff, parse_retry_after
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body, echo
from causal_datasets.redaction import redact_url

FAST = {"backoff_base": 0.01, "backoff_max": 0.5, "timeout": 5.0}


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def client_for(server: StubServer, tmp_path=None, **overrides) -> LLMClient:
    config = LLMConfig(**{"model": "test-model", "base_url": server.base_url, **FAST, **overrides})
    return LLMClient(config, cache_path=tmp_path / "llm.sqlite" if tmp_path else None)


def scripted(*replies: StubReply):
    """Reply with ``replies`` in order, then echo."""

    def respond(request, index):
        return replies[index] if index < len(replies) else echo()(request, index)

    return respond


def test_chat_returns_text_tokens_and_model():
    with StubServer() as server, client_for(server) as client:
        result = client.chat(ask("two words"))
    assert result.text == "echo: two words"
    assert (result.prompt_tokens, result.completion_tokens) == (2, 3)
    assert result.model == "stub-model" and result.attempts == 1 and not result.cached
    assert server.requests[0]["model"] == "test-model"
    assert server.requests[0]["temperature"] == 0.0 and server.requests[0]["seed"] == 0


def test_rate_limit_retry_after_is_honoured_then_succeeds():
    with StubServer(scripted(StubReply(status=429, headers={"Retry-After": "0.3"}))) as server:
        with client_for(server) as client:
            result = client.chat(ask("hi"))
            usage = client.usage_summary()
    assert result.text == "echo: hi" and result.attempts == 2
    assert server.count == 2
    assert usage["retries"] == 1 and usage["http_requests"] == 2
    assert usage["retry_wait_s"] == pytest.approx(0.3)  # the server's wait, not the 0.01 s backoff


def test_server_errors_and_broken_bodies_are_retried():
    faults = (
        StubReply(status=500, text="boom"),
        StubReply(truncate=True),  # connection closed half-way through the body
        StubReply(body=b'{"choices": [{"message": '),  # complete HTTP response, JSON cut off
        StubReply(body={"object": "chat.completion"}),  # JSON without choices
        StubReply(status=503),
    )
    with StubServer(scripted(*faults)) as server, client_for(server, max_retries=5) as client:
        result = client.chat(ask("after five faults"))
    assert result.text == "echo: after five faults"
    assert result.attempts == 6 and server.count == 6


def test_client_error_is_not_retried_and_names_what_failed():
    reply = StubReply(status=400, body={"error": {"message": "unknown parameter: tempreature"}})
    with StubServer(lambda request, index: reply) as server, client_for(server) as client:
        with pytest.raises(LLMRequestError) as caught:
            client.chat(ask("x"))
    assert server.count == 1
    message = str(caught.value)
    assert "HTTP 400" in message and "test-model" in message and server.base_url in message
    assert "unknown parameter: tempreature" in message and "after 1 attempt" in message
    assert caught.value.category == "request_rejected"


def test_persistent_server_error_exhausts_retries():
    with StubServer(lambda request, index: StubReply(status=502)) as server:
        with client_for(server, max_retries=2) as client:
            with pytest.raises(LLMRetriesExhausted) as caught:
                client.chat(ask("x"))
            usage = client.usage_summary()
    assert server.count == 3
    assert caught.value.status == 502 and caught.value.attempts == 3 and caught.value.kind == "server_error"
    assert "after 3 attempts" in str(caught.value)
    assert usage["failed"] == 1 and usage["succeeded"] == 0


def test_slow_server_raises_timeout_after_retries():
    with StubServer(lambda request, index: StubReply(delay=1.0)) as server:
        with client_for(server, timeout=0.2, max_retries=1) as client:
            with pytest.raises(LLMTimeout) as caught:
                client.chat(ask("slow"))
    assert server.count == 2
    assert isinstance(caught.value, LLMRetriesExhausted) and caught.value.category == "timeout"


def test_connection_refused_is_a_typed_error():
    with StubServer() as server:
        url = server.base_url  # the port is free again once the server stops
    client = LLMClient(
        LLMConfig(model="m", base_url=url, max_retries=1, **{k: v for k, v in FAST.items() if k != "timeout"})
    )
    with pytest.raises(LLMRetriesExhausted) as caught:
        client.chat(ask("anyone?"))
    assert caught.value.kind == "connection" and caught.value.attempts == 2


def test_cached_rerun_sends_nothing(tmp_path):
    requests = [ask(f"question {i}") for i in range(6)]
    with StubServer() as server:
        with client_for(server, tmp_path) as first:
            answers = first.map(requests, concurrency=3)
        assert server.count == 6
        with client_for(server, tmp_path) as again:
            replay = again.map(requests, concurrency=3)
            usage = again.usage_summary()
        assert server.count == 6  # no HTTP request on the re-run
    assert [a.text for a in replay] == [a.text for a in answers]
    assert all(a.cached and a.attempts == 0 for a in replay)
    assert usage["cache_hits"] == 6 and usage["cache_misses"] == 0 and usage["http_requests"] == 0
    assert usage["cached_prompt_tokens"] == sum(a.prompt_tokens for a in answers)


def test_another_server_with_the_same_model_name_is_asked_not_answered_from_the_cache(tmp_path):
    with StubServer() as first, StubServer() as second:
        with client_for(first, tmp_path) as client:
            client.chat(ask("same"))
        with client_for(second, tmp_path) as client:
            assert not client.chat(ask("same")).cached
        assert (first.count, second.count) == (1, 1)


def test_credentials_in_the_base_url_never_reach_errors_logs_or_summaries(caplog):
    url = "http://user:s3cret@127.0.0.1:9/v1?token=abc"
    config = LLMConfig(model="m", base_url=url, max_retries=0, **{k: v for k, v in FAST.items() if k != "timeout"})
    assert config.endpoint == "http://127.0.0.1:9/v1"
    assert redact_url("https://[::1]:8443/v1?key=x#frag") == "https://[::1]:8443/v1"
    with caplog.at_level(logging.DEBUG), LLMClient(config) as client:
        with pytest.raises(LLMError) as caught:
            client.chat(ask("hi"))
        seen = [str(caught.value), repr(client), str(client.usage_summary()), caplog.text]
    assert not any("s3cret" in text or "token=abc" in text for text in seen)
    assert "http://127.0.0.1:9/v1" in str(caught.value)


def test_cache_key_covers_sampling_parameters(tmp_path):
    with StubServer() as server, client_for(server, tmp_path) as client:
        client.chat(ask("same"))
        client.chat(ask("same"), temperature=0.7)
        client.chat(ask("same"), max_tokens=7)
        client.chat(ask("same"), extra_body={"top_p": 0.5})
        client.chat(ask("same"))  # the only repeat
        assert server.count == 4
        assert server.requests[3]["top_p"] == 0.5
        assert client.usage_summary()["cache_hits"] == 1


def test_batch_keeps_finished_work_when_items_fail(tmp_path):
    def respond(request, index):
        if "bad" in request["messages"][-1]["content"]:
            return StubReply(status=500, text="always fails")
        return echo()(request, index)

    requests = [ask("good 1"), ask("bad 2"), ask("good 3"), ask("bad 4"), ask("good 5")]
    with StubServer(respond) as server:
        with client_for(server, tmp_path, max_retries=1) as client:
            outcomes = client.map(requests, concurrency=2)
        assert [type(o).__name__ for o in outcomes] == [
            "ChatResult",
            "LLMRetriesExhausted",
            "ChatResult",
            "LLMRetriesExhausted",
            "ChatResult",
        ]
        assert outcomes[2].text == "echo: good 3"  # input order kept
        sent = server.count
        assert sent == 3 + 2 * 2
        with client_for(server, tmp_path, max_retries=0) as client:
            client.map(requests, concurrency=2)
            usage = client.usage_summary()
        # the three good answers came from the cache; only the two failures were asked again
        assert server.count == sent + 2
        assert usage["cache_hits"] == 3 and usage["cache_writes"] == 0


def test_map_turns_bad_items_into_llm_errors():
    with StubServer() as server, client_for(server) as client:
        outcomes = client.map([ask("fine"), "not messages", [{"role": "user", "content": object()}]])
    assert outcomes[0].text == "echo: fine"
    assert isinstance(outcomes[1], LLMRequestError) and isinstance(outcomes[2], LLMRequestError)
    assert server.count == 1


def test_achat_runs_concurrently_within_the_limit():
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def respond(request, index):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.2)
        with lock:
            in_flight[0] -= 1
        return echo()(request, index)

    with StubServer(respond) as server, client_for(server, concurrency=3) as client:

        async def main():
            return await asyncio.gather(*(client.achat(ask(f"a{i}")) for i in range(7)))

        results = asyncio.run(main())
    assert [r.text for r in results] == [f"echo: a{i}" for i in range(7)]
    assert server.count == 7
    assert 2 <= peak[0] <= 3  # calls overlap, but never more than config.concurrency at once


def test_usage_totals_and_cost_from_price_table():
    with StubServer() as server:
        config = LLMConfig(model="test-model", base_url=server.base_url, **FAST)
        prices = {"test-model": ModelPrice(prompt=2.0, completion=10.0)}
        with LLMClient(config, prices=prices) as client:
            client.chat(ask("one two three"))
            client.chat(ask("four"))
            usage = client.usage_summary()
    assert usage["prompt_tokens"] == 4 and usage["completion_tokens"] == 6
    assert usage["cost_usd"] == pytest.approx((4 * 2.0 + 6 * 10.0) / 1e6)
    assert usage["calls"] == 2 and usage["unpriced_models"] == []


def test_api_key_is_sent_but_never_stored_or_logged(tmp_path, monkeypatch, caplog):
    secret = "sk-very-secret-value-123"
    monkeypatch.setenv("TEST_LLM_KEY", secret)
    caplog.set_level(logging.DEBUG)
    with StubServer(scripted(StubReply(status=500))) as server:  # one retry, so a warning is logged
        config = LLMConfig(model="test-model", base_url=server.base_url, api_key_env="TEST_LLM_KEY", **FAST)
        with LLMClient(config, cache_path=tmp_path / "c.sqlite") as client:
            result = client.chat(ask("keep it safe"))
            shown = repr(client) + repr(config) + config.model_dump_json() + str(client.usage_summary())
    assert result.text == "echo: keep it safe"
    assert [h.get("authorization") for h in server.request_headers] == [f"Bearer {secret}"] * 2
    assert "retrying" in caplog.text
    assert secret not in shown and secret not in caplog.text
    files = list(tmp_path.iterdir())
    assert files and all(secret.encode() not in path.read_bytes() for path in files)


def test_loopback_server_without_key_gets_a_placeholder(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with StubServer() as server:
        config = LLMConfig(model="m", base_url=server.base_url, api_key_env="NO_SUCH_KEY_VAR", **FAST)
        with LLMClient(config) as client:
            client.chat(ask("hello"))
    assert server.request_headers[0]["authorization"].startswith("Bearer ")


def test_missing_key_for_remote_server_is_a_config_error(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    remote = LLMConfig(model="m", base_url="https://llm.example.invalid/v1", api_key_env="NO_SUCH_KEY_VAR")
    with pytest.raises(LLMConfigError, match="NO_SUCH_KEY_VAR"):
        LLMClient(remote).chat(ask("x"))
    assert LLMConfig(model="m", base_url="http://localhost:1/v1", api_key_env="NO_SUCH_KEY_VAR").api_key()
    assert LLMConfig(model="m", base_url="http://[::1]:1/v1").is_loopback()
    assert not remote.is_loopback()


def test_config_rejects_bad_values():
    with pytest.raises(ValueError):
        LLMConfig(model="m", base_url="ftp://x")
    with pytest.raises(ValueError):
        LLMConfig(model="m", temperature=-1)
    with pytest.raises(ValueError):
        LLMConfig(model="")


def test_retry_after_parsing_and_backoff_growth():
    assert parse_retry_after({"Retry-After": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    backoff = Backoff(base=1.0, cap=5.0, seed=1)
    delays = [backoff.delay(n) for n in range(1, 6)]
    for n, delay in enumerate(delays, start=1):
        ceiling = min(5.0, 2 ** (n - 1))
        assert ceiling / 2 <= delay <= ceiling
    assert backoff.delay(1, retry_after=30.0) == 5.0  # capped
    assert Backoff(1.0, 5.0, seed=1).delay(3) == Backoff(1.0, 5.0, seed=1).delay(3)


def test_stub_completion_body_is_parsed_like_a_real_one():
    from causal_datasets.llm.client import parse_completion

    result = parse_completion(completion_body("x", prompt_tokens=3, completion_tokens=1), attempts=1)
    assert (result.text, result.prompt_tokens, result.completion_tokens, result.finish_reason) == ("x", 3, 1, "stop")
    for broken in ([], {"choices": []}, {"choices": [{"message": None}]}, {"choices": [{"message": {"content": 5}}]}):
        with pytest.raises(ValueError):
            parse_completion(broken)
    assert isinstance(LLMTimeout("d", kind="timeout"), LLMError)


def test_timeout_bounds_the_whole_request_not_each_read():
    """A server that trickles its reply a byte every 20 ms never trips a per-read timeout of 1 s."""
    with StubServer(lambda request, index: StubReply(text="slow", trickle=0.02)) as server:
        config = LLMConfig(model="m", base_url=server.base_url, timeout=1.0, max_retries=0, backoff_base=0.01)
        started = time.monotonic()
        with LLMClient(config) as client, pytest.raises(LLMTimeout):
            client.chat(ask("hi"))
        assert time.monotonic() - started < 1.0 + 1.0 + 1.5  # the deadline, one read timeout, slack


def test_a_reply_without_content_is_retried_and_never_cached(tmp_path):
    empty = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "stop"}]}
    replies = [StubReply(body=empty), StubReply(text="now a real answer")]
    with StubServer(lambda request, index: replies[min(index, 1)]) as server:
        with client_for(server, tmp_path) as client:
            assert client.chat(ask("hi")).text == "now a real answer"
        assert server.count == 2
        with client_for(server, tmp_path) as again:
            assert again.chat(ask("hi")).cached  # the good reply was cached, the empty one never
    reasoned_out = {"choices": [{"index": 0, "message": {"content": None}, "finish_reason": "length"}]}
    from causal_datasets.llm.client import parse_completion

    assert parse_completion(reasoned_out).text == ""  # the budget went to reasoning: empty, not broken


def test_odd_replies_become_valid_text_and_counts(tmp_path):
    body = (
        b'{"choices": [{"message": {"content": "bad \\ud800 surrogate"}, "finish_reason": "stop"}],'
        b' "usage": {"prompt_tokens": "many", "completion_tokens": -3}}'
    )  # a lone surrogate escape
    with StubServer(lambda request, index: StubReply(body=body)) as server, client_for(server, tmp_path) as client:
        result = client.chat(ask("hi"))
    assert result.text == "bad ? surrogate" and (result.prompt_tokens, result.completion_tokens) == (0, 0)
    result.text.encode("utf-8")  # writable by every writer


def test_a_single_slot_server_gets_one_request_at_a_time_and_the_cpu_timeout():
    """A server reporting one slot (serve-local, llama.cpp with --parallel 1): however many threads ask, one
    request is open at the server at a time, and without a --timeout the attempt may take 600 s."""
    with StubServer(echo(delay=0.05), slots=1) as server:
        with client_for(server, timeout=None) as client:
            outcomes = client.map([ask(f"question {n}") for n in range(6)], concurrency=4)
            assert client.server_slots() == 1 and client.timeout() == SINGLE_SLOT_TIMEOUT
    assert all(not isinstance(o, Exception) for o in outcomes) and server.count == 6
    assert server.peak_open == 1
    with StubServer(echo(delay=0.05)) as server:  # a server that says nothing: the usual limit, no gate
        with client_for(server, timeout=None) as client:
            client.map([ask(f"question {n}") for n in range(6)], concurrency=4)
            assert client.server_slots() is None and client.timeout() == DEFAULT_TIMEOUT
    assert server.peak_open > 1


def test_a_timed_out_request_is_sent_again_only_once_the_server_has_finished_it():
    """The first attempt times out while the one-slot server computes for 1.5 s more; the copy is sent only
    after that, so the server never has two copies (as llama.cpp finishes a request whose client left)."""
    replies = scripted(StubReply(text="late", delay=1.5))
    started: list[float] = []

    def respond(request, index):
        started.append(time.monotonic())
        return replies(request, index)

    with StubServer(respond, slots=1) as server:
        with client_for(server, timeout=0.3, max_retries=2) as client:
            result = client.chat(ask("slow first"))
    assert result.text.startswith("echo:") and result.attempts == 2 and server.count == 2
    assert server.peak_open == 1 and started[1] - started[0] >= 1.5


def test_progress_is_a_line_every_interval_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(concurrency, "PROGRESS_INTERVAL", 0.2)
    results = concurrency.map_concurrent(lambda n: time.sleep(0.15) or n, range(8), concurrency=2, desc="items")
    assert results == list(range(8))
    lines = capsys.readouterr().err.splitlines()  # capsys's stderr is no terminal
    assert 2 <= len(lines) <= 5 and all(
        re.fullmatch(r"items: \d of 8 done after \d+s(, about \d+s left)?", line) for line in lines
    ), lines
    concurrency.map_concurrent(lambda n: time.sleep(0.15), range(4), concurrency=2, progress=False)
    assert capsys.readouterr().err == ""  # progress=False: nothing at all


def test_reasoning_is_kept_apart_from_the_text_from_every_field_servers_use():
    from causal_datasets.llm.client import parse_completion

    deepseek = parse_completion(completion_body("Answer: yes", reasoning="First, X causes Y."))
    vllm = parse_completion(completion_body("Answer: yes", reasoning="First, X causes Y.", reasoning_field="reasoning"))
    inline = parse_completion(completion_body("<think>First, X causes Y.</think>\nAnswer: yes"))
    prefilled = parse_completion(completion_body("First, X causes Y.\n</think>\nAnswer: yes"))  # the reply to '<think>'
    for result in (deepseek, vllm, inline, prefilled):
        assert result.reasoning == "First, X causes Y."
    assert deepseek.text == vllm.text == "Answer: yes"  # the text is the content as sent
    assert inline.text == "<think>First, X causes Y.</think>\nAnswer: yes"
    both = parse_completion(completion_body("<think>inline</think> ok", reasoning="separate"))
    assert both.reasoning == "separate\n\ninline"
    echoed = parse_completion(completion_body("<think>First, X causes Y.</think> yes", reasoning="First, X causes Y."))
    assert echoed.reasoning == "First, X causes Y."  # a field repeating the inline trace is the same trace
    plain = parse_completion(completion_body("no thinking here", reasoning=""))
    assert plain.reasoning is None
    odd = completion_body("ok")
    odd["choices"][0]["message"] |= {"reasoning_content": {"not": "text"}, "reasoning": ["a", "list"]}
    assert parse_completion(odd).reasoning is None  # a field that is not text is not reasoning


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"reasoning_content": "X causes Y."}, "X causes Y."),  # DeepSeek, llama.cpp, older vLLM
        ({"reasoning": "X causes Y."}, "X causes Y."),  # Ollama, OpenRouter
        ({"reasoning_content": "X causes Y.", "reasoning": "X causes Y."}, "X causes Y."),  # vLLM: one trace, twice
        ({"reasoning_content": "X causes Y.\n", "reasoning": " X causes Y."}, "X causes Y."),  # the same once stripped
        ({"reasoning_content": "X causes Y.", "reasoning": "Y causes X."}, "X causes Y.\n\nY causes X."),  # two traces
    ],
)
def test_reasoning_is_stored_once_whichever_fields_the_server_fills(fields, expected):
    from causal_datasets.llm.client import parse_completion

    body = completion_body("Answer: yes")
    body["choices"][0]["message"] |= fields
    assert parse_completion(body).reasoning == expected


def test_reasoning_and_prompt_cache_counts_from_the_usage_details_odd_ones_count_zero():
    from causal_datasets.llm.client import parse_completion

    body = completion_body("x", prompt_tokens=100, completion_tokens=40, reasoning_tokens=30, cached_tokens=64)
    result = parse_completion(body)
    assert (result.reasoning_tokens, result.cache_read_tokens) == (30, 64)
    deepseek = completion_body("x", prompt_tokens=100)
    deepseek["usage"]["prompt_cache_hit_tokens"] = 80
    assert parse_completion(deepseek).cache_read_tokens == 80
    for details in (None, "lots", [], {"reasoning_tokens": "many", "cached_tokens": -1}, {"reasoning_tokens": 1e30}):
        odd = completion_body("x", prompt_tokens=5)
        odd["usage"] |= {"completion_tokens_details": details, "prompt_tokens_details": details}
        parsed = parse_completion(odd)
        assert (parsed.reasoning_tokens, parsed.cache_read_tokens, parsed.prompt_tokens) == (0, 0, 5)


def test_usage_and_cost_count_reasoning_and_price_cached_input_and_the_cache_keeps_reasoning(tmp_path):
    reply = StubReply(
        body=completion_body(
            "yes",
            reasoning="because",
            prompt_tokens=1000,
            completion_tokens=300,
            reasoning_tokens=250,
            cached_tokens=800,
        )
    )
    prices = {"test-model": ModelPrice(prompt=2.0, completion=10.0, cache_read=0.5)}
    with StubServer(lambda request, index: reply) as server:
        config = LLMConfig(model="test-model", base_url=server.base_url, **FAST)
        with LLMClient(config, cache_path=tmp_path / "llm.sqlite", prices=prices) as client:
            fresh = client.chat(ask("why?"))
            cached = client.chat(ask("why?"))
            usage = client.usage_summary()
        assert server.count == 1
    assert fresh.reasoning == cached.reasoning == "because" and cached.cached
    assert (cached.reasoning_tokens, cached.cache_read_tokens) == (250, 800)
    assert (usage["reasoning_tokens"], usage["cache_read_tokens"]) == (250, 800)  # the cache hit is not counted again
    assert (usage["cached_prompt_tokens"], usage["cached_completion_tokens"]) == (1000, 300)
    assert usage["cost_usd"] == pytest.approx((200 * 2.0 + 800 * 0.5 + 300 * 10.0) / 1e6)
    assert ModelPrice(prompt=2.0, completion=10.0).cost(1000, 300, 800) == pytest.approx(
        (1000 * 2.0 + 300 * 10.0) / 1e6
    )
    assert ModelPrice(prompt=1.0, completion=1.0, cache_read=0.0).cost(10, 0, 99) == 0.0  # at most every prompt token


def test_reasoning_settings_reach_the_request_and_the_cache_key(tmp_path):
    with StubServer() as server:
        thinking = {"chat_template_kwargs": {"enable_thinking": True}}
        with client_for(
            server, tmp_path, reasoning_effort="high", extra_body=thinking, max_completion_tokens=4096
        ) as client:
            client.chat(ask("hi"))
        with client_for(server, tmp_path) as plain:
            assert not plain.chat(ask("hi")).cached  # other settings, another cache entry
    first, second = server.requests
    assert first["reasoning_effort"] == "high" and first["chat_template_kwargs"] == {"enable_thinking": True}
    assert first["max_completion_tokens"] == 4096 and "max_tokens" not in first
    assert "reasoning_effort" not in second and second["max_tokens"] == 512


def test_a_response_body_over_the_size_limit_is_not_read(monkeypatch):
    """However long a model reasons, no more than the limit is read: the body is unusable and retried."""
    monkeypatch.setattr("causal_datasets.llm.client.MAX_RESPONSE_BYTES", 2_000)
    long_reply = StubReply(body=completion_body("ok", reasoning="hmm " * 2_000))
    with StubServer(lambda request, index: long_reply) as server, client_for(server, max_retries=1) as client:
        with pytest.raises(LLMRetriesExhausted) as caught:
            client.chat(ask("think hard"))
    assert caught.value.kind == "invalid_body" and "larger than 2000 bytes" in str(caught.value)
    assert server.count == 2
