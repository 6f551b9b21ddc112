"""The local model server's parts that need no model: the request parser, the KV cache's reuse, the repeat
penalty and the sampler (the server itself against the real model: tests/llm/test_llm_local.py)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from causal_datasets.llm.gguf_chat import REPEAT_LAST_N, REPEAT_PENALTY, penalize_repeats, reusable_prefix, sample
from causal_datasets.llm.local_server import DEFAULT_TEMPERATURE, BadRequest, completion_request

ASK = [{"role": "user", "content": "hi"}]


def test_a_request_gives_the_completion_arguments_with_llama_cpp_python_defaults():
    assert completion_request({"messages": ASK, "max_tokens": 5, "stop": "\n"}) == {
        "messages": ASK,
        "max_tokens": 5,
        "temperature": DEFAULT_TEMPERATURE,
        "seed": 0,
        "stop": ["\n"],
    }
    chosen = completion_request(
        {"messages": ASK, "max_completion_tokens": 7, "max_tokens": 5, "temperature": 0, "seed": 3}
    )
    assert (chosen["max_tokens"], chosen["temperature"], chosen["seed"], chosen["stop"]) == (7, 0.0, 3, [])


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({}, "messages"),
        ({"messages": []}, "messages"),
        ({"messages": ASK, "stream": True}, "streaming"),
        ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, "text content"),
        ({"messages": ASK, "stop": [1]}, "stop"),
        ({"messages": ASK, "max_tokens": "5"}, "max_tokens"),
        ({"messages": ASK, "seed": True}, "seed"),
        ({"messages": ASK, "temperature": "hot"}, "temperature"),
    ],
)
def test_an_unusable_request_is_a_bad_request_that_says_why(body, said):
    with pytest.raises(BadRequest, match=said):
        completion_request(body)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.sampled_from(["messages", "stream", "stop", "max_tokens", "max_completion_tokens", "seed", "temperature"])


@given(st.dictionaries(FIELDS, JSON, max_size=6) | JSON)
def test_any_json_body_is_parsed_or_refused_as_a_bad_request(body):
    try:
        parsed = completion_request(body)
    except BadRequest:
        return
    assert isinstance(parsed["temperature"], float) and all(isinstance(s, str) for s in parsed["stop"])


def test_the_repeat_penalty_is_llama_cpp_s_over_the_last_generated_tokens():
    logits = torch.tensor([2.0, -1.0, 3.0, 0.5])
    penalized = penalize_repeats(logits, [0, 1, 0])
    assert penalized.tolist() == pytest.approx([2.0 / REPEAT_PENALTY, -1.0 * REPEAT_PENALTY, 3.0, 0.5])
    assert logits.tolist() == [2.0, -1.0, 3.0, 0.5]  # the input is left alone
    # only the window of the last REPEAT_LAST_N generated tokens counts
    assert penalize_repeats(logits, [3] + [0] * REPEAT_LAST_N)[3] == 0.5


def test_temperature_0_is_greedy_and_a_seeded_draw_repeats_and_keeps_to_the_likely_tokens():
    logits = torch.tensor([0.5, 4.0, 3.9, -8.0])
    assert sample(logits, 0.0, torch.Generator()) == 1
    draws = [sample(logits, 1.0, torch.Generator().manual_seed(seed)) for seed in range(200)]
    assert draws == [sample(logits, 1.0, torch.Generator().manual_seed(seed)) for seed in range(200)]
    assert set(draws) == {1, 2}  # token 0 is under min-p (5% of the most likely one's probability), 3 far under


def test_the_local_server_reuses_only_whole_batches_of_the_prompt_before():
    """What the local server takes from its KV cache: whole batches of the shared prefix, never the whole
    prompt (the last token would then be evaluated alone: other bits in the logits)."""
    assert reusable_prefix([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 9, 9], batch=2) == 4
    assert reusable_prefix([1, 2, 3, 4], [1, 2, 3, 4], batch=2) == 2  # the same prompt again
    assert reusable_prefix([1, 2, 3, 4, 5], [1, 2, 3, 4], batch=4) == 0
    assert reusable_prefix([], [1, 2, 3], batch=1) == 0 and reusable_prefix([7], [1, 2], batch=1) == 0
