"""The exact evaluation's fast paths give the same exact values as the plain ones.

* :func:`~causal_datasets.docalc.integer_einsum.integer_einsum` against numpy's einsum over Python
  integers, on operands where a plain int64 einsum would wrap, on long sums that go through int64
  limbs, on negative and 300-bit integers;
* a sum over a product, summed one index at a time (:mod:`.exact`), against the same expression
  evaluated value by value in :class:`~fractions.Fraction`;
* the float pass run after the exact one (``floats="after"``) against it run first: the same results.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from causal_datasets.docalc import parse
from causal_datasets.docalc.decide import _compare
from causal_datasets.docalc.exact import ExactTables, exact_factor
from causal_datasets.docalc.expr import Add, Div, Expr, Neg, Num, Prob, Sum, children
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.integer_einsum import integer_einsum
from causal_datasets.docalc.latent import projection
from causal_datasets.docalc.semantics import IndexDomains, TableModel, bind_atoms, bind_do
from tests.support.admg import corpus


def plain(arrays: list[np.ndarray], labels: list[list[int]], out: list[int]) -> np.ndarray:
    """numpy's einsum over Python integers: the reference."""
    operands = [x for array, names in zip(arrays, labels, strict=True) for x in (array.astype(object), names)]
    return np.asarray(np.einsum(*operands, out), dtype=object)


def same_integers(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and all(type(g) is int and g == w for g, w in zip(got.flat, want.flat, strict=True))


def test_a_sum_that_wraps_in_int64_is_exact():
    rng = np.random.default_rng(0)
    # a latent of 177 values: products of 40-bit and 30-bit counts summed 177 times need 78 bits
    prior = rng.integers(1 << 39, 1 << 40, size=(3, 177), dtype=np.int64)
    table = rng.integers(1 << 29, 1 << 30, size=(3, 177, 4, 3), dtype=np.int64)
    labels, out = [[0, 1], [0, 1, 2, 3]], [0, 2, 3]
    wrapped = np.einsum(prior, labels[0], table, labels[1], out)  # int64: wraps without a word
    want = plain([prior, table], labels, out)
    assert not same_integers(wrapped.astype(object), want)
    assert same_integers(integer_einsum([prior, table], labels, out), want)
    # the same as Python integers, and with a third operand
    third = rng.integers(0, 1 << 22, size=(3, 177, 4), dtype=np.int64).astype(object)
    labels3 = [*labels, [0, 1, 2]]
    got = integer_einsum([prior.astype(object), table.astype(object), third], labels3, out)
    assert same_integers(got, plain([prior, table, third], labels3, out))


def test_large_and_negative_integers_through_limbs():
    rng = random.Random(1)
    big = np.array([rng.randrange(-(1 << 300), 1 << 300) for _ in range(2 * 200)], dtype=object).reshape(2, 200)
    small = np.array([rng.randrange(-(1 << 70), 1 << 70) for _ in range(2 * 200 * 3)], dtype=object).reshape(2, 200, 3)
    labels = [[0, 1], [0, 1, 2]]
    for out in ([0, 2], [2, 0], [2], []):
        assert same_integers(integer_einsum([big, small], labels, out), plain([big, small], labels, out)), out


@pytest.mark.parametrize("seed", range(40))
def test_random_contractions_equal_numpys_over_python_integers(seed):
    rng = random.Random(seed)
    sizes = [rng.randint(1, 12) for _ in range(5)]
    labels = [sorted(rng.sample(range(5), rng.randint(1, 4))) for _ in range(rng.randint(1, 4))]
    arrays = []
    for names in labels:
        bits = rng.choice([8, 30, 62, 63, 64, 120])
        signed = rng.random() < 0.3
        entries = [
            rng.randrange(-(1 << bits) if signed else 0, 1 << bits)
            for _ in range(int(np.prod([sizes[n] for n in names])))
        ]
        array = np.array(entries, dtype=object).reshape([sizes[n] for n in names])
        arrays.append(array.astype(np.int64) if bits < 63 and rng.random() < 0.5 else array)
    present = sorted(set().union(*labels))
    out = rng.sample(present, rng.randint(0, len(present)))
    assert same_integers(integer_einsum(arrays, labels, out), plain(arrays, labels, out))


def test_unsigned_integers_beyond_int64_are_not_wrapped():
    top = np.full((2, 600), (1 << 64) - 1, dtype=np.uint64)  # large enough for the pairwise path
    ones = np.ones((2, 600, 3), dtype=np.uint64)
    labels, out = [[0, 1], [0, 1, 2]], [0, 2]
    assert same_integers(integer_einsum([top, ones], labels, out), plain([top, ones], labels, out))


def test_floats_are_refused():
    with pytest.raises(TypeError, match="integers"):
        integer_einsum([np.ones((2, 3)), np.ones((2, 3), dtype=object)], [[0, 1], [0, 1]], [0])


# ---- sums over products -------------------------------------------------------------------------


def by_value(e: Expr, exact: ExactTables, graph: DoGraph, env: dict[str, int], member: int) -> Fraction | None:
    """``e`` in one member, summed and multiplied value by value in Fractions (None: undefined)."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Prob):
        event, given = bind_atoms(e.event, graph, env), bind_atoms(e.given, graph, env)
        numerator, denominator = exact.prob(event, bind_do(e.do, graph, env), given)
        return Fraction(numerator[member], denominator[member]) if denominator[member] else None
    if isinstance(e, Sum):
        parts = [by_value(e.body, exact, graph, {**env, e.index: v}, member) for v in range(graph.domain(e.var))]
        return None if None in parts else sum(parts, Fraction(0))
    parts = [by_value(child, exact, graph, env, member) for child in children(e)]
    if None in parts:
        return None
    if isinstance(e, Neg):
        return -parts[0]
    if isinstance(e, Div):
        return parts[0] / parts[1] if parts[1] else None
    return sum(parts, Fraction(0)) if isinstance(e, Add) else math.prod(parts, start=Fraction(1))


SUMS = [
    r"\sum_{Z} P(Y | X, Z) * P(Z)",
    r"\sum_{W} P(W | X) * \sum_{X=x} P(Y | W, X=x) * P(X=x)",
    r"\sum_{Z, W} P(Z) * (P(W | Z) * P(Y | X, W)) * P(X | Z)",  # a nested product
    r"\sum_{Z} \sum_{W} P(Y | X, Z) * P(Z)",  # W in no factor: counted twice
    r"\sum_{Z} \sum_{Z} P(Y | X, Z) * P(Z)",  # the same index summed again inside
    r"\sum_{Z} (P(Y | X, Z) * P(Z) - P(Y, Z | X) / P(W=1 | Z))",  # not a product
    r"\sum_{W} P(W) * \sum_{Z} P(Z | W) * P(Y | Z, W, X) * 3",
    r"\sum_{Z} P(Y | X, Z) * P(Z) * (P(X=0) - P(X=0))",  # zero
]


def test_sums_over_products_equal_the_expression_summed_value_by_value():
    graph = DoGraph.parse("Z->X,Z->Y,X->Y,W->Y,W->Z,Z->W2", domains={"Z": 3, "W": 2})
    model = TableModel.random(graph, np.random.default_rng(11), members=2)
    exact = ExactTables(model)
    for text in SUMS:
        expr = parse(text)
        domains = IndexDomains.of(graph, expr)
        factor = exact_factor(expr, exact, graph, domains.sizes)
        values = factor.values()
        for position in itertools.product(*(range(domains.sizes[n]) for n in factor.names)):
            env = dict(zip(factor.names, position, strict=True))
            for member in range(2):
                assert values[(member, *position)] == by_value(expr, exact, graph, env, member), (text, env)


# ---- the float pass after the exact one ---------------------------------------------------------


def test_the_float_pass_after_the_exact_one_changes_no_result():
    """On the generator's labelled pairs whose latent sources need more than two values, running the
    float pass after the exact one (only where it does not show equality on every model) gives the
    result running it first gives, counterexamples and the arithmetic that decided included."""
    from causal_datasets.docalc.expr import contains_counterfactual, variables
    from causal_datasets.docalc.latent import latent_values
    from causal_datasets.docalc.verdict import _read

    compared = 0
    for pair in corpus(3, 150, nodes=(4, 7), latent_edges=(1, 8), label_models=2, latent_values=(2, 3)):
        graph = DoGraph.parse(pair.graph.text(), domains=pair.domains)
        a, b = _read(pair.a), _read(pair.b)
        relevant = graph.ancestral(variables(a) | variables(b))
        counterfactual = contains_counterfactual(a) or contains_counterfactual(b)
        if not projection(relevant).sources:
            continue
        sizes = latent_values(relevant, a, b, counterfactual)
        results = [
            _compare(a, b, graph, relevant, sizes, 0, 3, counterfactual, True, floats) for floats in ("first", "after")
        ]
        assert results[0] == results[1], (pair.a, pair.b)
        compared += 1
    assert compared > 50


def test_a_difference_of_thousands_of_digits_is_written_rounded():
    from causal_datasets.docalc.decide import _difference

    assert _difference(Fraction(-1000)) == "a - b = -1000 exactly"
    assert _difference(Fraction(1, 3**10000)) == "a - b = 0 (the exact value, rounded)"
    assert _difference(Fraction(10**70 + 1, 3)).endswith("(the exact value, rounded)")
