"""Graph input, d-separation (cross-checked with networkx) and the semantic decision procedure."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import numpy as np
import pytest

from causal_datasets.docalc.decide import semantic_check
from causal_datasets.docalc.graph import DoGraph, UnknownVariable
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.semantics import EvaluationError, ResponseModel, TableModel, evaluate
from causal_datasets.graph import GraphError


def equal(a: str, b: str, edges: str, latent=()) -> bool | None:
    return semantic_check(parse(a), parse(b), DoGraph.parse(edges, latent=latent)).equal


def test_graph_input_forms_and_errors():
    g = DoGraph.parse("X->V2,V2->Y", latent=["V2"])
    assert g.order == ("X", "V2", "Y") and g.latent == {"V2"}
    assert DoGraph.from_edges([("Z", "X"), ("X", "Y")]).parents("X") == ("Z",)
    with pytest.raises(GraphError, match="cycle"):
        DoGraph.parse("X->Y,Y->X")
    with pytest.raises(GraphError) as cyclic:
        DoGraph.parse("A->B,B->C,C->A,C->D")
    assert any(
        f"cycle: {path}" in str(cyclic.value) for path in ("A -> B -> C -> A", "B -> C -> A -> B", "C -> A -> B -> C")
    )
    # one topological order per graph, whatever order the edges come in
    assert (
        DoGraph.parse("Z->X,Z->Y,X->Y,W->Y").order == DoGraph.parse("W->Y,X->Y,Z->Y,Z->X").order == ("W", "Z", "X", "Y")
    )
    with pytest.raises(UnknownVariable):
        DoGraph.parse("X->Y", latent=["U"])
    with pytest.raises(UnknownVariable, match="W"):
        g.check_variables(parse("P(Y | do(X), W)"))
    with pytest.raises(GraphError):
        DoGraph.parse("")


def test_d_separation_agrees_with_networkx_on_random_graphs():
    rng = random.Random(7)
    for _ in range(150):
        n = rng.randint(3, 8)
        names = [f"N{i}" for i in range(n)]
        edges = [(names[i], names[j]) for i, j in itertools.combinations(range(n), 2) if rng.random() < 0.4]
        g = DoGraph.from_edges(edges, nodes=names)
        nxg = nx.DiGraph(edges)
        nxg.add_nodes_from(names)
        for _ in range(10):
            picked = rng.sample(names, rng.randint(2, n))
            split = rng.randint(1, len(picked) - 1)
            xs, rest = set(picked[:split]), picked[split:]
            given = rng.randint(0, len(rest) - 1)
            ys, zs = set(rest[given:]), set(rest[:given])
            cut_in = set(rng.sample(names, rng.randint(0, 2)))
            cut_out = set(rng.sample(names, rng.randint(0, 2)))
            mutilated = nxg.copy()
            mutilated.remove_edges_from([(u, v) for u, v in nxg.edges if v in cut_in or u in cut_out])
            assert g.d_separated(xs, ys, zs, cut_in=cut_in, cut_out=cut_out) == nx.is_d_separator(mutilated, xs, ys, zs)


def test_textbook_d_separation():
    m_bias = DoGraph.parse("U1->X,U1->M,U2->M,U2->Y,X->Y")
    assert m_bias.d_separated({"X"}, {"Y"}, set(), cut_out={"X"})
    assert not m_bias.d_separated({"X"}, {"Y"}, {"M"}, cut_out={"X"})
    chain = DoGraph.parse("X->M,M->Y")
    assert chain.d_separated({"X"}, {"Y"}, {"M"}) and not chain.d_separated({"X"}, {"Y"})


def test_models_are_strictly_positive_distributions():
    g = DoGraph.parse("Z->X,Z->Y,X->Y")
    rng = np.random.default_rng(0)
    tables = TableModel.random(g, rng, members=3)
    joint, _ = tables.contract(g.order, frozenset(), {})
    assert joint.shape == (3, 2, 2, 2) and joint.min() > 0
    assert joint.reshape(3, -1).sum(axis=1) == pytest.approx([1.0] * 3)
    response = ResponseModel(g, rng, members=3)
    assert response.weights.min() > 0 and response.weights.sum(axis=1) == pytest.approx([1.0] * 3)
    # the members are different models
    assert not np.allclose(tables.table("Y", 0), tables.table("Y", 1))
    assert tables.table("Y", 2).shape == (2, 2, 2) and tables.table("Y", 2).sum(axis=-1) == pytest.approx(
        np.ones((2, 2))
    )
    # both model kinds obey the truncated factorization in every member: P(Y|do(X=1)) = sum_z P(Y|X=1,z)P(z)
    for model in (tables, response):
        do_value = evaluate(parse("P(Y=1 | do(X=1))"), model, g, {})
        adjusted = sum(
            evaluate(parse(f"P(Y=1 | X=1, Z={z})"), model, g, {}) * evaluate(parse(f"P(Z={z})"), model, g, {})
            for z in (0, 1)
        )
        assert do_value.shape == (3,) and do_value == pytest.approx(adjusted, rel=1e-12)
        assert len(set(np.round(do_value, 12))) == 3


def test_given_tables_round_trip_through_the_factor_layout():
    g = DoGraph.parse("Z->X,Z->Y,X->Y,W->Y", domains={"Z": 3})
    rng = np.random.default_rng(2)
    tables = {n: rng.dirichlet(np.ones(g.domain(n)), size=tuple(g.domain(p) for p in g.parents(n))) for n in g.nodes}
    model = TableModel.single(g, tables)
    for node in g.nodes:
        assert np.array_equal(model.table(node), tables[node])
    # the joint is the product of the given conditionals at every assignment
    joint = model.contract(g.order, frozenset(), {})[0][0]
    for z, x, y, w in itertools.product(range(3), range(2), range(2), range(2)):
        value = {"Z": z, "X": x, "Y": y, "W": w}
        index = tuple(value[n] for n in g.order)
        expected = (
            tables["Z"][z] * tables["W"][w] * tables["X"][z, x] * tables["Y"][(*(value[p] for p in g.parents("Y")), y)]
        )
        assert joint[index] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(EvaluationError, match="rows summing to 1"):
        TableModel.single(g, {**tables, "X": tables["X"] * 2})


def test_a_kept_action_has_every_action_value_on_its_axis():
    g = DoGraph.parse("Z->X,Z->Y,X->Y,X->M,M->Y")
    model = TableModel.random(g, np.random.default_rng(1), members=2)
    every, _ = model.contract(("X", "Y"), frozenset({"X"}), {})
    for x in (0, 1):
        # reading X's axis at x is the distribution of Y under do(X=x): the truncated factorization
        single, _ = model.contract(("Y",), frozenset({"X"}), {"X": x})
        assert np.allclose(every[:, x], single)
        for member in (0, 1):  # Y's table has axes M, X, Z, Y (its parents in order, then Y)
            by_hand = np.einsum(
                "z,m,mzy->y", model.table("Z", member), model.table("M", member)[x], model.table("Y", member)[:, x]
            )
            assert single[member] == pytest.approx(by_hand, rel=1e-12)


CONFOUNDED = "Z->X,Z->Y,X->Y"
NDE = "E[Y_{X=1, M_{X=0}} - Y_{X=0, M_{X=0}}]"
MEDIATION_FORMULA = r"\sum_{M} P(M | X=0) * (P(Y=1 | X=1, M) - P(Y=1 | X=0, M))"


@pytest.mark.parametrize(
    "a, b, edges, latent, expected",
    [
        ("P(Y | do(X))", r"\sum_{Z} P(Y | X, Z) * P(Z)", CONFOUNDED, (), True),
        ("P(Y | do(X))", "P(Y | X)", CONFOUNDED, (), False),
        ("P(Y=1 | do(X=1))", "P(Y=1 | X=1)", "X->Y", (), True),
        ("P(Y | do(X))", r"\sum_{M} P(M | X) * \sum_{X=x} P(Y | M, X=x) * P(X=x)", "U->X,U->Y,X->M,M->Y", ("U",), True),
        ("P(Y | do(X))", r"\sum_{M} P(M | X) * P(Y | M)", "U->X,U->Y,X->M,M->Y", ("U",), False),
        ("P(Y | do(X))", "P(Y | X)", "U1->X,U1->M,U2->M,U2->Y,X->Y", ("U1", "U2"), True),
        # adjusting for the collider M in the M-bias graph is biased; conditioning on X as well is not
        ("P(Y | do(X))", r"\sum_{M} P(Y | X, M) * P(M)", "U1->X,U1->M,U2->M,U2->Y,X->Y", ("U1", "U2"), False),
        ("P(Y | do(X))", r"\sum_{M} P(Y | X, M) * P(M | X)", "U1->X,U1->M,U2->M,U2->Y,X->Y", ("U1", "U2"), True),
        (
            "E[Y_{X=1} - Y_{X=0} | X=1]",
            r"\sum_{Z} P(Z | X=1) * (P(Y=1 | X=1, Z) - P(Y=1 | X=0, Z))",
            CONFOUNDED,
            (),
            True,
        ),
        ("E[Y_{X=1} - Y_{X=0} | X=1]", r"\sum_{Z} P(Z) * (P(Y=1 | X=1, Z) - P(Y=1 | X=0, Z))", CONFOUNDED, (), False),
        ("E[Y_{X=1}]", "E[Y | do(X=1)]", CONFOUNDED, (), True),
        # natural direct effect: the mediation formula needs an unconfounded mediator
        (NDE, MEDIATION_FORMULA, "X->M,X->Y,M->Y", (), True),
        (NDE, MEDIATION_FORMULA, "X->M,X->Y,M->Y,U->M,U->Y", ("U",), False),
        ("E[Y_{X=1, M=0} - Y_{X=0, M=0}]", MEDIATION_FORMULA, "X->M,X->Y,M->Y", (), False),  # controlled effect
        ("P(Y_{X=0, M_{X=0}}=1)", "P(Y=1 | X=0)", "X->M,X->Y,M->Y", (), True),  # composition
        ("P(Y_{X=0, M_{X=1}}=1)", "P(Y=1 | X=0)", "X->M,X->Y,M->Y", (), False),
        ("P(Y)", "P(Y | X)", "X->Z,Y->Z", (), True),
        ("P(Y | Z)", "P(Y | X, Z)", "X->Z,Y->Z", (), False),
    ],
)
def test_semantic_verdicts_on_textbook_identities(a, b, edges, latent, expected):
    assert equal(a, b, edges, latent) is expected


def test_counterexample_reports_model_and_both_values():
    result = semantic_check(parse("P(Y=1 | do(Z=1))"), parse("P(Y=1 | Z=1)"), DoGraph.parse("U->Z,U->Y,Z->Y"))
    assert result.equal is False
    cx = result.counterexample
    assert cx.value_a != pytest.approx(cx.value_b)
    assert cx.model["kind"] == "tables" and {t["node"] for t in cx.model["tables"]} == {"U", "Z", "Y"}


def test_free_indices_are_compared_pointwise():
    assert equal("P(Y | X)", "P(Y | X)", "X->Y")
    result = semantic_check(parse("P(Y | X)"), parse("P(Y=1 | X)"), DoGraph.parse("X->Y"))
    assert result.equal is False and result.counterexample.assignment["Y"] == 0


def test_bad_values_raise_evaluation_errors():
    with pytest.raises(EvaluationError, match="outside the domain"):
        semantic_check(parse("P(Y=2)"), parse("P(Y=1)"), DoGraph.parse("X->Y"))
    g3 = DoGraph.parse("X->Y", domains={"Y": 3})
    assert semantic_check(parse("P(Y=2)"), parse("1 - P(Y=0) - P(Y=1)"), g3).equal is True
