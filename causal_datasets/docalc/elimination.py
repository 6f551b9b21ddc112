"""Variable elimination: a sum of products of tables without building their full product.

Every table has the member models on axis 0 and one named axis per variable. :func:`contract`
sums the product of the tables over every variable it is not asked to keep, one variable at a
time (the one whose elimination leaves the smallest table, then touches the fewest entries, ties
broken by name, so the order and the floating-point result are deterministic), each step a
single ``numpy.einsum`` (on integer tables, :func:`~.integer_einsum.integer_einsum`: exact), charged
to the call's time budget (:mod:`.budget`) before it starts.
It also bounds the relative rounding error of what it returns: every table entry is exact (the
model is the floats it holds), a product of k nonnegative numbers adds at most k-1 roundings and a
sum of m nonnegative numbers at most m-1, each of relative size ``EPSILON``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from causal_datasets.docalc.budget import charge
from causal_datasets.docalc.integer_einsum import integer_einsum

#: unit roundoff of float64
EPSILON = float(np.finfo(float).eps) / 2
#: at most this many entries (members included) over all variables: one einsum sums everything at once
SMALL = 1 << 12


class TooLarge(ValueError):
    """A step of the elimination would touch more entries than allowed."""


@dataclass(frozen=True)
class Table:
    """Values over named variables: axis 0 = member model, then one axis per name in ``names``."""

    names: tuple[str, ...]
    array: np.ndarray


def contract(
    tables: Sequence[Table], keep: Sequence[str], sizes: Mapping[str, int], limit: int
) -> tuple[np.ndarray, float]:
    """``sum over the other variables of the product of tables`` as an array over (member, *keep),
    every kept axis at its full size from ``sizes``, and a bound on the relative rounding error of
    each entry. Raises :class:`TooLarge` if a step would touch more than ``limit`` entries (members
    included)."""
    members = max(t.array.shape[0] for t in tables) if tables else 1
    work: list[tuple[Table, float]] = [(t, 0.0) for t in tables]  # (table, its relative error in roundings)
    kept = set(keep)
    pending = sorted({n for t in tables for n in t.names} - kept)
    space = math.prod(sizes[n] for n in {n for t in tables for n in t.names})
    if pending and members * space <= SMALL:  # one einsum over every table: no order to choose
        names = tuple(n for n in dict.fromkeys(n for t in tables for n in t.names) if n in kept)
        summed = math.prod(sizes[n] for n in pending)
        charge("a term's elimination", members * space)
        work = [(Table(names, _einsum(list(tables), names)), len(tables) - 1 + summed - 1)]
        pending = []
    while pending:
        _, touched, variable = min(_cost(work, v, sizes) for v in pending)
        if members * touched > limit:
            raise TooLarge(f"eliminating {variable} touches {members * touched:,} entries (limit {limit:,})")
        charge(f"eliminating {variable}", members * touched)
        group = [(t, e) for t, e in work if variable in t.names]
        work = [(t, e) for t, e in work if variable not in t.names]
        names = tuple(dict.fromkeys(n for t, _ in group for n in t.names if n != variable))
        error = sum(e for _, e in group) + len(group) - 1 + sizes[variable] - 1
        work.append((Table(names, _einsum([t for t, _ in group], names)), error))
        pending.remove(variable)
    total = math.prod(sizes[n] for n in keep)
    if members * total > limit:
        raise TooLarge(f"the result has {members * total:,} entries (limit {limit:,})")
    present = tuple(n for n in keep if any(n in t.names for t, _ in work))
    if work:
        product = _einsum([t for t, _ in work], present)
        error = sum(e for _, e in work) + len(work) - 1
    else:
        product, error = np.ones((1,)), 0.0
    shape = (product.shape[0], *(sizes[n] if n in present else 1 for n in keep))
    order = sorted(range(len(present)), key=lambda i: keep.index(present[i]))
    aligned = np.transpose(product, [0, *(1 + i for i in order)]).reshape(shape)
    return np.broadcast_to(aligned, (product.shape[0], *(sizes[n] for n in keep))), error * EPSILON


def _cost(work: list[tuple[Table, float]], variable: str, sizes: Mapping[str, int]) -> tuple[int, int, str]:
    """Eliminating ``variable``: the entries of the table it leaves, of the product it sums (the
    tables that mention it), and its name."""
    names = {n for t, _ in work if variable in t.names for n in t.names}
    touched = math.prod(sizes[n] for n in names)
    return touched // sizes[variable], touched, variable


def _einsum(tables: list[Table], out: tuple[str, ...]) -> np.ndarray:
    """The product of ``tables`` summed onto (member, *out), in one ``numpy.einsum`` call."""
    labels = {name: i + 1 for i, name in enumerate(dict.fromkeys(n for t in tables for n in t.names))}
    if any(t.array.dtype.kind in "iO" for t in tables):  # integer counts (:mod:`.exact`): exactly
        return integer_einsum(
            [t.array for t in tables],
            [[0, *(labels[n] for n in t.names)] for t in tables],
            [0, *(labels[n] for n in out)],
        )
    operands: list[np.ndarray | list[int]] = []
    for table in tables:
        operands += [table.array, [0, *(labels[n] for n in table.names)]]
    product: np.ndarray = np.einsum(*operands, [0, *(labels[n] for n in out)])
    return product
