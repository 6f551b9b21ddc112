"""Random pairs: proofs, semantic verdicts and the proof search agree (soundness in bulk)."""

from __future__ import annotations

import random

from causal_datasets.cladder_pairs.synthetic import generate_pairs, random_dag
from causal_datasets.docalc.decide import semantic_check
from causal_datasets.docalc.search import SearchLimits, find_proof
from causal_datasets.docalc.verdict import check_proof

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
