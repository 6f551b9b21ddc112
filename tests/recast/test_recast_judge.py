"""ReCAST LLM judge: label validation, retries and the scoring mechanics on hand-built YAML answers.

The expected scores are worked out by hand from the label → score table of the paper's scorer
(see the comments next to each figure), not taken from this code's output.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from causal_datasets.errors import LLM_CATEGORIES, LLMRequestError, LLMRetriesExhausted, LLMTimeout
from causal_datasets.graph import CausalGraph
from causal_datasets.recast.judge.answers import answer_schema
from causal_datasets.recast.judge.evaluate import aggregate, judge_graph
from causal_datasets.recast.judge.labels import LABEL_SCORES
from causal_datasets.recast.judge.prompts import judge_messages
from causal_datasets.recast.samples import make_sample
from tests.data.recast.helpers import ScriptedClient

SAMPLE = make_sample(
    id=7,
    title="t",
    source="MDPI",
    url="https://www.mdpi.com/2071-1050/1/1/1",
    publication_date=None,
    domains=["Economics & Public Policy"],
    nodes=[("Alpha", "explicit"), ("Beta", "implicit"), ("Gamma", "absent")],
    edges=[("Alpha", "Beta"), ("Beta", "Gamma")],
    input_text="Alpha raises Beta, and Beta in turn lowers Gamma.",
    abstract="",
)
PREDICTION = CausalGraph.from_edges([("Alpha", "Xi")])

# the judge's replies; a backslash ending a line continues it, so each YAML mapping stays on one line of the reply
NODE_PRECISION = """```yaml
node_precision_evaluations:
  - node_number: 1
    graph_evaluation: {presence_label: PRESENCE_STRONG_MATCH, semantic_label: SEMANTIC_STRONG, \
abstraction_label: ABSTRACTION_ALIGNED}
    text_evaluation: {presence_label: PRESENCE_STRONG_MATCH, semantic_label: SEMANTIC_MODERATE, \
abstraction_label: ABSTRACTION_ALIGNED}
  - node_number: 2
    graph_evaluation: {presence_label: PRESENCE_NO_MATCH, semantic_label: SEMANTIC_NA, \
abstraction_label: ABSTRACTION_NA}
    text_evaluation: {presence_label: PRESENCE_WEAK_MATCH, semantic_label: SEMANTIC_WEAK, \
abstraction_label: ABSTRACTION_BROADER}
```"""
NODE_RECALL = """<think>checking each node</think>
```yaml
node_recall_evaluations:
  - {node_number: 1, importance_label: IMPORTANCE_CORE, presence_label: PRESENCE_STRONG_MATCH, \
semantic_label: SEMANTIC_COMPLETE, abstraction_label: ABSTRACTION_ALIGNED}
  - {node_number: 2, importance_label: IMPORTANCE_INTERMEDIATE, presence_label: PRESENCE_WEAK_MATCH, \
semantic_label: SEMANTIC_PARTIAL, abstraction_label: ABSTRACTION_NARROWER}
  - {node_number: 3, importance_label: IMPORTANCE_PERIPHERAL, presence_label: PRESENCE_NO_MATCH, \
semantic_label: SEMANTIC_NA, abstraction_label: ABSTRACTION_NA}
```"""
EDGE_PRECISION = """```yaml
edge_precision_evaluations:
  - edge_number: 1
    graph_evaluation: {presence_label: PRESENCE_WEAK_MATCH, directionality_label: DIRECTION_REVERSED, \
abstraction_label: ABSTRACTION_BROADER}
    text_evaluation: {presence_label: PRESENCE_IMPLIED, inference_label: INFERENCE_STRETCHED, \
abstraction_label: ABSTRACTION_ALIGNED}
```"""
EDGE_RECALL = """```yaml
edge_recall_evaluations:
  - {edge_number: 2, importance_label: IMPORTANCE_AUXILIARY, presence_label: PRESENCE_NO_MATCH, \
directionality_label: DIRECTION_MISSING, abstraction_label: ABSTRACTION_NA}
  - {edge_number: 1, importance_label: IMPORTANCE_CENTRAL, presence_label: PRESENCE_STRONG_MATCH, \
directionality_label: DIRECTION_CORRECT, abstraction_label: ABSTRACTION_ALIGNED}
```"""
ANSWERS = {
    "NODE PRECISION": NODE_PRECISION,
    "NODE RECALL": NODE_RECALL,
    "EDGE PRECISION": EDGE_PRECISION,
    "EDGE RECALL": EDGE_RECALL,
}

# Hand computation (score table: STRONG/COMPLETE/ALIGNED/CORRECT 1, WEAK_MATCH/IMPLIED/MODERATE/
# PARTIAL/BROADER/NARROWER 1/2, WEAK/MINIMAL/REVERSED/STRETCHED 1/4; weights CORE/CENTRAL 1,
# INTERMEDIATE 1/2, PERIPHERAL/AUXILIARY 1/4):
# node precision: item 1 = max(1, (1+1/2+1)/3) = 1; item 2 = max(0, (1/2+1/4+1/2)/3 = 5/12) → (1 + 5/12)/2
NODE_P = (1 + Fraction(5, 12)) / 2
# node recall: correctness 1 (w 1), (1/2+1/2+1/2)/3 = 1/2 (w 1/2), 0 (w 1/4) → (1 + 1/4)/(7/4)
NODE_R = Fraction(5, 4) / Fraction(7, 4)
# edge precision: max((1/2+1/4+1/2)/3 = 5/12, (1/2+1/4+1)/3 = 7/12) = 7/12
EDGE_P = Fraction(7, 12)
# edge recall: 1 (w 1) and 0 (w 1/4) → 1/(5/4)
EDGE_R = Fraction(4, 5)
# overall: precision = (1 + 5/12 + 7/12)/3 items; recall = (3·NODE_R + 2·EDGE_R)/5 items
OVERALL_P = Fraction(2, 3)
OVERALL_R = (3 * NODE_R + 2 * EDGE_R) / 5


def f1(p: Fraction, r: Fraction) -> float:
    return float(2 * p * r / (p + r))


def by_task(messages: list[dict[str, str]]) -> str:
    task = messages[-1]["content"].rsplit("Evaluation to perform:", 1)[1]
    return next(answer for key, answer in ANSWERS.items() if key in task)


def test_label_table_is_the_papers():
    assert LABEL_SCORES["PRESENCE_GRAPH_ONLY"] == LABEL_SCORES["PRESENCE_EXPLICIT"] == 1.0
    assert LABEL_SCORES["DIRECTION_REVERSED"] == 0.25 and LABEL_SCORES["DIRECTION_UNCLEAR"] == 0.5
    assert LABEL_SCORES["IMPORTANCE_PERIPHERAL"] == LABEL_SCORES["IMPORTANCE_AUXILIARY"] == 0.25
    assert all(LABEL_SCORES[label] == 0.0 for label in LABEL_SCORES if label.endswith("_NA"))


def test_scores_of_hand_built_answers():
    judge = ScriptedClient(by_task)
    judgement = judge_graph(judge, SAMPLE, PREDICTION)
    scores = judgement.scores
    assert judgement.error is None and len(judge.calls) == 4
    assert scores["node_precision"] == pytest.approx(float(NODE_P))
    assert scores["node_recall"] == pytest.approx(float(NODE_R))
    assert scores["edge_precision"] == pytest.approx(float(EDGE_P))
    assert scores["edge_recall"] == pytest.approx(float(EDGE_R))
    assert scores["node_f1"] == pytest.approx(f1(NODE_P, NODE_R))
    assert scores["edge_f1"] == pytest.approx(f1(EDGE_P, EDGE_R))
    assert scores["precision"] == pytest.approx(float(OVERALL_P))
    assert scores["recall"] == pytest.approx(float(OVERALL_R))
    assert scores["f1"] == pytest.approx(f1(OVERALL_P, OVERALL_R))
    # per-item labels are kept for analysis, in item order
    recall_items = judgement.evaluations["edge_recall"].items
    assert [i["edge_number"] for i in recall_items] == [1, 2]
    assert recall_items[1]["directionality_label"] == "DIRECTION_MISSING" and recall_items[1]["weight"] == 0.25


def test_source_text_is_a_stable_prefix_across_the_four_evaluations():
    judge = ScriptedClient(by_task)
    judge_graph(judge, SAMPLE, PREDICTION)
    system = {call[0]["content"] for call in judge.calls}
    assert len(system) == 1
    users = [call[1]["content"] for call in judge.calls]
    prefix_end = users[0].index("<response_graph>")
    assert all(u[:prefix_end] == users[0][:prefix_end] for u in users)
    assert all(u.count(SAMPLE.input_text) == 1 for u in users)
    # a different prediction for the same sample shares the same prefix too
    other = judge_messages(SAMPLE, CausalGraph.from_edges([("Beta", "Gamma")]), "edge_recall")
    assert other[1]["content"][:prefix_end] == users[0][:prefix_end]


@pytest.mark.parametrize(
    "bad, problem",
    [
        (NODE_RECALL.replace("node_number: 3", "node_number: 4"), "exactly once"),
        (NODE_RECALL.replace("SEMANTIC_PARTIAL", "SEMANTIC_SOMEWHAT"), "semantic_label"),
        (
            NODE_RECALL.replace(
                "PRESENCE_NO_MATCH, semantic_label: SEMANTIC_NA", "PRESENCE_NO_MATCH, semantic_label: SEMANTIC_MINIMAL"
            ),
            "Not-Applicable",
        ),
        ("node_recall_evaluations: [unclosed", "YAML"),
    ],
)
def test_invalid_answers_are_rejected_and_retried(bad, problem):
    replies = iter([bad, NODE_RECALL])
    judge = ScriptedClient(
        lambda messages: next(replies) if "NODE RECALL" in messages[1]["content"] else by_task(messages)
    )
    judgement = judge_graph(judge, SAMPLE, PREDICTION)
    recall = judgement.evaluations["node_recall"]
    assert recall.attempts == 2 and recall.raw[0] == bad
    retry = next(call for call in judge.calls if len(call) > 2)
    assert problem in retry[-1]["content"]  # the re-ask says what was wrong
    assert judgement.scores["node_recall"] == pytest.approx(float(NODE_R))


def test_a_judge_that_never_complies_is_recorded_not_fatal():
    judge = ScriptedClient(
        lambda messages: "I cannot grade this." if "EDGE PRECISION" in messages[1]["content"] else by_task(messages)
    )
    judgement = judge_graph(judge, SAMPLE, PREDICTION, max_attempts=2)
    assert judgement.evaluations["edge_precision"].error and judgement.evaluations["edge_precision"].attempts == 2
    assert judgement.error == "judge_invalid: edge_precision"
    assert judgement.scores["edge_precision"] is None and judgement.scores["precision"] is None
    assert judgement.scores["node_precision"] == pytest.approx(float(NODE_P))  # the rest is kept
    assert judgement.scores["recall"] == pytest.approx(float(OVERALL_R))


@pytest.mark.parametrize(
    "reply, category",
    [
        ("I cannot grade this.", "no_block"),
        ("```yaml\nedge_precision_evaluations: [unclosed\n```", "parse"),
        ("```yaml\nedge_precision_evaluations: []\n```", "validation"),
    ],
)
def test_a_malformed_reply_is_an_answer_failure_with_its_category(reply, category):
    judge = ScriptedClient(lambda messages: reply if "EDGE PRECISION" in messages[1]["content"] else by_task(messages))
    judgement = judge_graph(judge, SAMPLE, PREDICTION, max_attempts=1)
    failed = judgement.evaluations["edge_precision"]
    assert failed.category == category and failed.error.startswith(category)
    assert not failed.transport_failed and judgement.transport_failure is None  # the judge answered: scored
    assert [e.category for e in judgement.evaluations.values()].count(None) == 3


@pytest.mark.parametrize(
    "error",
    [
        LLMRequestError("bad request", status=400, attempts=1),
        LLMRetriesExhausted("HTTP 503", kind="server_error", status=503, attempts=3),
        LLMTimeout("no reply", kind="timeout", attempts=3),
    ],
)
def test_a_transport_failure_is_typed_with_the_clients_category(error):
    def respond(messages):
        if "NODE RECALL" in messages[1]["content"]:
            raise error
        return by_task(messages)

    judgement = judge_graph(ScriptedClient(respond), SAMPLE, PREDICTION)
    failure = judgement.transport_failure
    assert failure is judgement.evaluations["node_recall"] and failure.transport_failed
    assert failure.category == error.category and failure.category in LLM_CATEGORIES
    assert failure.attempts == 1 and failure.rate is None
    assert judgement.scores["node_precision"] == pytest.approx(float(NODE_P))  # the other evaluations are kept


def test_empty_prediction_scores_zero_without_asking_about_it():
    judge = ScriptedClient(by_task)
    judgement = judge_graph(judge, SAMPLE, CausalGraph.from_edges([]))
    assert judgement.scores["node_precision"] == 0.0 and judgement.scores["edge_precision"] == 0.0
    assert len(judge.calls) == 2  # only the two recall evaluations need the judge


def test_schema_count_and_labels_are_case_tolerant_but_strict():
    schema = answer_schema("edge_recall", 1)
    ok = schema.model_validate(
        {
            "edge_recall_evaluations": [
                {
                    "edge_number": 1,
                    "importance_label": "importance_central",
                    "presence_label": "PRESENCE_WEAK_MATCH",
                    "directionality_label": "DIRECTION_UNCLEAR",
                    "abstraction_label": "ABSTRACTION_NA",
                }
            ]
        }
    )
    assert ok.items()[0].importance_label == "IMPORTANCE_CENTRAL"
    with pytest.raises(ValueError, match="only valid with PRESENCE_NO_MATCH"):
        schema.model_validate(
            {
                "edge_recall_evaluations": [
                    {
                        "edge_number": 1,
                        "importance_label": "IMPORTANCE_CENTRAL",
                        "presence_label": "PRESENCE_WEAK_MATCH",
                        "directionality_label": "DIRECTION_MISSING",
                        "abstraction_label": "ABSTRACTION_NA",
                    }
                ]
            }
        )


def test_aggregate_is_mean_and_sd_over_available_scores():
    summary = aggregate([{"f1": 0.2}, {"f1": 0.6}, {"f1": None}])
    assert summary["f1"] == pytest.approx(0.4) and summary["f1_sd"] == pytest.approx(0.2) and summary["f1_n"] == 2
    assert summary["precision"] is None and summary["precision_n"] == 0
