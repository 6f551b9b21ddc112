"""The client against the real local model (SmolLM2-135M-Instruct served by ``serve-local``), via the ``local_llm``
fixture."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from pydantic import BaseModel

from causal_datasets.cladder_pairs.estimand_task import build_messages
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.local import MODEL_ALIAS, find_gguf
from causal_datasets.llm.structured import ask_structured
from causal_datasets.llm.stub_server import StubServer, forward_to
from tests.support.builds import small_cladder_build

pytestmark = pytest.mark.llm

#: seconds a step of these tests may take on a loaded machine (the model shares 2 cores with other work)
LOADED = 900


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def test_gguf_is_found_in_the_installed_wheel():
    path = find_gguf()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000  # a real 135M-parameter model file
    assert path.read_bytes()[:4] == b"GGUF"


#: CLadder questions, each after one asked before it: llama-cpp-python's own server answered each of them
#: otherwise when asked again right away (12 of 25 questions asked twice in a row changed their reply)
REPEATED = [
    ("test-generate-easy.json-235", "test-generate-easy.json-364"),
    ("test-generate-hard.json-578", "test-generate-hard.json-703"),
    ("test-generate-anti.json-361", "test-generate-anti.json-506"),
]


@pytest.fixture(scope="module")
def questions(tmp_path_factory):
    hub = small_cladder_build(tmp_path_factory.mktemp("hub"))
    return {q.id: q for q in DatasetLocation(hub_dir=hub).load("cladder_pairs", "questions").records}


def test_the_same_request_gets_the_same_reply_after_another_one(local_llm, questions):
    """Temperature 0, seed 0, no cache: a request asked again right after itself, having first come after
    another one, gets the same reply. llama-cpp-python reused the KV cache of the prompt before and evaluated
    only the rest (for a repeated prompt: its last token), which moved the last bits of the logits; the local
    server reuses whole batches only and evaluates every prompt in the batches a fresh evaluation makes."""
    with local_llm.client(max_tokens=512) as client:
        for before, question in REPEATED:
            client.chat(build_messages(questions[before]))
            first = client.chat(build_messages(questions[question])).text
            again = client.chat(build_messages(questions[question])).text
            assert again == first, question


def test_chat_reports_text_and_token_usage(local_llm):
    with local_llm.client(max_tokens=12) as client:
        result = client.chat(ask("Name one colour."))
        usage = client.usage_summary()
    assert result.text.strip()
    assert result.model == MODEL_ALIAS and result.attempts == 1
    assert result.prompt_tokens > 5 and 0 < result.completion_tokens <= 12
    assert result.finish_reason in ("stop", "length")
    assert usage["prompt_tokens"] == result.prompt_tokens and usage["completion_tokens"] == result.completion_tokens
    assert usage["http_requests"] == 1


def test_batch_with_concurrency_keeps_order(local_llm):
    prompts = [ask(f"Repeat this number: {n}") for n in range(4)]
    with local_llm.client(max_tokens=8, concurrency=3) as client:
        outcomes = client.map(prompts)
        usage = client.usage_summary()
    assert all(not isinstance(o, Exception) for o in outcomes), outcomes
    assert usage["succeeded"] == 4 and usage["completion_tokens"] == sum(o.completion_tokens for o in outcomes)
    # the same prompt alone gives the same greedy reply as inside the concurrent batch: order is kept
    with local_llm.client(max_tokens=8) as client:
        assert client.chat(prompts[2]).text == outcomes[2].text


def test_second_run_is_served_from_cache_without_http(local_llm, tmp_path):
    prompts = [ask(f"Say hello to person number {n}.") for n in range(3)]
    with StubServer(forward_to(local_llm.base_url), slots=1) as proxy:  # counts every request on its way to llama.cpp
        config = LLMConfig(model=local_llm.model, base_url=proxy.base_url, max_tokens=8)
        with LLMClient(config, cache_path=tmp_path / "llm.sqlite") as first:
            fresh = first.map(prompts, concurrency=2)
        assert proxy.count == 3
        with LLMClient(config, cache_path=tmp_path / "llm.sqlite") as second:
            replay = second.map(prompts, concurrency=2)
            usage = second.usage_summary()
        assert proxy.count == 3  # not one request reached the server
    assert [r.text for r in replay] == [r.text for r in fresh]
    assert all(r.cached for r in replay)
    assert usage["cache_hits"] == 3 and usage["http_requests"] == 0
    assert usage["cached_completion_tokens"] == sum(r.completion_tokens for r in fresh)


def test_async_calls(local_llm):
    with local_llm.client(max_tokens=8, concurrency=2) as client:

        async def main():
            return await asyncio.gather(*(client.achat(ask(f"Count to {n}")) for n in (1, 2, 3)))

        results = asyncio.run(main())
    assert len(results) == 3 and all(r.completion_tokens > 0 for r in results)


def test_a_request_the_server_cannot_serve_gets_a_400_that_says_why(local_llm):
    """A prompt over the context window (as llama.cpp's servers say it, so the client classifies it as an
    overflow) and a streaming request; the prompt is counted by the server's own tokenizer."""
    url = f"{local_llm.base_url}/chat/completions"
    too_long = httpx2.post(url, json={"messages": ask("word " * 5000), "max_tokens": 1}, timeout=LOADED)
    streaming = httpx2.post(url, json={"messages": ask("hi"), "stream": True}, timeout=LOADED)
    assert too_long.status_code == 400 and "exceed context window of 4096" in too_long.json()["error"]["message"]
    assert streaming.status_code == 400 and "streaming" in streaming.json()["error"]["message"]
    root = local_llm.base_url.removesuffix("/v1")
    tokens = httpx2.post(f"{root}/tokenize", json={"content": "word " * 5000}, timeout=LOADED).json()["tokens"]
    assert len(tokens) > 4096


class Verdict(BaseModel):
    answer: str


def test_structured_answer_from_the_tiny_model_ends_classified(local_llm):
    question = ask('Is the sky blue? Reply only with JSON like {"answer": "yes"}.')
    with local_llm.client(max_tokens=24) as client:
        answer = ask_structured(
            client, question, schema=Verdict, max_attempts=2, format_hint='a JSON object {"answer": "<text>"}'
        )
    # whatever the 135M model writes, the outcome is a validated value or a classified failure
    assert 1 <= answer.attempts <= 2 and len(answer.raw) == answer.attempts
    if answer.ok:
        assert isinstance(answer.value, Verdict)
    else:
        assert answer.error_kind in ("no_block", "parse", "validation")


def test_serve_local_command_prints_the_url_and_stops_on_ctrl_c():
    command = [sys.executable, "-m", "causal_datasets.cli", "serve-local"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first_line, usage = process.stdout.readline(), process.stdout.readline()
        base_url = first_line.split(" at ")[-1].strip()
        assert first_line.startswith(f"serving {MODEL_ALIAS} at http://127.0.0.1:")
        assert usage.startswith(f"use: --model {MODEL_ALIAS} --base-url {base_url} --concurrency 1 --timeout 600")
        assert httpx2.get(f"{base_url}/models", timeout=LOADED).json()["data"][0]["id"] == MODEL_ALIAS
        assert httpx2.get(f"{base_url.removesuffix('/v1')}/props", timeout=LOADED).json()["total_slots"] == 1
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=LOADED) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    with pytest.raises(httpx2.TransportError):
        httpx2.get(f"{base_url}/models", timeout=2)


ORPHAN = """
import os
from causal_datasets.llm.local import LocalServer
print(LocalServer().start()._process.pid, flush=True)
os._exit(0)  # vanish without stopping the server, like a killed test run
"""


def test_server_does_not_outlive_a_killed_parent():
    pid = int(
        subprocess.run(
            [sys.executable, "-c", ORPHAN], capture_output=True, text=True, timeout=LOADED, check=True
        ).stdout
    )
    stat = Path(f"/proc/{pid}/stat")
    for _ in range(int(LOADED / 0.1)):
        if not stat.exists() or stat.read_text().split(")")[-1].split()[0] == "Z":
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"the local model server {pid} kept running after its parent died")
