"""The exact pass's machine-integer contraction (docalc/modular.py) gives the same integers as Python's.

Counts contracted modulo several primes and put back together by the Chinese remainder theorem must
equal the same contraction done in Python integers (numpy object arrays, the reference), entry for
entry; and a term read for every value of its indices at once must equal the term read value by
value.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from causal_datasets.docalc import parse
from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.elimination import Table, contract
from causal_datasets.docalc.exact import ExactTables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.modular import PRIME_CEILING, ModularProduct, primes, reconstruct, residues
from causal_datasets.docalc.semantics import TableModel


def is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, math.isqrt(n) + 1))


@pytest.mark.parametrize("bits", [1, 30, 31, 62, 300, 1000])
def test_primes_are_primes_below_the_ceiling_whose_product_exceeds_the_bound(bits):
    found = primes(bits)
    assert math.prod(found) > 1 << bits
    assert math.prod(found[:-1]) <= 1 << bits  # no more than needed
    assert all(p < PRIME_CEILING for p in found) and len(set(found)) == len(found)
    assert all(is_prime(p) for p in found[:3])  # trial division: slow, so the first few


def test_reconstruct_inverts_residues_for_integers_below_the_bound():
    rng = random.Random(1)
    moduli = primes(400)
    values = np.array([[rng.randrange(1 << 400) for _ in range(6)] for _ in range(2)] + [[0, 1, 2, 3, 4, 5]], object)
    stacked = np.concatenate([values % p for p in moduli]).astype(np.int64)
    assert (reconstruct(stacked, moduli) == values).all()


@pytest.mark.parametrize("seed", range(6))
def test_modular_contraction_equals_the_python_integer_contraction(seed):
    rng = np.random.default_rng(seed)
    names = ["A", "B", "C", "D", "E"]
    sizes = {n: int(rng.integers(2, 5)) for n in names}
    members, bits = 2, 28
    tables = []
    for _ in range(5):
        chosen = tuple(sorted(rng.choice(names, size=int(rng.integers(1, 4)), replace=False)))
        array = rng.integers(0, 1 << bits, size=(members, *(sizes[n] for n in chosen)))
        tables.append(Table(chosen, array.astype(object)))
    keep = tuple(rng.choice(names, size=int(rng.integers(0, 3)), replace=False))
    want, _ = contract(tables, keep, sizes, 1 << 24)
    # every entry is at most the sum of all products: each table's entries summed, multiplied
    bound = math.prod(int(t.array.sum()) for t in tables).bit_length()
    moduli = primes(bound)
    stacked = [Table(t.names, residues(t.array, moduli)) for t in tables]
    got, _ = contract(stacked, keep, sizes, 1 << 24, ModularProduct(moduli))
    assert got.dtype == np.int64
    assert (reconstruct(np.ascontiguousarray(got), moduli) == want).all()


def test_a_term_read_at_once_equals_the_term_read_value_by_value():
    graph = DoGraph.parse("Z->X,Z->Y,X->Y,W->Y", domains={"Z": 3, "Y": 3})
    exact = ExactTables(TableModel.random(graph, np.random.default_rng(5), members=3))
    labels = {"x": "X", "y": "Y", "z": "Z", "w": "W"}
    cases = {
        "P(Y=y | do(X=x), Z=z)": ("x", "y", "z"),
        "P(Y=y, W=w | do(X=x))": ("w", "x", "y"),
        "P(Y=2 | Z=z, X=1)": ("z",),
        "P(Y=y, Z=z)": ("y", "z"),
    }
    for text, names in cases.items():
        term = parse(text)
        whole = exact.term(term, graph)
        assert whole is not None and whole.names == names, text
        for position in itertools.product(*(range(graph.domain(labels[n])) for n in whole.names)):
            env = dict(zip(whole.names, position, strict=True))

            def bound(atoms: tuple[Atom, ...], env=env) -> tuple[Atom, ...]:
                return tuple(Atom(a.var, env.get(str(a.value), a.value)) for a in atoms)

            do = tuple((v, env.get(str(x), x)) for v, x in term.do)
            numerator, denominator = exact.prob(bound(term.event), do, bound(term.given))
            want = [Fraction(n, d) for n, d in zip(numerator, denominator, strict=True)]
            assert list(whole.values()[(slice(None), *position)]) == want, (text, env)
