"""Do-calculus rules with their graph conditions, proof search, verdicts, CLI and evaluate module."""

from __future__ import annotations

import evaluate
import pytest

from causal_datasets.cli import main
from causal_datasets.docalc.decide import semantic_check
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.rules import RuleContext, backdoor_exchange, do_calculus
from causal_datasets.docalc.search import SearchLimits, find_proof
from causal_datasets.docalc.verdict import check_equivalence, check_proof
from causal_datasets.graph import GraphError
from causal_datasets.paths import metric_path

BACKDOOR = "Z->X,Z->Y,X->Y"
FRONTDOOR = "U->X,U->Y,X->M,M->Y"
IV = "U->X,U->Y,Z->X,X->Y"
NAPKIN = "W->Z,Z->X,X->Y,U1->W,U1->X,U2->W,U2->Y"
M_BIAS = "U1->X,U1->M,U2->M,U2->Y,X->Y"
#: bounded by nodes, not wall-clock time, so the outcome does not depend on machine load
NODE_BOUNDED = SearchLimits(max_depth=4, max_nodes=3000, time_limit=600.0)


def rewrites(term: str, edges: str, latent=()) -> dict[str, str]:
    """rewritten term text -> rule name, for the do-calculus rules applicable to ``term``."""
    graph = DoGraph.parse(edges, latent=latent)
    p = parse(term)
    ctx = RuleContext(graph, tuple((n, n) for n in ("M", "Z") if n in graph.nodes))
    return {r.result.text: r.rule for r in do_calculus(p, ctx)}


@pytest.mark.parametrize(
    "term, edges, result, rule, allowed",
    [
        # backdoor: exchange needs Z observed; Z is not affected by do(X)
        ("P(Y | do(X), Z)", BACKDOOR, "P(Y | X, Z)", "rule 2: action to observation", True),
        ("P(Y | do(X))", BACKDOOR, "P(Y | X)", "rule 2: action to observation", False),
        ("P(Z | do(X))", BACKDOOR, "P(Z)", "rule 3: delete action", True),
        ("P(Y | do(X))", BACKDOOR, "P(Y)", "rule 3: delete action", False),
        # frontdoor
        ("P(M | do(X))", FRONTDOOR, "P(M | X)", "rule 2: action to observation", True),
        ("P(Y | do(X))", FRONTDOOR, "P(Y | X)", "rule 2: action to observation", False),
        ("P(Y | do(M, X))", FRONTDOOR, "P(Y | do(M))", "rule 3: delete action", True),
        ("P(Y | do(M), X)", FRONTDOOR, "P(Y | M, X)", "rule 2: action to observation", True),
        ("P(Y | M, X)", FRONTDOOR, "P(Y | do(M), X)", "rule 2: observation to action", True),
        ("P(Y | do(X), M)", FRONTDOOR, "P(Y | do(M, X))", "rule 2: observation to action", True),
        # IV: the instrument is exogenous; the treatment is confounded
        ("P(Y | do(Z))", IV, "P(Y | Z)", "rule 2: action to observation", True),
        ("P(Y | do(X))", IV, "P(Y | X)", "rule 2: action to observation", False),
        ("P(Y | do(X, Z))", IV, "P(Y | do(X))", "rule 3: delete action", True),
        ("P(Y | do(X), Z)", IV, "P(Y | do(X))", "rule 1: delete observation", True),
        ("P(Y | X, Z)", IV, "P(Y | X)", "rule 1: delete observation", False),
        # M-bias: conditioning on the collider M opens X <- U1 -> M <- U2 -> Y
        ("P(Y | do(X))", M_BIAS, "P(Y | X)", "rule 2: action to observation", True),
        ("P(Y | do(X), M)", M_BIAS, "P(Y | M, X)", "rule 2: action to observation", False),
        ("P(Y | do(X))", M_BIAS, "P(Y | do(X), M)", "rule 1: insert observation", False),
        # rule 3 with Z(W): Z is an ancestor of the observed M in G[bar X] -> not removable
        ("P(Y | do(Z), M)", "Z->M,M->Y,U->Z,U->Y", "P(Y | M)", "rule 3: delete action", False),
    ],
)
def test_rules_and_their_graph_conditions(term, edges, result, rule, allowed):
    nodes = {end for edge in edges.split(",") for end in edge.split("->")}
    found = rewrites(term, edges, latent=[n for n in ("U", "U1", "U2") if n in nodes])
    assert (found.get(result) == rule) is allowed, found


def test_rule_values_are_kept():
    found = rewrites("P(Y=1 | do(X=0), Z=1)", BACKDOOR)
    assert "P(Y=1 | X=0, Z=1)" in found


def test_backdoor_frontdoor_proofs_are_found_and_every_step_holds():
    cases = [
        ("P(Y | do(X))", r"\sum_{Z} P(Y | X, Z) * P(Z)", BACKDOOR, ()),
        ("P(Y | do(X))", r"\sum_{M} P(M | X) * \sum_{X=x} P(Y | M, X=x) * P(X=x)", FRONTDOOR, ("U",)),
        ("P(Y | X, Z)", "P(Y | do(X), Z)", BACKDOOR, ()),  # the adding direction upstream cannot find
        ("E[Y | do(X=1)] - E[Y | do(X=0)]", "P(Y=1 | X=1) - P(Y=1 | X=0)", "X->V2,V2->Y", ()),
        ("P(Y)", "P(Y | X=1) * P(X=1) + P(Y | X=0) * P(X=0)", "X->V2,V2->Y", ()),
        ("E[Y_{X=0, M_{X=0}}]", "P(Y=1 | X=0)", "X->M,X->Y,M->Y", ()),  # composition, then rule 2
    ]
    for a, b, edges, latent in cases:
        graph = DoGraph.parse(edges, latent=latent)
        verdict = check_equivalence(a, b, graph, limits=NODE_BOUNDED)
        assert verdict.equivalent is True and verdict.method == "proof", (a, b, verdict)
        assert verdict.proof.start == parse(a).text and verdict.proof.end == parse(b).text
        check_proof(verdict.proof, graph)


@pytest.mark.parametrize(
    "term, edges, allowed",
    [
        ("P(Y_{X=0}=1 | X=1, Z)", BACKDOOR, True),  # Z blocks the back-door path X <- Z -> Y
        ("P(Y_{X=0}=1 | X=1)", BACKDOOR, False),  # ... which is open without it
        ("P(Y_{X=0}=1 | X=1)", "X->M,M->Y", True),  # no back-door path at all
        ("P(Y_{X=0}=1 | X=1, M)", "X->M,M->Y", False),  # M is a descendant of X
        ("P(Y_{X=0}=1 | X=1, M)", M_BIAS, False),  # the collider M opens X <- U1 -> M <- U2 -> Y
        ("P(Y_{X=0}=1 | X=1)", M_BIAS, True),
    ],
)
def test_counterfactual_backdoor_exchange_needs_an_admissible_set(term, edges, allowed):
    graph = DoGraph.parse(edges)
    exchanged = parse(term.replace("| X=1", "| X=0"))
    found = {r.result for r in backdoor_exchange(parse(term), RuleContext(graph, ()))}
    assert (exchanged in found) is allowed
    # the rule's condition is exactly when the exchange is an identity on these graphs
    assert semantic_check(parse(term), exchanged, graph).equal is allowed


# REFERENCE §3: false equalities the upstream verifier "proves"
UPSTREAM_FALSE = [
    ("P(Y=1 | do(Z=1))", "P(Y=1 | Z=1)", "U->Z,U->Y,Z->Y"),  # valued outcome under confounding
    ("P(Y, M | do(X))", "P(Y, M | X)", "U->X,U->Y,X->M,M->Y"),  # multi-variable outcome
    ("P(y | do(x))", "P(y | x)", "u->x,u->y,x->y"),  # lower-case names
    ("P(Y | do(X=1))", "P(Y | X)", "X->Y"),  # rule 2 dropping the intervention value
    ("P(Y=1 | do(X=1), Z=0)", "P(Y=1 | X=0, Z=0)", BACKDOOR),  # value changed in an exchange
]


@pytest.mark.parametrize("a, b, edges", UPSTREAM_FALSE)
def test_upstream_false_proofs_are_rejected(a, b, edges):
    graph = DoGraph.parse(edges)
    verdict = check_equivalence(a, b, graph)
    assert verdict.equivalent is False and verdict.counterexample is not None
    assert verdict.counterexample.value_a != pytest.approx(verdict.counterexample.value_b)
    # the search itself must not find a proof either (it would mean an unsound rule)
    assert (
        find_proof(parse(a), parse(b), graph, SearchLimits(max_depth=3, max_nodes=1500, time_limit=600.0)).proof is None
    )


def test_lower_case_names_work_when_the_identity_holds():
    assert check_equivalence("P(y | do(x))", "P(y | x)", "x->y", limits=NODE_BOUNDED).method == "proof"


def test_napkin_estimand_is_verified_and_a_near_miss_is_not():
    graph = DoGraph.parse(NAPKIN, latent=["U1", "U2"])
    napkin = r"(\sum_{W} P(X, Y | W, Z) * P(W)) / (\sum_{W} P(X | W, Z) * P(W))"
    assert check_equivalence("P(Y | do(X))", napkin, graph).equivalent is True
    assert check_equivalence("P(Y | do(X))", r"\sum_{W} P(Y | X, W, Z) * P(W)", graph).equivalent is False


@pytest.mark.parametrize(
    "a, b, edges, fragment",
    [
        ("P(Y | do(X)", "P(Y | X)", "X->Y", "position 11"),
        ("P(Y | do(X))", "P(Y | W)", "X->Y", "['W']"),
        ("P(Y | do(X))", "P(Y | X)", "X->Y,Y->X", "cycle"),
        # a proof of nonsense is no verdict
        (
            "P(Y=2 | do(X))",
            "P(Y=2 | X)",
            DoGraph.parse("X->Y", domains={"Y": 2}),
            "outside the 2 values declared for Y",
        ),
    ],
)
def test_undecidable_inputs_give_none_with_a_reason(a, b, edges, fragment):
    verdict = check_equivalence(a, b, edges)
    assert verdict.equivalent is None and verdict.method == "error" and fragment in verdict.error


def test_large_graphs_are_decided_exactly_or_by_proof():
    chain = ",".join(f"A{i}->A{i + 1}" for i in range(29))  # 2^30 joint states, never built
    small = check_equivalence("P(A3 | do(A0))", "P(A3)", chain)  # only A0..A3 matter
    assert small.equivalent is False and small.counterexample.model["any_tables_for"][0] == "A4"
    # six layers of five nodes, each with two parents in the layer before: 2^30 joint states
    layers = [[f"L{i}N{j}" for j in range(5)] for i in range(6)]
    edges = ",".join(
        f"{layers[i][(j + k) % 5]}->{layers[i + 1][j]}" for i in range(5) for j in range(5) for k in (0, 1)
    )
    wide = check_equivalence(
        "P(L5N0 | do(L0N0))", "P(L5N0)", edges, prove=False
    )  # variable elimination, layer by layer
    assert wide.equivalent is False and wide.method == "semantic"
    # every pair of 22 nodes joined: the last one's table alone has 2^22 entries per model
    dense = ",".join(f"A{i}->A{j}" for i in range(22) for j in range(i + 1, 22))
    given = ", ".join(f"A{i}" for i in range(20))
    proved = check_equivalence(f"P(A21 | do(A20), {given})", f"P(A21 | A20, {given})", dense, limits=NODE_BOUNDED)
    assert proved.equivalent is True and proved.method == "proof"
    open_question = check_equivalence("P(A21 | do(A0))", "P(A21)", dense, limits=SearchLimits(max_nodes=100))
    assert open_question.equivalent is None and "table entries (limit" in open_question.error
    assert "no proof found" in open_question.error


def test_free_index_names_do_not_matter():
    assert check_equivalence("P(Y=y | X=x)", "P(Y | X)", "X->Y").method == "identical"
    assert check_equivalence("P(Y=y | do(X=x))", "P(Y | X)", "X->Y").equivalent is True


def test_cli_exit_codes(capsys):
    assert main(["equiv", "P(Y | do(X))", r"\sum_{Z} P(Y | X, Z) * P(Z)", "--graph", BACKDOOR]) == 0
    out = capsys.readouterr().out  # the verdict first, the proof searched afterwards
    assert out.startswith("equivalent (semantic)") and out.index("values: ") < out.index("proof:")
    assert "rule 2: action to observation" in out
    assert main(["equiv", "P(Y=1 | do(Z=1))", "P(Y=1 | Z=1)", "--graph", "U->Z,U->Y,Z->Y", "--latent", "U"]) == 1
    assert "counterexample" in capsys.readouterr().out
    assert main(["equiv", "P(Y | do(X))", "P(Y | W)", "--graph", "X->Y"]) == 2
    assert capsys.readouterr().out.startswith("bad input: graph error: variable(s) ['W'] are not in the graph")
    assert main(["equiv", "P(Y=1|X=1)/(P(X=1) - P(X=1))", "P(Y=1)", "--graph", "X->Y"]) == 3
    assert capsys.readouterr().out.startswith("undecided: an expression is undefined")


@pytest.mark.parametrize(
    "option",
    [
        ["--models", "0"],
        ["--models", "-1"],
        ["--seed", "-1"],
        ["--time-limit", "0"],
        ["--models", "three"],
        ["--models", "1001"],
        ["--models", "1000000000"],
    ],
)
def test_cli_bad_options_are_one_line_and_exit_code_2(option, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["equiv", "P(Y=1)", "P(Y=0)", "--graph", "Y", *option])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith(f"causal-datasets equiv: error: argument {option[0]}")


def test_no_models_is_refused_rather_than_vacuously_equal():
    with pytest.raises(ValueError, match="models must be between 1 and 1000"):
        check_equivalence("P(Y=1)", "P(Y=0)", "Y", models=0)
    with pytest.raises(ValueError, match="models must be between 1 and 1000"):  # not an allocation of 100 GiB
        check_equivalence("P(Y=1)", "P(Y=0)", "Y", models=1_000_000_000)


@pytest.mark.parametrize(
    "graph", ["X<-Z,Z->Y,X->Y", "X <- Z\nZ -> Y\nX -> Y", "X<->Y,X->Y", "X ↔ Y, X → Y", "Z->X, Z->Y, X->Y, X<->Y"]
)
def test_left_arrows_and_bidirected_edges_keep_the_confounder(graph, capsys):
    """``X<-Z`` was once read as one node named 'X<-Z': the confounder vanished and a false pair was 'proved'."""
    verdict = check_equivalence("P(Y | do(X))", "P(Y | X)", graph)
    assert verdict.equivalent is False and verdict.counterexample is not None
    assert main(["equiv", "P(Y | do(X))", "P(Y | X)", "--graph", graph]) == 1
    assert "counterexample" in capsys.readouterr().out


def test_a_bidirected_edge_is_an_explicit_latent_common_cause():
    graph = DoGraph.parse("X<->Y, X->Y")
    (latent,) = graph.latent
    assert latent == "U_X_Y" and (latent, "X") in graph.edges and (latent, "Y") in graph.edges
    assert check_equivalence("P(Y | do(X))", r"\sum_{Z} P(Y | X, Z) * P(Z)", "X<-Z,Z->Y,X->Y").equivalent is True
    with pytest.raises(GraphError, match="'--' is not an edge mark"):
        DoGraph.parse("X--Y")


def test_evaluate_module_scores_a_batch_without_dying_on_bad_items():
    metric = evaluate.load(metric_path("do_calculus_equivalence"))
    result = metric.compute(
        predictions=[r"\sum_{Z} P(Y | X, Z) * P(Z)", "P(Y | X)", "P(Y | do(X)", "P(Y|do(X))"],
        references=["P(Y | do(X))"] * 4,
        graphs=[BACKDOOR, BACKDOOR, BACKDOOR, "X->Y,Y->X"],
    )
    assert result["verdicts"] == [True, False, None, None]
    assert result["accuracy"] == 0.25 and result["string_match"] == 0.25
    assert result["methods"][:2] == ["semantic", "semantic"] and result["methods"][2:] == ["error", "error"]
    assert result["undecided"] == 2 and "position" in result["errors"][2]


def test_evaluate_module_scores_under_either_rule():
    """Equivalence (the default, DoVerifier's rule) credits an equal do() answer and an adjustment for a
    latent confounder; identification credits only formulas in observed probabilities."""
    metric = evaluate.load(metric_path("do_calculus_equivalence"))
    batch = {
        "predictions": [r"\sum_{Z} P(Y | X, Z) * P(Z)", "P(Y | do(X))", r"\sum_{U} P(U) * P(Y | X, U)", "P(Y | X)"],
        "references": ["P(Y | do(X))"] * 4,
        "graphs": [BACKDOOR, BACKDOOR, "U->X,U->Y,X->Y", BACKDOOR],
        "latents": [None, None, ["U"], None],
    }
    equivalence = metric.compute(**batch)
    identification = metric.compute(**batch, scoring="identification")
    assert equivalence["verdicts"] == identification["verdicts"] == [True, True, True, False]
    assert equivalence["identified"] == [True, False, False, False]
    assert (equivalence["accuracy"], identification["accuracy"]) == (0.75, 0.25)
    assert equivalence["identification_accuracy"] == 0.25 and identification["equivalence_accuracy"] == 0.75
    with pytest.raises(ValueError, match="scoring must be one of"):
        metric.compute(**batch, scoring="strict")


def test_numbers_are_compared_exactly_not_within_a_tolerance(capsys):
    assert check_equivalence("0.1 + 0.2", "0.3", "X").method == "arithmetic"
    assert check_equivalence("0.1 + 0.2", "0.3", "X").equivalent is True
    near = check_equivalence("0.3", "0.3000000001", "X")  # once "equal" within 1e-9
    assert near.equivalent is False and near.counterexample.model == {
        "kind": "arithmetic",
        "a": "3/10",
        "b": "3000000001/10000000000",
    }
    assert check_equivalence("1/3", "0.3333333333333333", "X").equivalent is False
    assert check_equivalence("1/(2-2)", "1", "X").equivalent is None  # undefined: never a verdict
    assert main(["equiv", "0.1 + 0.2", "0.3", "--graph", "X"]) == 0
    assert main(["equiv", "0.3", "0.3000000001", "--graph", "X"]) == 1
    assert "a = 0.3, b = 0.3000000001" in capsys.readouterr().out


def test_an_estimand_that_uses_an_unobserved_variable_gets_no_verdict():
    """Adjusting for a latent confounder gives the right number in every model, but it is no estimand."""
    verdict = check_equivalence(r"\sum_{U} P(Y | X, U) * P(U)", "P(Y | do(X))", "U->X,U->Y,X->Y", latent=["U"])
    assert verdict.equivalent is None and verdict.invalid and "unobserved variable(s) ['U']" in verdict.error
    observed = check_equivalence(r"\sum_{U} P(Y | X, U) * P(U)", "P(Y | do(X))", "U->X,U->Y,X->Y")
    assert observed.equivalent is True  # the same pair when U is observed


def test_two_values_for_one_intervened_variable_is_a_parse_error():
    verdict = check_equivalence("P(Y | do(X=0), do(X=1))", "P(Y)", "X->Y")
    assert verdict.invalid and "do() sets X twice in one term (X=0 and X=1)" in verdict.error
    assert check_equivalence("P(Y | do(X=1), do(X=1))", "P(Y | do(X=1))", "X->Y").equivalent is True


@pytest.mark.parametrize(
    "text, reason",
    [
        ("(" * 3000 + "P(Y)" + ")" * 3000, "brackets nested deeper than 100"),
        ("9" * 5000, "a number of more than 60 digits"),
        ("P(Y) + " * 20000 + "P(Y)", "longer than 100000 characters"),
    ],
)
def test_pathological_inputs_are_refused_before_parsing(text, reason, capsys):
    verdict = check_equivalence(text, "P(Y)", "Y")
    assert verdict.invalid and reason in verdict.error and len(verdict.error) < 400
    assert main(["equiv", text, "P(Y)", "--graph", "Y"]) == 2
    assert capsys.readouterr().out.count("\n") == 3  # the reason, a window of the text, a pointer


def test_a_long_sum_is_decided_without_the_quadratic_proof_search():
    terms = " + ".join(f"P(Y={i % 2})" for i in range(4000))
    verdict = check_equivalence(terms, "2000", "Y")
    assert verdict.equivalent is True and verdict.method == "semantic"
