"""The evaluate module metrics/causal_graph_metrics, loaded by absolute path like a user would."""

from __future__ import annotations

import evaluate
import pyarrow.parquet as pq
import pytest

from causal_datasets import compare_graph_batch
from causal_datasets.paths import metric_path
from tests.support.data import SHARED_DATA_DIR


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(metric_path("causal_graph_metrics"), keep_in_memory=True)


def edges(*pairs: str) -> list[dict[str, str]]:
    return [dict(zip(("source", "target"), pair.split(">"), strict=True)) for pair in pairs]


def test_dict_edges_give_averages_and_per_item_lists(metric):
    predictions = [edges("a>b", "c>b", "a>d"), edges("x>y")]
    references = [edges("a>b", "b>c", "c>d"), edges("x>y")]
    result = metric.compute(predictions=predictions, references=references, reversal_cost=1, node_matching="exact")
    assert result["count"] == 2
    assert result["per_item"]["shd"] == [3, 0]  # missing c→d, extra a→d, reversed b→c
    assert result["per_item"]["reversed"] == [1, 0]
    assert result["per_item"]["warnings"] == [[], []]
    assert result["per_item"]["edge_f1"] == pytest.approx([1 / 3, 1.0])
    assert result["edge_f1"] == pytest.approx((1 / 3 + 1) / 2)
    assert result["shd"] == pytest.approx(1.5)
    assert result["micro"]["edge_precision"] == pytest.approx(2 / 4)
    assert result["normalization"] == "node_pairs" and result["reversal_cost"] == 1
    cost_two = metric.compute(predictions=predictions, references=references, reversal_cost=2)
    assert cost_two["per_item"]["shd"] == [4, 0]


def test_arrow_strings_and_options(metric):
    result = metric.compute(
        predictions=[["Interest rates -> investment", "investment → GDP"]],
        references=[["Interest rate -> Investment", "Investment -> GDP"]],
        node_matching="normalized",
        normalization="reference_edges",
    )
    assert result["edge_f1"] == 1.0 and result["shd"] == 0.0
    exact = metric.compute(predictions=[["Interest rates -> investment"]], references=[["Interest rate -> Investment"]])
    assert exact["edge_f1"] == 0.0 and exact["node_f1"] == 0.0


def test_integer_ids_for_the_name_assisted_task(metric):
    result = metric.compute(
        predictions=[[{"source": 1, "target": 2}, {"source": 3, "target": 2}]],
        references=[edges("supply>price", "demand>price")],
        node_matching="ids",
        node_ids=[{1: "supply", 2: "price", 3: "demand"}],
    )
    assert result["edge_f1"] == 1.0


def test_an_unreadable_item_scores_the_worst_and_stays_in_the_average(metric):
    result = metric.compute(predictions=[["a - b"], ["a -> b"]], references=[["a -> b"], ["a -> b"]])
    assert result["count"] == 2 and result["unparsable"] == 1
    assert result["per_item"]["edge_f1"] == [0.0, 1.0] and result["edge_f1"] == 0.5
    assert result["per_item"]["shd"] == [2, 0]  # both ordered pairs of the reference's two nodes
    assert (
        result["per_item"]["warnings"][0][0].startswith("unparsable prediction")
        and result["per_item"]["warnings"][1] == []
    )
    assert result["errors"][0]["index"] == 0 and "not of the form" in result["errors"][0]["message"]


def test_a_missing_prediction_scores_no_better_than_an_empty_one(metric):
    """The issue's case: None used to leave the average (edge_f1 1.0) while [] gave 0.5."""
    references = [["A -> B"], ["C -> D"]]
    missing = metric.compute(predictions=[["A -> B"], None], references=references)
    empty = metric.compute(predictions=[["A -> B"], []], references=references)
    assert missing["edge_f1"] == empty["edge_f1"] == 0.5 and missing["shd"] > empty["shd"]
    assert (missing["unparsable"], empty["unparsable"]) == (1, 0)
    assert [e["index"] for e in missing["errors"]] == [1]


def test_recast_release_through_the_module_matches_the_library(metric):
    rows = pq.read_table(SHARED_DATA_DIR / "recast" / "test.parquet", columns=["edges"]).to_pylist()
    references = [row["edges"] for row in rows]
    predictions = [
        graph[: len(graph) // 2] + [{"source": e["target"], "target": e["source"]} for e in graph[len(graph) // 2 :]]
        for graph in references
    ]
    result = metric.compute(predictions=predictions, references=references, reversal_cost=2)
    library = compare_graph_batch(predictions, references, reversal_cost=2)
    assert result["count"] == 292
    assert result["per_item"]["shd"] == [item.shd for item in library.items]
    assert result["edge_f1"] == pytest.approx(library.macro["edge_f1"])
    assert 0.0 < result["edge_f1"] < 1.0
    self_compare = metric.compute(predictions=references, references=references)
    assert self_compare["edge_f1"] == 1.0 and self_compare["shd"] == 0.0


def test_one_call_compute_skips_arrow_and_gives_what_evaluates_own_path_gives(metric):
    """``compute(predictions=..., references=...)`` goes straight to ``_compute`` (BatchMetric); the
    incremental path (``add_batch`` then ``compute()``) goes through Arrow: the results are equal."""
    rows = pq.read_table(SHARED_DATA_DIR / "recast" / "test.parquet", columns=["edges"]).to_pylist()[:40]
    references = [row["edges"] for row in rows]
    predictions = [
        graph[::2] + [{"source": e["target"], "target": e["source"]} for e in graph[1::4]] for graph in references
    ]
    direct = metric.compute(predictions=predictions, references=references, reversal_cost=2, node_matching="normalized")
    metric.add_batch(predictions=predictions[:25], references=references[:25])
    metric.add_batch(predictions=predictions[25:], references=references[25:])
    through_arrow = metric.compute(reversal_cost=2, node_matching="normalized")
    assert direct == through_arrow and direct["count"] == 40


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"predictions": [["a -> b"]], "references": [["a -> b"], ["b -> c"]]}, "Mismatch in the number of inputs"),
        ({"predictions": "a -> b", "references": "a -> b"}, "predictions must be a list"),
        ({"predictions": [], "references": []}, "empty batch"),
        (
            {"predictions": [["a -> b"]], "references": [["a -> b"]], "reversal_cost": 7},
            "reversal_cost must be a number within 1..2",
        ),
        ({"predictions": [["a -> b"]], "references": [["a - b"]]}, r"references\[0\]"),
    ],
)
def test_one_call_compute_refuses_inputs_evaluate_refuses(metric, inputs, message):
    with pytest.raises(ValueError, match=message):
        metric.compute(**inputs)
