"""The ``synthetic_latent`` config (identification queries on random graphs with latent confounding) and
``identify_reward``, which scores replies to it without a reference: the rows checked against checks that share
no code with ``identify`` (the verifier, an exact evaluator with explicit latent variables, Tian's and the IDC
decision), the reward against estimands written in other ways and against wrong answers."""

from __future__ import annotations

import logging

import networkx as nx
import numpy as np
import pytest

from causal_datasets.cladder_pairs.records import SyntheticLatentRow
from causal_datasets.cladder_pairs.synthetic_latent import (
    NOT_IDENTIFIABLE,
    identified_row,
    minimal_estimand,
    synthetic_latent_rows,
)
from causal_datasets.docalc.expr import free_indices
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.identification import identify
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.verdict import check_equivalence
from causal_datasets.rewards import identify_reward
from tests.support.admgs import LatentModel, MixedGraph, idc_identifiable, largest_difference, tian_identifiable

ROWS = synthetic_latent_rows(seed=0, count=150)


def mixed_graph(row: SyntheticLatentRow) -> MixedGraph:
    dag = nx.DiGraph([(e.source, e.target) for e in row.edges])
    dag.add_nodes_from(row.nodes)
    return MixedGraph(
        tuple(nx.lexicographical_topological_sort(dag)),
        tuple((e.source, e.target) for e in row.edges),
        tuple((p.first, p.second) for p in row.confounded),
    )


def roles(row: SyntheticLatentRow) -> tuple[list[str], list[str], list[str]]:
    query = parse(row.query)
    return [a.var for a in query.event], [v for v, _ in query.do], [a.var for a in query.given]


def test_the_rows_are_the_seeds_and_cover_both_answers_and_both_algorithms():
    assert synthetic_latent_rows(seed=0, count=150) == ROWS
    assert synthetic_latent_rows(seed=1, count=20) != ROWS[:20]
    assert [row.id for row in ROWS] == [f"synthetic_latent-{i}" for i in range(150)]
    kinds = {(row.identifiable, row.algorithm) for row in ROWS}
    assert kinds == {(True, "ID"), (False, "ID"), (True, "IDC"), (False, "IDC")}
    assert {row.num_nodes for row in ROWS} == set(range(4, 9))


def test_each_row_describes_one_graph_and_a_query_on_it():
    for row in ROWS:
        graph = DoGraph.parse(row.graph)
        assert sorted(set(graph.nodes) - graph.latent, key=lambda n: int(n[1:])) == row.nodes
        assert len(graph.latent) == len(row.confounded)
        assert nx.is_directed_acyclic_graph(nx.DiGraph([(e.source, e.target) for e in row.edges]))
        outcomes, treatments, _ = roles(row)
        dag = nx.DiGraph([(e.source, e.target) for e in row.edges])
        assert set(outcomes) <= set().union(*(nx.descendants(dag, x) for x in treatments))
        request = row.prompt[-1].content
        assert all(f"{e.source}->{e.target}" in request for e in row.edges)
        assert all(f"{p.first}<->{p.second}" in request for p in row.confounded)
        assert row.prompt[-1].content.endswith(f"Query: {row.query}")
        assert row.reference == (row.estimand if row.identifiable else NOT_IDENTIFIABLE)
        assert bool(row.hedge_forest) is not row.identifiable
        assert set(row.hedge_sub_forest) < set(row.hedge_forest) or row.identifiable


def test_every_estimand_equals_its_query_and_every_decision_is_tians_or_idcs():
    for row in ROWS:
        graph, (outcomes, treatments, conditions) = mixed_graph(row), roles(row)
        decided = (
            idc_identifiable(graph, outcomes, treatments, conditions)
            if conditions
            else tian_identifiable(graph, outcomes, treatments)
        )
        assert decided is row.identifiable, row.id
        if not row.identifiable:
            continue
        assert check_equivalence(row.query, row.estimand, row.graph).equivalent is True, row.id
        model = LatentModel(graph, np.random.default_rng(0))
        estimand = parse(row.estimand)
        free = sorted(free_indices(estimand) - set(outcomes + treatments + conditions))
        assert not free, row.id  # the minimal estimand: no free variable the query lacks
        assert largest_difference(model, estimand, outcomes, treatments, conditions, free) < 1e-9, row.id


@pytest.mark.parametrize(
    ("graph", "query", "minimal"),
    [
        ("V1->V3,V2->V1,V3->V4,V5->V2,V3<->V5", "P(V4 | do(V3))", "P(V4 | V3)"),  # ID: P(V4 | V1, V2, V3, V5)
        (  # V5 cannot be dropped from either term alone or from both: averaged out
            "V1->V2,V4->V1,V5->V1,V5->V3,V5->V4,V2<->V4",
            "P(V2 | do(V1), V3)",
            "\\sum_{V5} P(V5) * (\\sum_{V4} P(V2 | V1, V4, V5) * P(V4 | V5))",
        ),
    ],
)
def test_ids_arbitrary_indices_are_reduced_away(graph, query, minimal):
    found = identify(query, graph)
    assert found.arbitrary and free_indices(found.estimand) & set(found.arbitrary)
    reduced = minimal_estimand(found.estimand, found.arbitrary, graph)
    assert reduced.text == minimal and check_equivalence(reduced, found.estimand, graph).equivalent is True
    row = identified_row(0, *draw_like(graph), query)
    assert row.estimand == row.reference == minimal


def draw_like(graph: str) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """``graph`` as the drawn nodes, directed edges and confounded pairs."""
    parts = graph.split(",")
    pairs = [tuple(part.split("<->")) for part in parts if "<->" in part]
    directed = [tuple(part.split("->")) for part in parts if "->" in part and "<->" not in part]
    nodes = sorted({n for pair in directed + pairs for n in pair}, key=lambda n: int(n[1:]))
    return nodes, directed, pairs  # type: ignore[return-value]


# ---- identify_reward ------------------------------------------------------------------------------


def rewards(completions, rows):
    """The reward as GRPOTrainer calls it on the config: every column, one value per completion (``edges`` holds
    the directed edges only: the reward reads ``graph``)."""
    columns = [row.model_dump(mode="json", exclude={"prompt"}) for row in rows]
    return identify_reward(
        [row.prompt for row in rows], completions, **{name: [column[name] for column in columns] for name in columns[0]}
    )


def test_the_derived_estimand_and_a_correct_not_identifiable_earn_the_reward():
    completions = [f"Let me think.\nEstimand: {row.reference}" for row in ROWS]
    assert rewards(completions, ROWS) == [1.0] * len(ROWS)
    said_not = rewards(["Estimand: Not identifiable."] * len(ROWS), ROWS)
    assert said_not == [float(not row.identifiable) for row in ROWS]


FRONT_DOOR = SyntheticLatentRow(
    id="front-door",
    prompt=[],
    reference="",
    num_nodes=3,
    nodes=["X", "M", "Y"],
    edges=[],
    confounded=[],
    graph="X->M,M->Y,X<->Y",
    query="P(Y | do(X))",
    algorithm="ID",
    identifiable=True,
    estimand=None,
    derivation_steps=0,
    hedge_forest=[],
    hedge_sub_forest=[],
)
BOW = FRONT_DOOR.model_copy(update={"graph": "X->Y,X<->Y"})


@pytest.mark.parametrize(
    "answer, reward",
    [
        ("\\sum_{M} P(M | X) * (\\sum_{X=x} P(Y | M, X=x) * P(X=x))", 1.0),  # the front-door formula, a textbook's way
        ("\\sum_{M} P(M | X) * (\\sum_{X} P(X) * P(Y | M, X))", 1.0),  # identify's canonical form
        ("P(Y | X)", 0.0),  # confounding ignored: refuted
        ("P(Y | do(X))", 0.0),  # the query copied back: not an estimand
        ("\\sum_{U_X_Y} P(Y | X, U_X_Y) * P(U_X_Y)", 0.0),  # the latent cause: not observed
        ("not identifiable", 0.0),
        ("no idea", 0.0),
    ],
)
def test_any_correct_estimand_earns_the_reward_and_nothing_else_does(answer, reward):
    assert rewards([f"Estimand: {answer}"], [FRONT_DOOR]) == [reward]


def test_on_the_bow_graph_only_not_identifiable_is_right():
    assert rewards(
        ["Estimand: not identifiable", "Estimand: P(Y | X)", [{"role": "assistant", "content": "NOT IDENTIFIABLE"}]],
        [BOW] * 3,
    ) == [1.0, 0.0, 1.0]


def test_bad_columns_and_replies_get_the_lowest_reward_with_one_warning(caplog):
    bad_query = BOW.model_copy(update={"query": "E[Y | do(X)]"})
    bad_graph = BOW.model_copy(update={"graph": "X->Y,Y->X"})
    with caplog.at_level(logging.WARNING, logger="causal_datasets.rewards"):
        scores = rewards(
            ["Estimand: not identifiable", "Estimand: not identifiable", "Estimand: P(Y |", "P(Y | X) because", None],
            [bad_query, bad_graph, FRONT_DOOR, FRONT_DOOR, FRONT_DOOR],
        )
    assert scores == [0.0] * 5
    (record,) = caplog.records
    assert all(
        f"{reason}: 1" in record.getMessage()
        for reason in ("bad query", "bad graph", "unparsable", "no_expression", "malformed completion")
    )
