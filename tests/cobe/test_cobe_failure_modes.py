"""The seven fine-grained failure modes (CoBe App. B.1, Fig. 9): the judge's prompt and answer reading,
its agreement with twenty hand-labelled wrong rewrites (tests/data/cobe/failure_modes.json), and the
``--failure-modes`` breakdown of ``eval cobe``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causal_datasets.cobe.failure_modes import (
    FAILURE_MODES,
    INSTRUCTIONS,
    REASK,
    FailureCase,
    classification_messages,
    classify_failure,
    label_agreement,
    parse_mode,
)
from causal_datasets.cobe.prompts import CriteriaSet
from causal_datasets.cobe.records import CoBeQuery, CoBeResponse
from causal_datasets.hub.folder import load_records
from causal_datasets.llm.stub_server import StubReply, StubServer
from tests.data.recast.helpers import ScriptedClient
from tests.support.cobe_runs import build_cobe, run_cobe
from tests.support.runs import item_fields
from tests.support.stub_flags import stub_flags

LABELS = json.loads(
    (Path(__file__).parent.parent / "data" / "cobe" / "failure_modes.json").read_text(encoding="utf-8")
)["labels"]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return build_cobe(tmp_path_factory.mktemp("hub"))


@pytest.fixture(scope="module")
def cases(hub):
    """The hand-labelled responses as (case, mode), in file order."""
    queries = {q.id: q for q in load_records(hub / "cobe", "queries", "test", CoBeQuery)}
    responses = {r.id: r for r in load_records(hub / "cobe", "responses", "test", CoBeResponse)}
    labelled = []
    for label in LABELS:
        response = responses[label["response_id"]]
        query = queries[response.query_id]
        labelled.append((FailureCase(query.text, query.query, CriteriaSet.of(query), response.response), label["mode"]))
    return labelled


def test_the_hand_labels_cover_every_mode_and_only_published_wrong_rewrites(hub):
    responses = {r.id: r for r in load_records(hub / "cobe", "responses", "test", CoBeResponse)}
    assert len(LABELS) == 20 and len({label["response_id"] for label in LABELS}) == 20
    assert all(responses[label["response_id"]].verdict == "wrong" for label in LABELS)
    per_mode = {m.number: sum(label["mode"] == m.number for label in LABELS) for m in FAILURE_MODES}
    assert min(per_mode.values()) >= 2 and all(label["reason"] for label in LABELS)


def test_the_prompt_holds_the_case_and_all_seven_definitions(cases):
    case, _ = cases[0]
    (message,) = classification_messages(case)
    content = message["content"]
    assert (
        content.startswith(INSTRUCTIONS) and case.text in content and case.query in content and case.response in content
    )
    assert " ".join(case.criteria.should_not_change) in content and " ".join(case.criteria.should_change) in content
    for mode in FAILURE_MODES:
        assert f"{mode.number}. {mode.name}: {mode.definition}" in content
    assert [m.number for m in FAILURE_MODES] == list(range(1, 8)) and len({m.key for m in FAILURE_MODES}) == 7


@pytest.mark.parametrize(
    "answer, mode",
    [
        ("3", 3),
        ("Mode 5.", 5),
        ("**7**", 7),
        (" 1\n", 1),
        ("2 (correlation)", 2),
        ("1-7", None),
        ("8", None),
        ("12", None),
        ("none", None),
        ("3 or 4", None),
        ("", None),
        ("4" + " " * 300, None),
    ],
)
def test_parse_mode(answer, mode):
    assert parse_mode(answer) == mode


def test_an_invalid_answer_is_asked_again_in_the_same_conversation(cases):
    judge = ScriptedClient(["It is probably about connectors.", "Mode 6."])
    verdict = classify_failure(judge, cases[14][0])
    assert (verdict.mode, verdict.key, verdict.error) == (6, "wrong_causal_implication", None)
    assert judge.calls[1][1:] == [
        {"role": "assistant", "content": "It is probably about connectors."},
        {"role": "user", "content": REASK},
    ]
    stubborn = classify_failure(ScriptedClient(["no idea"] * 2), cases[0][0], max_attempts=2)
    assert (stubborn.mode, stubborn.error, stubborn.answers) == (None, "invalid_judge_answer", ["no idea"] * 2)


def test_agreement_with_the_hand_labels(cases):
    truth = [mode for _, mode in cases]
    oracle = ScriptedClient(lambda messages: str(next(m for c, m in cases if c.response in messages[0]["content"])))
    predicted = [classify_failure(oracle, case).mode for case, _ in cases]
    assert label_agreement(predicted, truth) == {
        "n": 20,
        "answered": 20,
        "accuracy": 1.0,
        "cohen_kappa": 1.0,
        "confusions": {},
    }
    always_three = [classify_failure(ScriptedClient(lambda messages: "3"), case).mode for case, _ in cases]
    constant = label_agreement(always_three, truth)
    # three of the twenty are mode 3; a constant judge agrees exactly as often as chance predicts: κ = 0
    assert constant["accuracy"] == pytest.approx(3 / 20) and constant["cohen_kappa"] == pytest.approx(0.0)
    assert constant["confusions"]["1→3"] == 3 and sum(constant["confusions"].values()) == 17
    assert label_agreement([None, 2], [1, 2])["answered"] == 1


def test_failure_modes_breakdown_of_a_run(hub, tmp_path):
    def respond(request, index):
        content = request["messages"][0]["content"]
        if content.startswith(INSTRUCTIONS):
            return StubReply(text="2" if len(content) % 2 else "5")  # two modes, by the case
        return StubReply(text="F" if "UNCHANGED" in content else "T")

    out = tmp_path / "run"
    with StubServer(respond) as server:
        summary = run_cobe(
            out,
            hub,
            "--config",
            "responses",
            "--models",
            "gpt",
            "phi4",
            "--limit",
            "6",
            "--failure-modes",
            *stub_flags(server.base_url, role="judge"),
        )
    results = item_fields(out)
    wrong = [r for r in results if r["verdict"] == "wrong" and r["response"].strip()]
    assert wrong and all(r["failure_mode"]["mode"] in (2, 5) for r in wrong)
    assert all("failure_mode" not in r for r in results if r["verdict"] != "wrong")
    table = summary.slices["by_failure_mode"]
    assert list(table) == [m.key for m in FAILURE_MODES]
    counts = {key: entry["n"] for key, entry in table.items() if entry["n"]}
    expected = {}
    for r in wrong:
        expected[r["failure_mode"]["key"]] = expected.get(r["failure_mode"]["key"], 0) + 1
    assert counts == expected and sum(entry["share"] for entry in table.values()) == pytest.approx(1.0)
    for model in {r["model"] for r in wrong}:
        assert sum(entry["model_share"][model] for entry in table.values()) == pytest.approx(1.0)
    # report draws Fig. 9 (failure modes per model) and Fig. 5 per model (E1–E5 rates from the judge)
    from causal_datasets.cli import main

    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0
    images = {p.name for p in (tmp_path / "report").glob("cobe-*.png")}
    assert {
        "cobe-wrong-rewrites-by-failure-mode-fig-9.png",
        "cobe-failure-rate-per-criterion-and-model-fig-5.png",
        "cobe-failure-rate-per-criterion-fig-5.png",
    } <= images
    assert "### By failure mode" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.llm
def test_the_local_model_as_failure_mode_judge_gives_a_mode_or_a_reason(local_llm, cases):
    judge = local_llm.client(max_tokens=8)
    ((case, mode),) = cases[:1]  # one call: the prompt with seven definitions is long for a one-thread server
    verdict = classify_failure(judge, case, max_attempts=1)
    assert (verdict.mode is None) == (verdict.error is not None) and len(verdict.answers) == 1
    assert verdict.mode is None or verdict.key == FAILURE_MODES[verdict.mode - 1].key
    assert label_agreement([verdict.mode], [mode])["answered"] == int(verdict.mode is not None)
