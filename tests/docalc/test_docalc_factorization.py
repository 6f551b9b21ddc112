"""Tian's c-component factorization as a checked rule (:mod:`causal_datasets.docalc.factorization`): every
rewrite it makes is equal to the term under the verifier and under the tests' exact evaluator with explicit
latent variables (no code shared with the package); where its condition fails it makes none."""

from __future__ import annotations

import itertools
import math

import numpy as np

from causal_datasets.docalc.factorization import RULE, c_component_factorization
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.rules import RuleContext
from causal_datasets.docalc.verdict import as_graph, check_equivalence
from tests.support.admgs import LatentModel, query_text, random_admg


def rewrites(term: str, graph: str) -> list:
    return list(c_component_factorization(parse(term), RuleContext(as_graph(graph), ())))


def test_textbook_factorization():
    (rewrite,) = rewrites("P(A, B | do(X))", "X->A,X->B")
    assert rewrite.rule == RULE
    assert rewrite.result.text == "P(A | do(B, X)) * P(B | do(A, X))"
    (rewrite,) = rewrites("P(M, Y, Z | do(X))", "X->M,M->Y,X<->Y,Z->X,Z->Y")
    assert rewrite.result.text == "P(M | do(X, Y, Z)) * P(Y | do(M, X, Z)) * P(Z | do(M, X, Y))"


def test_no_rewrite_where_the_condition_fails():
    # an observed ancestor outside the term: P(A, B) is not P(A | do(B)) * P(B | do(A)) = P(A) * P(B) here
    assert rewrites("P(A, B)", "Z->A,Z->B") == []
    assert check_equivalence("P(A, B)", "P(A | do(B)) * P(B | do(A))", "Z->A,Z->B").equivalent is False
    # one district: nothing to factorize; conditions and repeated variables are not taken
    assert rewrites("P(A, B | do(X))", "X->A,A<->B") == []
    assert rewrites("P(A | do(X), B)", "X->A,X->B") == []
    assert rewrites("P(A, B=1 | do(B))", "A->B") == []


def test_every_rewrite_on_random_admgs_is_an_identity():
    """Terms P(S | do(X)) on random ADMGs of 3-6 nodes with S ∪ X every node (the condition holds) or an
    ancestral set: each rewrite equal to the term under the verifier and the explicit-latent evaluator."""
    rng = np.random.default_rng(40)
    checked = 0
    for _ in range(120):
        graph = random_admg(rng, int(rng.integers(3, 7)), p_bidirected=0.3)
        nodes = list(rng.permutation(graph.nodes))
        cut = int(rng.integers(1, len(nodes)))
        xs, ss = sorted(nodes[:cut]), sorted(nodes[cut:])
        term = query_text(ss, xs)
        for rewrite in rewrites(term, graph.text):
            checked += 1
            assert check_equivalence(term, rewrite.result, graph.text, prove=False).equivalent is True, term
            model = LatentModel(graph, np.random.default_rng(checked))
            factors = [([a.var for a in f.event], [v for v, _ in f.do]) for f in rewrite.result.factors]
            for values in itertools.product(range(model.observed), repeat=len(nodes)):
                env = dict(zip(nodes, values, strict=True))
                product = math.prod(model.query(part, rest, [], env) for part, rest in factors)
                assert abs(product - model.query(ss, xs, [], env)) < 1e-9, (term, graph.text)
    assert checked > 20
