"""``eval causalab --scaffold``: the paper's scaffolds by name, run against a stub model."""

from __future__ import annotations

import pytest

from causal_datasets.causalab.options import CausaLabOptions
from causal_datasets.causalab.prompts import VERIFICATION_PROMPT
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from tests.causalab.test_causalab_chat import step
from tests.support.runs import item_fields, run_eval
from tests.support.stub_flags import stub_flags


@pytest.mark.parametrize(
    ("flags", "verifies"),
    [([], False), (["--scaffold", "react-memory-verify"], True), (["--scaffold", "react-memory", "--verify"], True)],
)
def test_the_scaffold_decides_the_verification_step(tmp_path, flags, verifies):
    """A model that submits at once: the verify scaffold asks it to check its hypothesis after each
    submission (3 submissions, each followed by the check), the plain one never does."""
    with StubServer(lambda request, index: StubReply(body=completion_body(step("submit", prediction=1.0)))) as server:
        summary = run_eval(
            "causalab",
            "--config",
            "3nodes",
            "--limit",
            "1",
            "--hub-dir",
            str(tmp_path / "hub"),
            "--out",
            str(tmp_path / "run"),
            *flags,
            *stub_flags(server.base_url),
        )
        checks = [r for r in server.requests if r["messages"][-1]["content"] == VERIFICATION_PROMPT]
    assert summary.items.scored == 1
    (item,) = item_fields(tmp_path / "run")
    assert len(item["predictions"]) == 3
    assert len(checks) == (3 if verifies else 0)
    assert len(server.requests) == 3 + len(checks)


def test_explicit_verify_wins_and_old_settings_still_read():
    assert CausaLabOptions(scaffold="react-memory-verify").verifies()
    assert not CausaLabOptions().verifies()
    assert CausaLabOptions.model_validate({"verify": False, "scaffold": "react-memory-verify"}).verifies() is False
    assert CausaLabOptions.model_validate({"verify": False}).scaffold == "react-memory"  # a run before scaffolds
