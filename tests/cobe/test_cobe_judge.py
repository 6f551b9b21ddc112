"""CoBe judge: prompts rendered exactly as printed in the paper, T/F parsing and re-asks, scoring and agreement."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import evaluate
import pytest

from causal_datasets.agreement import agreement
from causal_datasets.cobe.judge import INVALID_ANSWER, combine, judge_all, judge_criterion, judge_response, parse_tf
from causal_datasets.cobe.prompts import (
    CHANGED,
    CONNECTORS,
    CRITERIA,
    REASK,
    UNCHANGED,
    CriteriaSet,
    applicable_criteria,
    judge_messages,
)
from causal_datasets.cobe.scoring import summarize
from causal_datasets.llm import LLMRequestError
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.paths import metric_path
from tests.support.data import SHARED_DATA_DIR

PAPER = SHARED_DATA_DIR.parent / "seeds" / "003_8c42ceddf8fde06d.txt"
RECORDED = json.loads(
    (Path(__file__).parent.parent / "data" / "cobe" / "judge_answers.json").read_text(encoding="utf-8")
)
MARKERS = {
    "E1": "facts that should be UNCHANGED",
    "E2": "effects that should be CHANGED",
    "E3": "Every causal connector",
    "E4": "expected NUMERICAL change",
    "E5": "latent conditions that should stay FIXED",
}


def paper_prompts() -> dict[str, str]:
    """The judge prompts of the paper's appendix C.2, with the Markdown escapes and hard breaks undone."""
    text = PAPER.read_text(encoding="utf-8")
    section = text[text.index("### C.2 LLM-Judge prompts") : text.index("## C.3 Human Agreement")]
    parts = re.split(r"^### (Q\d): .*$", section, flags=re.M)
    unescape = lambda s: re.sub(r" +\n", "\n", s.replace("\\$", "$").replace("\\_", "_")).strip()  # noqa: E731
    return {parts[i]: unescape(parts[i + 1]) for i in range(1, len(parts), 2)}


def test_templates_are_the_papers_prompts_verbatim():
    printed = paper_prompts()
    assert printed["Q0"] == CONNECTORS.template
    assert printed["Q1"] == UNCHANGED.template
    assert printed["Q2"] == CHANGED.template


def test_rendering_substitutes_only_the_placeholders():
    criterion = next(c for c in CRITERIA if c.code == "E2")
    messages = judge_messages(criterion, "The brakes failed. Revenue hit $150 million.", "Costs were $5.")
    assert messages == [
        {
            "role": "user",
            "content": (
                "Short examples (your entire output is exactly one letter):\n\n"
                "Effects that should be CHANGED - criterion says brakes failed and car hit wall; rewrite has brakes "
                "engaged and car safe → T\n\n"
                'Criterion (effects that should be CHANGED):\n"The brakes failed. Revenue hit $150 million."\n\n'
                "For each claim: T only if changed or removed in the rewrite, "
                "F if it still holds as in the original.\n\n"
                "Your entire reply must be exactly one character: T if the criterion passes for that question type, "
                "F if it fails.\n\nRewrite:\nCosts were $5."
            ),
        }
    ]
    connectors = judge_messages(CRITERIA[2], "", "So it rained.")[0]["content"]
    assert connectors.startswith('Criterion: "Every causal connector') and connectors.endswith(
        "Rewrite:\nSo it rained."
    )
    for criterion in CRITERIA:  # every prompt ends with the one-character rule and the rewrite
        content = judge_messages(criterion, "X happened.", "R")[0]["content"]
        assert "$" not in content and content.endswith("F if it fails.\n\nRewrite:\nR")


def test_only_the_criteria_a_row_has_are_asked():
    codes = lambda c: [criterion.code for criterion, _ in applicable_criteria(c)]  # noqa: E731
    assert codes(CriteriaSet(("a",), ("b",))) == ["E1", "E2", "E3"]
    assert codes(CriteriaSet((), ("b",), ("n",), ("l",))) == ["E2", "E3", "E4", "E5"]
    assert applicable_criteria(CriteriaSet(("a.", "b."), ("c",)))[0][1] == "a. b."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("T", True),
        ("F", False),
        (" t\n", True),
        ("F.", False),
        ("**T**", True),
        ('"F"', False),
        ("True", True),
        ("TF", None),
        ("Yes", None),
        ("T because the facts hold", None),
        ("", None),
    ],
)
def test_parse_tf(answer, expected):
    assert parse_tf(answer) is expected


@dataclass
class Reply:
    text: str


class ScriptedJudge:
    """Replays the recorded answers: which response (the text after 'Rewrite:'), which criterion
    (a phrase of its prompt) and which attempt (user turns so far) pick the answer."""

    def __init__(self, items):
        self.answers = {item["response"]: item["answers"] for item in items}
        self.calls = []

    def chat(self, messages):
        self.calls.append(messages)
        prompt = messages[0]["content"]
        code = next(code for code, marker in MARKERS.items() if marker in prompt)
        attempt = sum(1 for m in messages if m["role"] == "user") - 1
        return Reply(self.answers[prompt.rsplit("Rewrite:\n", 1)[1]][code][attempt])


def test_invalid_answers_are_reasked_in_the_same_conversation():
    judge = ScriptedJudge([{"response": "R", "answers": {"E3": ["Sure, T.", "T"]}}])
    verdict = judge_criterion(judge, "E3", judge_messages(CRITERIA[2], "", "R"))
    assert (verdict.passed, verdict.answers, verdict.error) == (True, ["Sure, T.", "T"], None)
    assert judge.calls[1][1:] == [{"role": "assistant", "content": "Sure, T."}, {"role": "user", "content": REASK}]

    judge = ScriptedJudge([{"response": "R", "answers": {"E3": ["yes", "no", "maybe"]}}])
    verdict = judge_criterion(judge, "E3", judge_messages(CRITERIA[2], "", "R"), max_attempts=3)
    assert (verdict.passed, verdict.error, len(judge.calls)) == (None, INVALID_ANSWER, 3)


def test_a_failed_call_is_classified_not_raised():
    class Down:
        def chat(self, messages):
            raise LLMRequestError("HTTP 400", model="j", base_url="http://127.0.0.1:1/v1")

    judgement = judge_response(Down(), CriteriaSet(("a",), ("b",)), "R")
    assert judgement.verdict == "unknown"
    assert {c.error for c in judgement.criteria} == {"judge_" + LLMRequestError.category}
    assert judge_response(Down(), CriteriaSet(("a",), ("b",)), "  ").verdict == "wrong"  # empty: no call needed


def test_combine():
    assert combine([True, True]) == "correct"
    assert combine([True, None, False]) == "wrong"
    assert combine([True, None]) == "unknown"
    assert combine([]) == "unknown"


def test_recorded_answers_score_as_computed_by_hand():
    items = RECORDED["items"]
    judge = ScriptedJudge(items)
    judgements = judge_all(
        judge, [CriteriaSet.of(i["reference"]) for i in items], [i["response"] for i in items], concurrency=1
    )
    assert [j.verdict for j in judgements] == ["correct", "wrong", "wrong", "unknown"]
    assert len(judge.calls) == 3 + 5 + 4 + 5  # r2 re-asks E4 once, r4 asks E2 three times
    refs = [i["reference"] for i in items]
    result = summarize(
        [
            j.scored(domain=r["domain"], graph_type=r["graph_type"] or None, phrasing=r["phrasing"])
            for j, r in zip(judgements, refs, strict=True)
        ]
    )
    # by hand: 1 correct of 4; E1 fails r2 (1/4); E2 fails r3, r4 unresolved (1/3); E3 fails r3 (1/4);
    # E4 only r2, passed after a re-ask (0/1); E5 only r3, passed (0/1)
    assert (result["n"], result["correct"], result["wrong"], result["unknown"], result["accuracy"]) == (
        4,
        1,
        2,
        1,
        0.25,
    )
    assert result["failure_rate"] == {"E1": 0.25, "E2": 1 / 3, "E3": 0.25, "E4": 0.0, "E5": 0.0}
    assert result["criteria"]["E2"] == {"rows": 4, "judged": 3, "failed": 1, "unresolved": 1, "failure_rate": 1 / 3}
    assert {k: v["accuracy"] for k, v in result["by_domain"].items()} == {
        "Engineering": 0.0,
        "Health and Medicine": 0.5,
    }
    assert {k: v["n"] for k, v in result["by_graph_type"].items()} == {"(not given)": 1, "chain": 1, "fork": 2}
    assert {k: v["accuracy"] for k, v in result["by_phrasing"].items()} == {"A": 0.5, "B": 0.0, "C": 0.0}


def test_agreement_reproduces_the_papers_judge_figures():
    # App. C.3: N = 100, 23 disagreements of which 21 false negatives (judge "wrong", humans
    # "correct") and 2 false positives; precision 95.8% then gives TP = 46, so TN = 31.
    predicted = ["correct"] * 46 + ["correct"] * 2 + ["wrong"] * 21 + ["wrong"] * 31
    reference = ["correct"] * 46 + ["wrong"] * 2 + ["correct"] * 21 + ["wrong"] * 31
    result = agreement(predicted, reference)
    assert (result["tp"], result["fp"], result["fn"], result["tn"]) == (46, 2, 21, 31)
    assert result["accuracy"] == pytest.approx(0.77)
    assert result["precision"] == pytest.approx(0.958, abs=5e-4)
    assert result["recall"] == pytest.approx(0.687, abs=5e-4)
    assert result["f1"] == pytest.approx(0.80, abs=5e-3)
    # κ by hand: p_o = 0.77; p_e = 0.48·0.67 + 0.52·0.33 = 0.4932; κ = 0.2768 / 0.5068 = 0.5462 (paper: 0.55)
    assert result["cohen_kappa"] == pytest.approx(0.2768 / 0.5068, abs=1e-9)
    assert round(result["cohen_kappa"], 2) == 0.55


def test_agreement_small_hand_example_and_exclusions():
    # pairs (ours, reference): (c,c) (c,w) (w,w) (w,w) (w,c) (c,c); unknown pairs left out
    predicted = ["correct", "correct", "wrong", "wrong", "wrong", "correct", "unknown", "correct"]
    reference = ["correct", "wrong", "wrong", "wrong", "correct", "correct", "correct", "unknown"]
    result = agreement(predicted, reference)
    assert (result["n"], result["excluded"]) == (6, 2)
    # p_o = 4/6; ours 3/6 correct, reference 3/6 correct → p_e = 0.5; κ = (2/3 − 1/2)/(1/2) = 1/3
    assert result["cohen_kappa"] == pytest.approx(1 / 3)
    assert agreement(["correct"] * 3, ["correct"] * 3)["cohen_kappa"] is None  # undefined, not 1 or 0
    with pytest.raises(ValueError, match="3 predicted verdicts but 2"):
        agreement(["correct"] * 3, ["correct"] * 2)


def test_evaluate_module_judges_through_an_openai_compatible_endpoint():
    items = RECORDED["items"]

    def respond(request, index):
        messages = request["messages"]
        prompt = messages[0]["content"]
        code = next(code for code, marker in MARKERS.items() if marker in prompt)
        answers = next(i["answers"] for i in items if prompt.endswith("Rewrite:\n" + i["response"]))
        return StubReply(text=answers[code][sum(1 for m in messages if m["role"] == "user") - 1])

    metric = evaluate.load(metric_path("cobe_edit_criteria"), keep_in_memory=True)
    with StubServer(respond) as server:
        result = metric.compute(
            predictions=[i["response"] for i in items],
            references=[i["reference"] for i in items],
            judge_model="stub-judge",
            judge_base_url=server.base_url,
            concurrency=2,
            judge_config={
                "reasoning_effort": "low",
                "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
                "max_tokens": 32,
            },  # further settings, winning over judge_max_tokens
            reference_verdicts=["correct", "correct", "wrong", "wrong"],
            rater_verdicts=[
                ["correct", "wrong", "wrong", "wrong"],
                ["correct", "correct", "wrong", "wrong"],
                ["wrong", "wrong", "wrong", "correct"],
            ],
        )
        assert server.count == 17
        assert {
            (r["reasoning_effort"], r["max_tokens"], r["chat_template_kwargs"]["enable_thinking"])
            for r in server.requests
        } == {("low", 32, False)}
    assert result["accuracy"] == 0.25 and result["failure_rate"]["E2"] == pytest.approx(1 / 3)
    assert [item["verdict"] for item in result["items"]] == ["correct", "wrong", "wrong", "unknown"]
    assert result["items"][3]["criteria"][1]["answers"] == ["maybe", "yes", "no"]
    assert result["agreement"]["n"] == 3 and result["agreement"]["excluded"] == 1
    # the strict majority of the three raters is correct, wrong, wrong, wrong: the judge matches all but the unknown
    majority = result["raters"]["predicted_vs_majority"]
    assert result["raters"]["items"] == 4 and (majority["n"], majority["accuracy"], majority["excluded"]) == (3, 1.0, 1)
    assert result["judge_usage"]["calls"] == 17
    with pytest.raises(ValueError, match="judge_model"):
        metric.compute(predictions=["x"], references=[items[0]["reference"]])
