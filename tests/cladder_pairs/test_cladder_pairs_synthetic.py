"""Random pairs: proofs, semantic verdicts and the proof search agree (soundness in bulk)."""

from __future__ import annotations

import random

import pytest

from causal_datasets.cladder_pairs.synthetic import generate_pairs, mistake_makers, positive_pair, random_dag
from causal_datasets.docalc import rules
from causal_datasets.docalc.decide import semantic_check
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.search import SearchLimits, find_proof
from causal_datasets.docalc.verdict import UnsoundProof, check_proof

#: bounded by nodes, not wall-clock time, so the outcome does not depend on machine load
NODE_BOUNDED = SearchLimits(max_depth=4, max_nodes=3000, time_limit=600.0)


def test_random_dags_respect_the_paper_parameters():
    rng = random.Random(0)
    graphs = [random_dag(rng) for _ in range(300)]
    assert all(3 <= len(g.nodes) <= 10 for g in graphs)
    possible = sum(len(g.nodes) * (len(g.nodes) - 1) // 2 for g in graphs)
    assert 0.45 < sum(len(g.edges) for g in graphs) / possible < 0.55


def test_proof_search_and_semantic_verdicts_agree_on_random_pairs():
    """2,000 pairs: every generating walk and every found proof holds step by step on fresh random
    models, the search proves every equivalent pair and none of the others."""
    pairs = generate_pairs(seed=11, count=1000)
    positives = [p for p in pairs if p.equivalent]
    negatives = [p for p in pairs if not p.equivalent]
    assert len(positives) == len(negatives) == 1000
    for pair in positives:
        check_proof(pair.proof, pair.graph, seed=5)  # every generated step keeps the value
        assert semantic_check(pair.a, pair.b, pair.graph, seed=5, models=3).equal is True
        found = find_proof(pair.a, pair.b, pair.graph, NODE_BOUNDED)
        assert found.proof is not None, (pair.a.text, pair.b.text)
        check_proof(found.proof, pair.graph, seed=5)
    for pair in negatives:
        assert semantic_check(pair.a, pair.b, pair.graph, seed=5, models=3).equal is False
        assert (
            find_proof(pair.a, pair.b, pair.graph, SearchLimits(max_depth=2, max_nodes=400, time_limit=600.0)).proof
            is None
        )


def test_an_unsound_rule_is_caught_by_the_float_recheck(monkeypatch):
    """The positives' re-check is refute-only in floats: a rule engine that skips do-calculus conditions
    (every rewrite applied as if its condition held) still gets a walk refused as unsound."""
    real = rules._do_rule

    def unchecked(p, roles, rule, var, value, g, above=None):
        applied = real(p, roles, rule, var, value, g, above)
        return applied or rules.Rewrite(rules._do_result(p, rule, var, value), rule, "none")

    monkeypatch.setattr(rules, "_do_rule", unchecked)
    with pytest.raises(UnsoundProof, match="fails the semantic check"):
        generate_pairs(seed=3, count=50)


def test_a_wrong_expression_is_refuted_in_floats_and_an_equal_one_is_not_decided():
    graph = DoGraph.parse("Z->X,Z->Y,X->Y")
    wrong = semantic_check(parse("P(Y | do(X))"), parse("P(Y | X)"), graph, models=1, refute_only=True)
    assert (wrong.equal, wrong.arithmetic) == (False, "float")
    assert wrong.counterexample is not None and wrong.counterexample.value_a != wrong.counterexample.value_b
    adjusted = parse("\\sum_{Z} P(Y | X, Z) * P(Z)")
    equal = semantic_check(parse("P(Y | do(X))"), adjusted, graph, models=1, refute_only=True)
    assert (equal.equal, equal.arithmetic) == (True, "float")


def test_mistakes_skipped_as_valid_rewrites_are_equal_expressions():
    """A negative candidate passed over unchecked (:meth:`Mistake.is_valid_rewrite`) is equal to the
    positive's end in exact arithmetic."""
    rng = random.Random(4)
    skipped = 0
    for _ in range(40):
        pair = positive_pair(rng)
        for mistake in mistake_makers(pair.b, pair.graph):
            if mistake.is_valid_rewrite(pair.graph):
                skipped += 1
                assert semantic_check(pair.b, mistake.make(), pair.graph, seed=2, models=2).equal is True
    assert skipped > 10
