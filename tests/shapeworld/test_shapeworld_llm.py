"""A full ShapeWorld episode against the real local model (SmolLM2-135M-Instruct on llama.cpp)."""

import pytest

from causal_datasets.shapeworld.episode import ERROR_MODES
from tests.support.runs import item_fields, run_eval

pytestmark = pytest.mark.llm


def test_an_episode_with_the_local_model_completes_and_is_classified(local_llm, tmp_path):
    out = tmp_path / "run"
    argv = [
        "shapeworld",
        "--out",
        str(out),
        "--limit",
        "1",
        "--concurrency",
        "1",
        "--model",
        local_llm.model,
        "--base-url",
        local_llm.base_url,
        "--max-tokens",
        "48",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--hub-dir",
        str(tmp_path / "hub"),
    ]
    summary = run_eval(*argv)
    (item,) = item_fields(out)
    assert summary.metrics.count == 1 and summary.status == "complete"
    assert item["error"] in (None, *ERROR_MODES) and item["error"] != "llm_error", item["error_detail"]
    assert (item["prediction"] is None) == (item["error"] is not None)
    assert item["steps"] <= item["step_limit"]
    replies = [m for m in item["transcript"] if m["role"] == "assistant"]
    usage = summary.usage["model"]
    assert replies and usage.calls == len(replies) and usage.completion_tokens > 0
    assert summary.solver == f"model:{local_llm.model}"


def test_the_local_model_plays_a_themed_episode(local_llm, tmp_path):
    out = tmp_path / "animals"
    argv = [
        "shapeworld",
        "--out",
        str(out),
        "--limit",
        "1",
        "--entities",
        "animals",
        "--model",
        local_llm.model,
        "--base-url",
        local_llm.base_url,
        "--max-tokens",
        "24",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--hub-dir",
        str(tmp_path / "hub"),
    ]
    summary = run_eval(*argv)
    (item,) = item_fields(out)
    assert summary.status == "complete" and item["theme"] == "animals" and item["error"] != "llm_error"
    assert '{"animal": "", "action": ""}' in item["transcript"][1]["content"]
