"""compare_graphs / compare_graph_batch on hand-computed cases, every input format, node matching, batches."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from causal_datasets import CausalGraph, GraphError, compare_graph_batch, compare_graphs
from causal_datasets.scoring.graph_compare import RATE_FIELDS, maximal_shd, unparsable_comparison
from causal_datasets.scoring.node_matching import match_nodes, normalize_name, singular

# reference a→b→c→d; prediction keeps a→b, reverses b→c, drops c→d, adds a→d
REFERENCE = [("a", "b"), ("b", "c"), ("c", "d")]
PREDICTION = [("a", "b"), ("c", "b"), ("a", "d")]


def test_hand_computed_every_field_cost_1():
    result = compare_graphs(PREDICTION, REFERENCE)
    assert (result.true_positives, result.false_positives, result.false_negatives) == (1, 2, 2)
    assert (result.reversed, result.missing, result.extra) == (1, 1, 1)
    assert result.shd == 3  # missing c→d + extra a→d + reversed b→c
    assert result.edge_precision == pytest.approx(1 / 3)
    assert result.edge_recall == pytest.approx(1 / 3)
    assert result.edge_f1 == pytest.approx(1 / 3)
    assert (result.node_precision, result.node_recall, result.node_f1) == (1.0, 1.0, 1.0)
    assert (result.node_true_positives, result.node_false_positives, result.node_false_negatives) == (4, 0, 0)
    assert result.normalization == "node_pairs"
    assert result.normalizer == 12  # n(n-1) with n = 4
    assert result.normalized_shd == pytest.approx(3 / 12)
    assert result.node_mapping == {"a": "a", "b": "b", "c": "c", "d": "d"}
    assert result.warnings == []


def test_reversal_cost_2_and_reference_edge_normalization():
    result = compare_graphs(PREDICTION, REFERENCE, reversal_cost=2, normalization="reference_edges")
    assert result.shd == 4
    assert result.normalizer == 3
    assert result.normalized_shd == pytest.approx(4 / 3)
    assert result.reversal_cost == 2


def test_reversed_three_cycle():
    cycle = [("a", "b"), ("b", "c"), ("c", "a")]
    backwards = [("b", "a"), ("c", "b"), ("a", "c")]
    one = compare_graphs(backwards, cycle)
    two = compare_graphs(backwards, cycle, reversal_cost=2)
    assert (one.true_positives, one.reversed, one.missing, one.extra) == (0, 3, 0, 0)
    assert (one.shd, two.shd) == (3, 6)
    assert one.edge_f1 == 0.0 and one.node_f1 == 1.0


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [
        # (tp, fp, fn, reversed, shd with cost 1, shd with cost 2)
        ([("a", "b")], [("a", "b"), ("b", "a")], (1, 0, 1, 0, 1, 1)),  # one side of a 2-cycle missing
        ([], [("a", "b"), ("b", "a")], (0, 0, 2, 0, 2, 2)),  # each direction is its own edge
        ([("a", "b"), ("b", "a")], [("a", "b")], (1, 1, 0, 0, 1, 1)),  # a predicted 2-cycle: one extra
        ([("b", "a")], [("a", "b"), ("b", "a")], (1, 0, 1, 0, 1, 1)),  # b→a is right, not reversed
        ([("a", "a"), ("b", "a")], [("a", "a"), ("a", "b")], (1, 1, 1, 1, 1, 2)),  # self-loop kept
        ([("a", "b")], [("a", "a"), ("a", "b")], (1, 0, 1, 0, 1, 1)),  # missing self-loop
        ([("a", "a")], [("a", "a")], (1, 0, 0, 0, 0, 0)),
    ],
)
def test_two_cycles_and_self_loops(prediction, reference, expected):
    one = compare_graphs(prediction, reference)
    two = compare_graphs(prediction, reference, reversal_cost=2)
    counts = (one.true_positives, one.false_positives, one.false_negatives, one.reversed)
    assert (*counts, one.shd, two.shd) == expected
    assert one.missing + one.extra + one.reversed == one.shd


def test_empty_graphs_have_defined_values():
    both = compare_graphs([], [])
    assert (both.edge_precision, both.edge_recall, both.edge_f1) == (1.0, 1.0, 1.0)
    assert (both.node_precision, both.node_recall, both.node_f1) == (1.0, 1.0, 1.0)
    assert (both.shd, both.normalized_shd, both.normalizer) == (0, 0.0, 0)

    nothing_predicted = compare_graphs([], REFERENCE)
    assert (nothing_predicted.edge_precision, nothing_predicted.edge_recall, nothing_predicted.edge_f1) == (0, 0, 0)
    assert nothing_predicted.node_precision == 0.0 and nothing_predicted.node_recall == 0.0
    assert nothing_predicted.shd == 3 and nothing_predicted.missing == 3

    nothing_expected = compare_graphs(REFERENCE, [], normalization="reference_edges")
    assert nothing_expected.edge_precision == 0.0 and nothing_expected.edge_recall == 0.0
    assert nothing_expected.normalizer == 0 and nothing_expected.normalized_shd == 3.0  # divided by max(0, 1)

    single = compare_graphs([("a", "a")], [])
    assert single.normalizer == 0 and single.normalized_shd == 1.0  # n = 1: n(n-1) = 0


def test_duplicates_are_counted_once_and_reported():
    result = compare_graphs([("a", "b"), ("a", "b"), ("a", "b"), ("b", "c")], [("a", "b"), ("b", "c"), ("b", "c")])
    assert (result.true_positives, result.false_positives, result.false_negatives) == (2, 0, 0)
    assert result.shd == 0
    assert len(result.warnings) == 2
    assert result.warnings[0].startswith("prediction: 2 repeated edge(s)") and "'a -> b'" in result.warnings[0]
    assert result.warnings[1].startswith("reference: 1 repeated edge(s)")


def test_every_input_format_gives_the_same_result():
    as_dicts = [{"source": s, "target": t} for s, t in PREDICTION]
    as_lists = [[s, t] for s, t in PREDICTION]
    as_strings = [f"{s} -> {t}" for s, t in PREDICTION]
    as_text = "a -> b\nc → b; a=>d"
    as_graph = CausalGraph.from_edges(PREDICTION)
    mixed = [as_dicts[0], as_lists[1], as_strings[2]]
    expected = compare_graphs(PREDICTION, REFERENCE).to_dict()
    for prediction in (as_dicts, as_lists, as_strings, as_text, as_graph, mixed, tuple(PREDICTION)):
        assert compare_graphs(prediction, CausalGraph.from_edges(REFERENCE)).to_dict() == expected


def test_adjacency_matrices_numpy_sparse_and_mixed():
    reference = np.zeros((4, 4), dtype=np.int8)
    for s, t in [(0, 1), (1, 2), (2, 3)]:
        reference[s, t] = 1
    prediction = np.zeros((4, 4), dtype=np.int8)
    for s, t in [(0, 1), (2, 1), (0, 3)]:
        prediction[s, t] = 1
    dense = compare_graphs(prediction, reference)
    sparse = compare_graphs(sp.csr_matrix(prediction), sp.csc_matrix(reference))
    mixed = compare_graphs([(0, 1), (2, 1), (0, 3)], sp.coo_matrix(reference))
    for result in (dense, sparse, mixed):
        assert (result.true_positives, result.reversed, result.missing, result.extra, result.shd) == (1, 1, 1, 1, 3)
        assert result.node_mapping == {0: 0, 1: 1, 2: 2, 3: 3}
    # a 5-node prediction against the 4-node reference: node 4 is an extra node
    wider = np.zeros((5, 5), dtype=np.int8)
    wider[:4, :4] = prediction
    assert compare_graphs(wider, reference).node_false_positives == 1
    assert compare_graphs(wider, reference).normalizer == 12  # the reference's 4 nodes: the extra one widens nothing
    # declared nodes given as an array: the general path, same counts
    declared = compare_graphs(prediction, reference, prediction_nodes=np.arange(6))
    assert (declared.shd, declared.node_false_positives) == (3, 2)
    assert {type(node) for node in declared.node_mapping} == {int}  # numpy integers become int


def test_repeated_coo_entries_are_reported():
    coo = sp.coo_matrix((np.ones(3, np.int8), ([0, 0, 1], [1, 1, 2])), shape=(3, 3))
    result = compare_graphs(coo, np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
    assert result.shd == 0 and result.warnings == ["prediction: 1 repeated matrix entries counted once"]


def test_isolated_nodes_count_for_nodes_and_normalization():
    result = compare_graphs([("a", "b")], [("a", "b")], reference_nodes=["c"], prediction_nodes=["z"])
    assert (result.node_true_positives, result.node_false_positives, result.node_false_negatives) == (2, 1, 1)
    assert result.normalizer == 3 * 2  # the reference's {a, b, c}; the invented z does not count
    declared = CausalGraph.from_edges([("a", "b")], nodes=["c"])
    assert compare_graphs([("a", "b")], declared).node_recall == pytest.approx(2 / 3)


def test_names_are_whitespace_cleaned_like_causal_graph():
    result = compare_graphs([(" Interest  rate", "GDP\t")], [("Interest rate", "GDP")])
    assert result.edge_f1 == 1.0
    assert result.node_mapping == {"Interest rate": "Interest rate", "GDP": "GDP"}
    assert compare_graphs([("Interest rate", "gdp")], [("Interest rate", "GDP")]).edge_f1 == 0.0


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([("a", "b", "c")], "edge 1"),
        (["a - b"], "not of the form"),
        ([{"source": "a"}], "lacks ['target']"),
        ([("a", "")], "empty node name"),
        ([("a", 1.5)], "strings or integers"),
        ([("a", True)], "strings or integers"),
        (np.ones((2, 3)), "square"),
        (np.array([[0, 2], [0, 0]]), "0 or 1"),
        ({"a": "b"}, "cannot read a graph"),
        (42, "cannot read a graph"),
    ],
)
def test_unreadable_graphs_raise_graph_error(bad, message):
    with pytest.raises(GraphError, match="prediction") as error:
        compare_graphs(bad, REFERENCE)
    assert message in str(error.value)


@pytest.mark.parametrize(
    "options",
    [
        {"reversal_cost": -1},
        {"reversal_cost": True},
        {"reversal_cost": "2"},
        {"reversal_cost": float("nan")},
        {"node_matching": "semantic"},
        {"normalization": "pairs"},
    ],
)
def test_bad_options_raise_value_error(options):
    with pytest.raises(ValueError):
        compare_graphs(PREDICTION, REFERENCE, **options)


# ---------------------------------------------------------------- node matching


def test_singular_and_normalize_name():
    words = ["prices", "policies", "taxes", "classes", "sizes", "business", "status", "analysis", "gas", "goods"]
    assert [singular(w) for w in words] == [
        "price",
        "policy",
        "tax",
        "class",
        "size",
        "business",
        "status",
        "analysis",
        "gas",
        "good",
    ]
    assert normalize_name("  Interest-Rates ") == "interest rate"
    assert normalize_name("GDP_growth (real)") == "gdp growth real"
    assert normalize_name("ＧＤＰ") == "gdp"  # full-width letters (NFKC)


def test_normalized_matching_merges_spellings_and_says_so():
    reference = [("Interest rate", "Investment"), ("Investment", "GDP")]
    prediction = [("interest rates", "investments"), ("Investment", "G.D.P."), ("interest-rate", "Investment")]
    result = compare_graphs(prediction, reference, node_matching="normalized")
    assert result.node_mapping == {
        "interest rates": "Interest rate",
        "investments": "Investment",
        "Investment": "Investment",
        "interest-rate": "Interest rate",
    }
    # G.D.P. normalizes to "g d p", not "gdp": unmatched, so its edge is extra and GDP→ is missing
    assert (result.true_positives, result.extra, result.missing) == (1, 1, 1)
    assert result.node_true_positives == 2 and result.node_false_positives == 1
    assert any("merged into reference node 'Interest rate'" in w for w in result.warnings)
    assert any("coincide after node matching" in w for w in result.warnings)
    assert compare_graphs(prediction, reference).true_positives == 0  # exact mode forgives nothing


def test_normalized_matching_reference_collision_is_reported():
    match = match_nodes(["PRICE"], ["Price", "prices"], "normalized")
    assert match.mapping == {"PRICE": "Price"}
    assert "same after normalization" in match.warnings[0]


def test_fuzzy_matching_is_one_to_one():
    reference = ["consumer spending", "unemployment rate"]
    predicted = ["consumer spend", "consumers spending", "unemployment"]
    match = match_nodes(predicted, reference, "fuzzy", threshold=0.7)
    claimed = list(match.mapping.values())
    assert len(claimed) == len(set(claimed))
    assert match.mapping["consumers spending"] == "consumer spending"  # identical after normalization
    assert "consumer spend" not in match.mapping  # lost the assignment, never double-claims
    assert match.mapping["unemployment"] == "unemployment rate"
    assert match_nodes(predicted, reference, "fuzzy", threshold=0.95).mapping == {
        "consumers spending": "consumer spending"
    }


def test_fuzzy_prefers_exact_names_and_keeps_unmatched_nodes_apart():
    result = compare_graphs(
        [("demand", "price"), ("suply", "price"), ("weather", "price")],
        [("demand", "price"), ("supply", "price")],
        node_matching="fuzzy",
    )
    assert result.node_mapping == {"demand": "demand", "price": "price", "suply": "supply"}
    assert (result.true_positives, result.extra) == (2, 1)
    with pytest.raises(ValueError, match="threshold"):
        compare_graphs([("a", "b")], [("a", "b")], node_matching="fuzzy", fuzzy_threshold=1.5)


def test_ids_matching_for_name_assisted_answers():
    reference = [("supply", "price"), ("demand", "price")]
    node_ids = {1: "supply", 2: "demand", "3": "price"}
    prediction = [{"source": 1, "target": 3}, {"source": "2", "target": " 3 "}, {"source": 9, "target": 3}]
    result = compare_graphs(prediction, reference, node_matching="ids", node_ids=node_ids)
    assert result.node_mapping == {1: "supply", 3: "price", "2": "demand", "3": "price"}
    assert (result.true_positives, result.extra, result.missing) == (2, 1, 0)
    assert any("not in node_ids: 9" in w for w in result.warnings)
    with pytest.raises(ValueError, match="node_ids"):
        compare_graphs(prediction, reference, node_matching="ids")


def test_ids_matching_unknown_id_never_equals_a_reference_name():
    # the model answered "7" although 7 is no id; a reference node happens to be named "7"
    result = compare_graphs([("1", "7")], [("x", "7")], node_matching="ids", node_ids={1: "x"})
    assert result.true_positives == 0 and result.node_true_positives == 1


# ---------------------------------------------------------------- batches


def test_batch_micro_and_macro_by_hand():
    batch = compare_graph_batch([PREDICTION, [("x", "y")]], [REFERENCE, [("x", "y")]])
    first, second = batch.items
    assert second.edge_f1 == 1.0 and second.shd == 0
    assert batch.macro["edge_f1"] == pytest.approx((1 / 3 + 1) / 2)
    assert batch.macro["shd"] == pytest.approx(1.5)
    assert batch.macro["normalized_shd"] == pytest.approx((3 / 12 + 0) / 2)
    # pooled: tp = 2, |P| = 4, |R| = 4
    assert batch.micro["edge_precision"] == pytest.approx(2 / 4)
    assert batch.micro["edge_f1"] == pytest.approx(2 * 2 / 8)
    assert batch.micro["shd_total"] == 3
    assert batch.micro["normalized_shd"] == pytest.approx(3 / (12 + 2))
    assert batch.micro["count"] == batch.macro["count"] == 2
    assert batch.errors == []


def test_batch_scores_an_unreadable_prediction_the_worst_and_keeps_it_in_the_averages():
    batch = compare_graph_batch([PREDICTION, ["not an edge"], REFERENCE], [REFERENCE, REFERENCE, REFERENCE])
    worst = batch.items[1]
    assert (worst.edge_f1, worst.node_f1, worst.edge_precision) == (0.0, 0.0, 0.0)
    assert worst.shd == 4 * 3 and worst.normalized_shd == 1.0  # every ordered pair of the 4 reference nodes
    assert (worst.false_negatives, worst.node_false_negatives, worst.false_positives) == (3, 4, 0)
    assert [(e.index, "not of the form" in e.message) for e in batch.errors] == [(1, True)]
    assert batch.items[2].shd == 0
    assert batch.macro["count"] == 3 and batch.macro["unparsable"] == batch.micro["unparsable"] == 1
    assert batch.macro["edge_f1"] == pytest.approx((1 / 3 + 0 + 1) / 3)
    assert batch.macro["shd"] == pytest.approx((3 + 12 + 0) / 3)
    # pooled as an empty answer: its three reference edges are missed
    assert batch.micro["edge_recall"] == pytest.approx((1 + 0 + 3) / 9)


def test_junk_never_scores_better_than_an_empty_answer():
    references = [["A -> B"], ["C -> D"]]
    junk = compare_graph_batch([["A -> B"], None], references)
    empty = compare_graph_batch([["A -> B"], []], references)
    for averages in ("macro", "micro"):
        for name in (*RATE_FIELDS,):
            assert getattr(junk, averages)[name] <= getattr(empty, averages)[name]
        assert getattr(junk, averages)["normalized_shd"] >= getattr(empty, averages)["normalized_shd"]
    assert junk.macro["shd"] > empty.macro["shd"] and junk.macro["unparsable"] == 1 and empty.macro["unparsable"] == 0
    # against an empty reference an empty answer is right; junk is still wrong
    nothing = compare_graph_batch([None, []], [[], []])
    assert [item.edge_f1 for item in nothing.items] == [0.0, 1.0] and [item.shd for item in nothing.items] == [1, 0]
    assert nothing.micro["edge_f1"] == 0.0


def test_invented_nodes_never_score_better_than_an_empty_answer():
    """1,000 edges between nodes the reference does not have cost 1,000, never less than an empty answer."""
    reference = [("A", "B"), ("B", "C")]
    empty = compare_graphs([], reference)
    invented = compare_graphs([(f"x{i}", f"y{i}") for i in range(1000)], reference)
    assert empty.normalized_shd == pytest.approx(2 / 6)
    assert invented.normalized_shd == pytest.approx((2 + 1000) / 6) and invented.normalizer == empty.normalizer
    for more in (1, 10, 100):  # each invented edge costs, whatever it names
        padded = compare_graphs([("A", "B"), *((f"n{i}", "B") for i in range(more))], reference)
        assert padded.normalized_shd > compare_graphs([("A", "B")], reference).normalized_shd
        assert padded.edge_f1 <= compare_graphs([("A", "B")], reference).edge_f1


def test_maximal_shd_bounds_every_loop_free_prediction_over_the_reference_nodes():
    nodes = ["a", "b", "c"]
    reference = [("a", "b"), ("b", "c")]
    pairs = [(s, t) for s in nodes for t in nodes if s != t]
    worst = unparsable_comparison(reference, reversal_cost=2).shd
    assert worst == maximal_shd(3, 2) == 6
    for mask in range(1 << len(pairs)):  # all 64 loop-free graphs over the reference's nodes
        prediction = [pair for bit, pair in enumerate(pairs) if mask >> bit & 1]
        for cost in (1, 2):
            assert compare_graphs(prediction, reference, reversal_cost=cost, reference_nodes=nodes).shd <= worst
    assert compare_graphs([("b", "a"), ("c", "b"), ("a", "c"), ("c", "a")], reference, reversal_cost=2).shd == worst


def test_batch_edge_cases():
    with pytest.raises(ValueError, match="empty batch"):
        compare_graph_batch([], [])
    with pytest.raises(ValueError, match="1 references but 2 predictions"):
        compare_graph_batch([[], []], [[]])
    for cost in (-2, 0, 0.5, 3, 7, float("nan"), "1", True):
        with pytest.raises(ValueError, match="reversal_cost"):
            compare_graph_batch([[]], [[]], reversal_cost=cost)
    with pytest.raises(ValueError, match="fuzzy_threshold"):
        compare_graph_batch([[]], [[]], node_matching="fuzzy", fuzzy_threshold=1.5)
    with pytest.raises(ValueError, match=r"references\[1\]: .*not of the form"):
        compare_graph_batch([[], []], [[], ["a - b"]])
    with pytest.raises(ValueError, match=r"references\[0\]: cannot read a graph from int"):
        compare_graph_batch([[]], [5])
    with pytest.raises(ValueError, match="needs node_ids"):
        compare_graph_batch([[]], [[]], node_matching="ids")
    tables = [{1: "a", 2: "b"}, {1: "b", 2: "a"}]
    per_item = compare_graph_batch(
        [[(1, 2)], [(1, 2)]], [[("a", "b")], [("a", "b")]], node_matching="ids", node_ids=tables
    )
    assert [item.reversed for item in per_item.items] == [0, 1]
    all_bad = compare_graph_batch([[("a",)]], [[]])
    assert all_bad.items[0].edge_f1 == 0.0 and all_bad.items[0].shd == 1 and all_bad.micro["edge_f1"] == 0.0
