"""Incomplete knowledge (DoVerifier App. B): independence statements in place of a DAG.

The cross-checks take a DAG, hand the verifier only its independences (all of them, or some), and
require every verdict to be the DAG's own or undecided — never the opposite one — on CLadder's
pairs and on synthetic pairs, while deciding a good share of them.
"""

import random

import evaluate
import pytest

from causal_datasets import metric_path
from causal_datasets.cladder_pairs.cladder import (
    FAMILY_EDGES,
    candidate_mistakes,
    family_graph,
    formal_expression,
    read_questions,
)
from causal_datasets.cladder_pairs.rows import question_rows
from causal_datasets.cladder_pairs.synthetic import generate_pairs, random_dag
from causal_datasets.cli import main
from causal_datasets.docalc.independence import (
    IndependenceError,
    Independences,
    Statement,
    TooManyGraphs,
    graph_independences,
    parse_statement,
)
from causal_datasets.docalc.search import SearchLimits
from causal_datasets.docalc.verdict import check_equivalence
from tests.support.data import SHARED_DATA_DIR


def dag_statements(graph) -> list[str]:
    """Every elementary d-separation of ``graph``, as text (what a user would write)."""
    return [statement.text for statement in graph_independences(graph)]


@pytest.fixture(scope="module")
def cladder_pairs():
    """Per family: its distinct (formal form, estimand) pairs and the candidate mistakes for an ATE."""
    questions = question_rows(read_questions(SHARED_DATA_DIR / "cladder"))
    pairs: dict[str, set] = {family: set() for family in FAMILY_EDGES}
    for q in questions:
        pairs[q.graph_id].add((formal_expression(q).text, q.estimand))
    for family in FAMILY_EDGES:
        for _, wrong in candidate_mistakes(family, {}):
            pairs[family].add(("E[Y | do(X = 1)] - E[Y | do(X = 0)]", wrong.text))
    return {family: sorted(found) for family, found in pairs.items()}


@pytest.mark.parametrize(
    ("text", "left", "right", "given"),
    [
        ("X ⊥ Y | Z", {"X"}, {"Y"}, {"Z"}),
        ("X, W ⊥⊥ Y", {"X", "W"}, {"Y"}, set()),
        ("X _||_ Y | Z, V2", {"X"}, {"Y"}, {"Z", "V2"}),
        ("X _|_ Y", {"X"}, {"Y"}, set()),
        ("X indep Y | Z", {"X"}, {"Y"}, {"Z"}),
        ("X ⫫ Y, Z | Z", {"X"}, {"Y"}, {"Z"}),  # a conditioned variable leaves the sides
    ],
)
def test_statements_parse(text, left, right, given):
    assert parse_statement(text) == Statement(frozenset(left), frozenset(right), frozenset(given))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("X Y", "no independence symbol"),
        ("X ⊥ Y ⊥ Z", "more than one independence symbol"),
        ("⊥ Y", "both sides of ⊥ need a variable"),
        ("X ⊥ X", "on both sides"),
        ("X ⊥ Y-1", "is not a variable name"),
    ],
)
def test_bad_statements_are_one_clear_error(text, reason):
    with pytest.raises(IndependenceError, match=reason):
        Independences.parse(text)


def test_too_many_variables_is_refused_not_computed():
    with pytest.raises(TooManyGraphs, match="12 variables"):
        Independences.parse(" ; ".join(f"A{i} ⊥ B{i}" for i in range(6)))
    verdict = check_equivalence("P(A1)", "P(A2)", Independences.parse("A0 ⊥ A9 | A5"), ["A3"])
    assert verdict.equivalent is False  # 6 variables: decided


def test_closure_follows_the_d_separation_rules():
    known = Independences.parse("X ⊥ Y, Z | W")
    assert known.implies({"X"}, {"Y"}, {"W"}) and known.implies({"X"}, {"Y"}, {"Z", "W"})  # decomposition, weak union
    assert known.implies({"Y"}, {"X"}, {"W"}) and not known.implies({"X"}, {"Y"})  # symmetry; nothing more
    contraction = Independences.parse("X ⊥ Z | W; X ⊥ Y | Z, W")
    assert contraction.implies({"X"}, {"Y", "Z"}, {"W"})
    intersection = Independences.parse("X ⊥ Y | Z; X ⊥ Z | Y")
    assert intersection.implies({"X"}, {"Y", "Z"})
    composition = Independences.parse("X ⊥ Y; X ⊥ Z")
    assert composition.implies({"X"}, {"Y", "Z"}) and not composition.implies({"Y"}, {"Z"})
    assert known.implies({"X"}, set(), {"W"}) and not known.implies({"X"}, {"X"})


def test_every_implied_statement_is_a_d_separation_of_any_dag_it_came_from():
    """Soundness of the closure: from a random half of a DAG's independences, everything implied
    holds in the DAG (30 random DAGs of up to 6 nodes)."""
    rng = random.Random(5)
    implied_beyond_given = 0
    for _ in range(30):
        graph = random_dag(rng, max_nodes=6)
        statements = dag_statements(graph)
        given = rng.sample(statements, len(statements) // 2)
        known = Independences.parse(given)
        for pair, condition in known.closure():
            a, b = sorted(pair)
            assert graph.d_separated({a}, {b}, condition), (graph.edge_text(), given, a, b, condition)
        implied_beyond_given += len(known.closure()) - len(given)
    assert implied_beyond_given > 50  # the rules do add statements


@pytest.mark.parametrize("family", sorted(FAMILY_EDGES))
def test_complete_independences_of_a_cladder_graph_never_contradict_it(family, cladder_pairs):
    """With every independence of the family's graph, each verdict is the graph's or undecided."""
    graph = family_graph(family)
    known = Independences.parse(dag_statements(graph), complete=True, latent=graph.latent)
    members = known.equivalence_class(graph.nodes)
    assert any(set(m.edges) == set(graph.edges) for m in members)
    for a, b in cladder_pairs[family]:
        truth = check_equivalence(a, b, graph, prove=False)
        told = check_equivalence(a, b, known, prove=False)
        assert told.equivalent in (truth.equivalent, None), (family, a, b, told)
        if told.equivalent is not None and not told.invalid:
            assert told.note and "DAG(s) with exactly these independences" in told.note


def test_independences_decide_a_share_of_cladder_pairs_both_ways(cladder_pairs):
    decided = {True: 0, False: 0, None: 0}
    for family, pairs in cladder_pairs.items():
        graph = family_graph(family)
        known = Independences.parse(dag_statements(graph), complete=True, latent=graph.latent)
        for a, b in pairs:
            decided[check_equivalence(a, b, known, prove=False).equivalent] += 1
    assert decided[True] >= 5 and decided[False] >= 5 and decided[None] >= 5, decided


def test_synthetic_pairs_under_some_or_all_independences():
    """Random DAGs of up to 6 nodes: with all independences (complete) and with a random half
    (partial), no verdict is ever the opposite of the DAG's; partial knowledge proves equalities."""
    rng = random.Random(8)
    tallies = {"complete": {True: 0, False: 0, None: 0}, "partial": {True: 0, False: 0, None: 0}}
    for pair in generate_pairs(seed=21, count=30, max_nodes=6):
        statements = dag_statements(pair.graph)
        for mode, chosen, complete in (
            ("complete", statements, True),
            ("partial", rng.sample(statements, (len(statements) + 1) // 2), False),
        ):
            known = Independences.parse(chosen, complete=complete)
            told = check_equivalence(
                pair.a, pair.b, known, prove=mode == "partial", limits=SearchLimits(max_nodes=300, time_limit=600.0)
            )
            assert told.equivalent in (pair.equivalent, None), (pair.graph.edge_text(), pair.a.text, pair.b.text, mode)
            tallies[mode][told.equivalent] += 1
    assert tallies["complete"][True] > 0 and tallies["complete"][False] > 0, tallies
    assert tallies["partial"][True] > 0 and tallies["partial"][None] > 0, tallies


def test_partial_knowledge_decides_only_what_it_implies():
    chain = Independences.parse("X ⊥ Y | V2")
    proof = check_equivalence("P(Y | X, V2)", "P(Y | V2)", chain)
    assert proof.equivalent is True and proof.method == "proof" and "(Y ⊥ X | V2)" in proof.proof.steps[0].condition
    undecided = check_equivalence("P(Y | do(X))", "P(Y | X)", chain)  # the true DAG might be Y -> V2 -> X
    assert undecided.equivalent is None and not undecided.invalid and "do not decide" in undecided.error
    wrong = check_equivalence("P(Y=1 | X=1)", "P(Y=0 | X=1)", chain)
    assert (
        wrong.equivalent is False and wrong.counterexample is not None and "every variable is independent" in wrong.note
    )
    no_effect = check_equivalence("P(Y | do(X))", "P(Y)", Independences.parse("X ⊥ Y"))  # rule 3 from X ⊥ Y
    assert no_effect.equivalent is True and no_effect.method == "proof"


def test_complete_knowledge_uses_the_whole_equivalence_class():
    collider = Independences.parse("X ⊥ Y", complete=True)  # among X, Y, V3 only X -> V3 <- Y has exactly this
    assert [set(m.edges) for m in collider.equivalence_class(["X", "Y", "V3"])] == [{("X", "V3"), ("Y", "V3")}]
    effect = check_equivalence("P(V3 | do(X))", "P(V3 | X)", collider)
    assert effect.equivalent is True and effect.method == "independences"
    chain = Independences.parse("X ⊥ Y | V2", complete=True)  # a chain either way, or a fork
    assert len(chain.equivalence_class(["X", "Y", "V2"])) == 3
    split = check_equivalence("P(Y | do(X))", "P(Y | X)", chain)
    assert split.equivalent is None and "equal under" in split.error and "different under" in split.error
    dependent = check_equivalence("P(Y | X)", "P(Y)", chain)  # dependent in every member
    assert dependent.equivalent is False and dependent.counterexample is not None


def test_statements_no_dag_has_exactly_are_bad_input():
    impossible = Independences.parse("X ⊥ Y; X ⊥ Y | Z", complete=True)
    verdict = check_equivalence("P(Y | X)", "P(Y)", impossible)
    assert verdict.equivalent is None and verdict.invalid and "no DAG has exactly these independences" in verdict.error
    hidden = check_equivalence("P(Y | U)", "P(Y)", Independences.parse("X ⊥ Y", latent=["U"]))
    assert hidden.invalid and "unobserved" in hidden.error


def test_the_metric_takes_independences_in_place_of_graphs():
    metric = evaluate.load(metric_path("do_calculus_equivalence"))
    result = metric.compute(
        predictions=["P(Y | X, V2)", "P(Y | do(X))", "P(Y | do(X))", "P(Y | X)"],
        references=["P(Y | V2)", "P(Y | X)", "P(Y | X)", "P(Y)"],
        graphs=[None, None, "X->V2,V2->Y", None],
        independences=["X ⊥ Y | V2", "X ⊥ Y | V2", None, "X ⊥ ⊥ Y"],
    )
    assert result["verdicts"] == [True, None, True, None]
    assert result["methods"][:2] == ["proof", "independences"] and "independence symbol" in result["errors"][3]
    with pytest.raises(ValueError, match="graphs is required"):
        metric.compute(predictions=["P(Y)"], references=["P(Y)"])


def test_equiv_command_takes_independences(capsys):
    assert main(["equiv", "P(Y|X,V2)", "P(Y|V2)", "--independences", "X ⊥ Y | V2"]) == 0
    assert "every rule condition of the proof follows from the statements" in capsys.readouterr().out
    assert main(["equiv", "P(Y|do(X))", "P(Y|X)", "--independences", "X ⊥ Y | V2", "--complete"]) == 3
    assert "do not decide" in capsys.readouterr().out
    assert main(["equiv", "P(Y|X)", "P(Y)", "--independences", "X Y"]) == 2
    assert main(["equiv", "P(Y|X)", "P(Y)", "--graph", "X->Y", "--complete"]) == 2
    assert "--complete goes with --independences" in capsys.readouterr().err
