"""A real local model (SmolLM2-135M through llama.cpp) plays a CausaLab episode to the end: whatever
it answers, the episode completes, every step is kept and the outcome is classified. It plays in
the observation-only regime with 4 prior records, so the regime reaches a real model's prompt."""

from __future__ import annotations

import pytest

from causal_datasets.cli import main
from causal_datasets.runners.results import read_summary
from tests.support.runs import item_fields

OUTCOMES = {"solved", "wrong_answer", "no_submission", "invalid_format", "llm_error", "agent_error"}


@pytest.mark.llm
def test_a_real_local_model_episode_runs_to_completion_and_is_classified(local_llm, tmp_path):
    out = tmp_path / "llm"
    code = main(
        [
            "eval",
            "causalab",
            "--config",
            "3nodes",
            "--limit",
            "1",
            "--model",
            local_llm.model,
            "--base-url",
            local_llm.base_url,
            "--max-tokens",
            "48",
            "--history",
            "1",
            "--max-turns",
            "1",
            "--reask",
            "0",
            "--no-cache",
            "--regime",
            "observation-only",
            "--prior-observations",
            "4",
            "--hub-dir",
            str(tmp_path / "hub"),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    (item,) = item_fields(out)
    assert item["outcome"] in OUTCOMES - {"agent_error", "llm_error"}
    assert len(item["steps"]) == 1 and all(step["raw"] for step in item["steps"])
    assert all(step["step"] is not None or step["parse_error"] for step in item["steps"])
    assert item["steps"][0]["event"]["kind"] in {"reading", "refused", "submission", "stopped", "invalid_step"}
    assert (item["regime"], item["prior_observations"], item["budget"], item["interventions_used"]) == (
        "observation-only",
        4,
        0,
        0,
    )
    system, opening = (message["content"] for message in item["steps"][0]["info"]["prompt"])
    assert opening.count("resonanceFreq=") == 4 and "cannot adjust the manipulator crystal" in system
    assert item["consistency"]["records"] == 4 + 1  # the records and the manipulator's one reading
    summary = read_summary(out)
    assert summary["usage"]["model"]["calls"] >= len(item["steps"])
    assert summary["metrics"]["count"] == 1
