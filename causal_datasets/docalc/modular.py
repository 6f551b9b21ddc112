"""Exact integer contraction in machine integers: residues modulo primes, then the Chinese remainder theorem.

The exact twin of a table model (:mod:`.exact`) holds integer counts, and a term reads one joint table
of them: a sum of products of one count per table. Summed in Python integers (numpy's object
arrays) that costs about a thousand times a float ``einsum``. Here the same sums are done in int64,
modulo :func:`primes` just below 2^31 at once (one row of axis 0 per prime and member model): every
residue is below 2^31, so a product of two is below 2^62 and is reduced before the next factor; a sum
of up to 2^32 residues stays below 2^63 and is reduced once. Every entry of a joint count table lies
in ``[0, 2^bits]`` (``bits``: the sum of the grid bits of the tables, so the whole table sums to
``2^bits``), and the primes are chosen with a product above ``2^bits``: :func:`reconstruct` recovers
each entry exactly. Nothing is approximate — the result is the same integers as the object-array
contraction, by the Chinese remainder theorem.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from causal_datasets.docalc.elimination import Table

#: primes are taken below this (residues below 2^31: products of two fit in int64)
PRIME_CEILING = 1 << 31


def _is_prime(n: int) -> bool:
    """Deterministic Miller–Rabin for n < 2^32 (bases 2, 7, 61)."""
    if n < 2 or n % 2 == 0:
        return n == 2
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for base in (2, 7, 61):
        if base % n == 0:
            continue
        x = pow(base, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@functools.cache
def primes(bits: int) -> tuple[int, ...]:
    """The largest primes below :data:`PRIME_CEILING`, as few as make a product above ``2^bits``."""
    found: list[int] = []
    candidate = PRIME_CEILING - 1
    while math.prod(found) <= 1 << bits:
        if _is_prime(candidate):
            found.append(candidate)
        candidate -= 2
    return tuple(found)


def residues(counts: np.ndarray, moduli: tuple[int, ...]) -> np.ndarray:
    """Non-negative integer ``counts`` (member axis first) modulo each prime, stacked on axis 0:
    row ``i * members + m`` is member ``m`` modulo ``moduli[i]``."""
    stacked: np.ndarray = np.concatenate([np.asarray(counts, dtype=np.int64) % p for p in moduli])
    return stacked


@dataclass(frozen=True)
class ModularProduct:
    """A step of :func:`~.elimination.contract` on residues modulo ``moduli`` (rows as :func:`residues`)."""

    moduli: tuple[int, ...]

    @property
    def lanes(self) -> int:
        return len(self.moduli)

    def __call__(self, tables: list[Table], out: tuple[str, ...]) -> np.ndarray:
        return modular_product(self.moduli, tables, out)


def modular_product(moduli: tuple[int, ...], tables: list[Table], out: tuple[str, ...]) -> np.ndarray:
    """The product of ``tables`` (residues, rows as :func:`residues`) summed onto (row, *out), modulo
    each row's prime; a table with one row applies to all."""
    names = tuple(dict.fromkeys(n for t in tables for n in t.names))
    rows = max(t.array.shape[0] for t in tables)
    modulus = np.repeat(np.array(moduli, dtype=np.int64), rows // len(moduli)).reshape((-1,) + (1,) * len(names))
    first = _spread(tables[0], names)
    result = np.broadcast_to(first, (rows, *first.shape[1:]))
    for table in tables[1:]:
        result = result * _spread(table, names) % modulus
    summed = tuple(1 + i for i, n in enumerate(names) if n not in out)
    if summed:
        result = result.sum(axis=summed) % modulus.reshape((-1,) + (1,) * (len(names) - len(summed)))
    kept = [n for n in names if n in out]
    ordered: np.ndarray = np.transpose(result, [0, *(1 + kept.index(n) for n in out)])
    return ordered


def _spread(table: Table, names: tuple[str, ...]) -> np.ndarray:
    """The table's array over (row, *names): its axes in that order, size 1 where it has no name (a view)."""
    own = [n for n in names if n in table.names]
    array = np.transpose(table.array, [0, *(1 + table.names.index(n) for n in own)])
    spread: np.ndarray = array[(slice(None), *(slice(None) if n in table.names else np.newaxis for n in names))]
    return spread


def reconstruct(stacked: np.ndarray, moduli: tuple[int, ...]) -> np.ndarray:
    """The integers (object array, member axis first) whose residues modulo ``moduli`` are ``stacked``
    (rows as :func:`residues`), each the one in ``[0, product of the moduli)``."""
    whole = math.prod(moduli)
    parts = np.asarray(stacked).reshape(len(moduli), -1, *stacked.shape[1:])
    total = np.zeros(parts.shape[1:], dtype=object)
    for p, part in zip(moduli, parts, strict=True):
        others = whole // p
        total = total + part.astype(object) * (others * pow(others, -1, p))
    exact: np.ndarray = total % whole
    return exact
