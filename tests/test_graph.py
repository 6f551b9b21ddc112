import networkx as nx
import pytest

from causal_datasets.graph import CausalGraph, GraphError


def test_parse_comma_separated_cladder_edges():
    graph = CausalGraph.parse("X->V2,V2->Y")
    assert graph.nodes == ("X", "V2", "Y")
    assert graph.edges == (("X", "V2"), ("V2", "Y"))
    assert not graph.issues


def test_parse_arrow_lines_with_spaces_and_lone_nodes():
    text = "Interest rate -> Investment\n\nInvestment  ->  GDP growth\nUnconnected"
    graph = CausalGraph.parse(text)
    assert graph.edges == (("Interest rate", "Investment"), ("Investment", "GDP growth"))
    assert "Unconnected" in graph.nodes
    assert CausalGraph.parse(graph.to_text()) == graph


def test_duplicates_reported_and_self_loops_flagged():
    graph = CausalGraph.parse("A -> B\nA -> B\nB -> B")
    assert graph.edges == (("A", "B"), ("B", "B"))
    assert graph.issues.duplicate_edges == (("A", "B"),)
    assert graph.issues.self_loops == ("B",)
    with pytest.raises(GraphError, match="self-loop"):
        CausalGraph.parse("B -> B", allow_self_loops=False)


@pytest.mark.parametrize(
    "text, message",
    [("A -> ", "empty end"), (" -> B", "empty end"), ("A -> B -> C", "more than one edge mark")],
)
def test_malformed_text_is_a_clear_error(text, message):
    with pytest.raises(GraphError, match=message):
        CausalGraph.parse(text)


@pytest.mark.parametrize("edge", [{"source": "A"}, {"source": "", "target": "B"}, ("A",), 42, ("A", None)])
def test_malformed_edges_are_clear_errors(edge):
    with pytest.raises(GraphError):
        CausalGraph.from_edges([edge])


def test_cycles_are_allowed_and_counted():
    graph = CausalGraph.from_edges([("A", "B"), ("B", "C"), ("C", "A"), ("B", "A")])
    assert not graph.is_acyclic()
    assert graph.num_cycles() == 2
    assert CausalGraph.parse("A->B,B->C").is_acyclic()


def test_networkx_and_records_round_trip():
    source = nx.DiGraph([("a", "b"), ("b", "c")])
    source.add_node("lonely")
    graph = CausalGraph.from_networkx(source)
    back = graph.to_networkx()
    assert set(back.edges) == set(source.edges) and set(back.nodes) == set(source.nodes)
    assert CausalGraph.from_edges(graph.to_records(), nodes=graph.nodes) == graph
    assert graph.to_records() == [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}]


def test_mixed_edge_forms_and_parents_children():
    graph = CausalGraph.from_edges([{"source": "Z", "target": "X"}, ("Z", "Y"), "X -> Y"])
    assert graph.parents("Y") == ["Z", "X"]
    assert graph.children("Z") == ["X", "Y"]
    with pytest.raises(GraphError, match="unknown node"):
        graph.parents("W")


def test_left_and_bidirected_arrows_in_every_spelling():
    graph = CausalGraph.parse("X<-Z, Z -> Y;X→Y\nW ← X, A <-> B, C↔A")
    assert graph.edges == (("Z", "X"), ("Z", "Y"), ("X", "Y"), ("X", "W"))
    assert graph.bidirected == (("A", "B"), ("A", "C"))
    assert CausalGraph.parse(graph.to_text()) == graph
    assert CausalGraph.from_edges(["B <- A"]).edges == (("A", "B"),)


@pytest.mark.parametrize(
    "text, mark",
    [("X--Y", "--"), ("X > Y", ">"), ("X<Y", "<"), ("X = Y", "="), ("A -> B, C-->D", "-"), ("A <> B", "<")],
)
def test_anything_that_looks_like_an_edge_but_is_none_names_the_mark(text, mark):
    with pytest.raises(GraphError, match=f"'{mark}' is not an edge mark; write A -> B, A <- B or A <-> B"):
        CausalGraph.parse(text)


def test_lines_mode_keeps_commas_and_comparisons_inside_free_text_names():
    graph = CausalGraph.parse("Doctors > 35, per region -> Wait times\nWait times <- Budget", lines=True)
    assert graph.edges == (("Doctors > 35, per region", "Wait times"), ("Budget", "Wait times"))
    with pytest.raises(GraphError, match="more than one edge mark"):
        CausalGraph.parse("A -> B -> C", lines=True)


def test_a_bidirected_pair_cannot_be_scored_as_directed_edges():
    from causal_datasets.scoring.graph_compare import compare_graph_batch

    batch = compare_graph_batch(["A <-> B", "A -> B"], ["A -> B", "A -> B"])
    assert [e.index for e in batch.errors] == [0] and "latent common cause" in batch.errors[0].message
    assert batch.items[1].edge_f1 == 1.0
