"""An exact einsum of integer arrays: Python integers contracted as limbs of a few dozen bits.

numpy's einsum over Python integers (object arrays) makes one interpreted multiplication and addition
per term of every sum; the exact evaluation (:mod:`.exact`) contracts tables of integer counts over
latent sources of a hundred values and more. :func:`integer_einsum` returns the same integers without
that cost. The operands are contracted two at a time (the pair with the smallest result first). A pair
whose every product and partial sum is proved to lie within 2^53 — from bounds on the bit lengths of
its entries and the number of terms each sum adds — is one einsum in doubles, which hold every such
integer exactly whatever the order of the additions (numpy's fast path, BLAS included). A larger
pair is cut into limbs of ``w`` bits, ``x = sum_i x_i * 2^(w*i)``, ``w`` chosen so that every sum
of limb products lies within 2^53 too; one einsum gives every limb product summed, and only the
results are shifted and added (in int64, then as Python integers), once per output entry and limb.
A contraction too small for that to pay goes to numpy's object einsum. Nothing rounds and nothing
wraps: each step is proved in range before it runs, so the result is the exact integer einsum.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: every int64 step keeps its values within 2^FITS in absolute value (int64 holds below 2^63)
FITS = 62
#: doubles hold every integer within 2^DOUBLE exactly: sums of products kept there are exact in any order
DOUBLE = 53
#: at most this many terms in the whole product space times operands: numpy's object einsum is cheaper
SMALL = 1 << 11
#: the narrowest limbs worth cutting
MIN_WIDTH = 8


@dataclass(frozen=True)
class _Operand:
    """Integers over ``labels``: an int64 or object array whose entries are below 2^bits in absolute value."""

    array: np.ndarray
    labels: tuple[int, ...]
    bits: int


def integer_einsum(arrays: Sequence[np.ndarray], labels: Sequence[Sequence[int]], out: Sequence[int]) -> np.ndarray:
    """``numpy.einsum`` of integer arrays (int64 or Python integers) with these axis labels onto ``out``,
    exactly: an object array of Python integers."""
    sizes: dict[int, int] = {}
    for array, names in zip(arrays, labels, strict=True):
        if array.dtype.kind not in "iuO":
            raise TypeError(f"integer_einsum takes integers, not {array.dtype}")
        for size, name in zip(array.shape, names, strict=True):
            sizes[name] = max(size, sizes.get(name, 1))
    if len(arrays) < 2 or len(arrays) * math.prod(sizes.values()) <= SMALL:
        return _object_einsum(
            [(np.asarray(a, dtype=object), list(n)) for a, n in zip(arrays, labels, strict=True)], out
        )
    work = [_operand(a, tuple(n)) for a, n in zip(arrays, labels, strict=True)]
    while len(work) > 1:
        _, i, j, keep = min(_pairing(work, i, j, out, sizes) for i in range(len(work)) for j in range(i + 1, len(work)))
        pair = _product(work[i], work[j], keep, sizes)
        work = [w for k, w in enumerate(work) if k not in (i, j)] + [pair]
    (last,) = work
    if tuple(out) != last.labels:  # labels summed by no product: a plain sum
        return _object_einsum([(np.asarray(last.array, dtype=object), list(last.labels))], out)
    return np.asarray(last.array, dtype=object)


def _object_einsum(operands: list[tuple[np.ndarray, list[int]]], out: Sequence[int]) -> np.ndarray:
    """numpy's einsum over Python integers (one interpreted operation per term)."""
    flat: list[np.ndarray | list[int]] = [x for operand in operands for x in operand]
    return np.asarray(np.einsum(*flat, list(out)), dtype=object)


def _operand(array: np.ndarray, labels: tuple[int, ...]) -> _Operand:
    """An input with the bound of its largest entry: int64 if every entry fits, else Python integers."""
    if array.dtype.kind == "i":
        integers = array.astype(np.int64)
    else:  # Python integers (unsigned ones made so first: a cast to int64 would wrap them)
        array = array.astype(object)
        try:
            integers = array.astype(np.int64)
        except OverflowError:
            return _Operand(array, labels, _bits(array))
    return _Operand(integers, labels, _bits(integers))


def _bits(array: np.ndarray) -> int:
    """The bit length of the largest absolute value among the entries."""
    if array.size == 0:
        return 0
    return max(abs(int(array.max())), abs(int(array.min()))).bit_length()


def _pairing(
    work: list[_Operand], i: int, j: int, out: Sequence[int], sizes: dict[int, int]
) -> tuple[int, int, int, tuple[int, ...]]:
    """Contracting operands ``i`` and ``j``: the entries of the result, ``i``, ``j``, and the labels it keeps
    (those of the output or of another operand)."""
    needed = set(out).union(*(w.labels for k, w in enumerate(work) if k not in (i, j)))
    keep = tuple(n for n in dict.fromkeys(work[i].labels + work[j].labels) if n in needed)
    return math.prod(sizes[n] for n in keep), i, j, keep


def _product(x: _Operand, y: _Operand, keep: tuple[int, ...], sizes: dict[int, int]) -> _Operand:
    """The product of ``x`` and ``y`` summed onto ``keep``, exactly."""
    terms = math.prod(sizes[n] for n in set(x.labels + y.labels) if n not in keep)
    spread = (terms - 1).bit_length()  # a sum of `terms` values below 2^b is below 2^(b + spread)
    bits = x.bits + y.bits + spread
    if bits <= DOUBLE and x.array.dtype != object and y.array.dtype != object:
        return _Operand(_in_doubles(x.array, x.labels, y.array, y.labels, keep), keep, bits)
    width = _width(x.bits, y.bits, spread)
    entries = math.prod(sizes[n] for n in keep)
    if width < MIN_WIDTH or 2 * entries * terms <= _limb_work(x, y, width, entries):  # limbs do not pay
        return _Operand(
            _object_einsum([(x.array.astype(object), list(x.labels)), (y.array.astype(object), list(y.labels))], keep),
            keep,
            bits,
        )
    left, right = _limbs(x, width), _limbs(y, width)
    a, b = max(sizes, default=0) + 1, max(sizes, default=0) + 2  # labels of the two limb axes
    products = _in_doubles(left, (a, *x.labels), right, (b, *y.labels), (a, b, *keep))
    total: np.ndarray | int = 0
    for shift in reversed(range(len(left) + len(right) - 1)):  # Horner over the limb sums of one weight
        same = sum(products[i, shift - i] for i in range(len(left)) if 0 <= shift - i < len(right))
        total = (total << width) + np.asarray(same).astype(object)
    return _Operand(np.asarray(total, dtype=object), keep, bits)


def _in_doubles(
    x: np.ndarray, x_labels: tuple[int, ...], y: np.ndarray, y_labels: tuple[int, ...], out: tuple[int, ...]
) -> np.ndarray:
    """The einsum of two int64 arrays whose every sum of products lies within 2^DOUBLE in absolute
    value: computed in doubles (numpy's fastest path, BLAS), exact in any order of the sums, as int64."""
    values = np.einsum(x.astype(np.float64), x_labels, y.astype(np.float64), y_labels, out, optimize=True)
    return np.asarray(values).astype(np.int64)


def _limb_work(x: _Operand, y: _Operand, width: int, entries: int) -> int:
    """About how many Python-integer operations the limbs take: cutting the operands held as Python
    integers, then shifting and adding the limb sums of each weight for every output entry."""
    cuts = sum(3 * o.array.size * _count(o.bits, width) for o in (x, y) if o.array.dtype == object)
    return cuts + 3 * entries * (_count(x.bits, width) + _count(y.bits, width) - 1)


def _width(x_bits: int, y_bits: int, spread: int) -> int:
    """Limb bits such that a sum of ``2^spread`` limb products stays within 2^DOUBLE, and such sums over
    every limb pair of one weight within 2^FITS (a limb lies in [-2^w, 2^w))."""
    width = (DOUBLE - spread) // 2
    while True:
        pairs = min(_count(x_bits, width), _count(y_bits, width))  # limb pairs of one weight, at most
        if 2 * width + spread + (pairs - 1).bit_length() <= FITS:
            return width
        width -= 1


def _count(bits: int, width: int) -> int:
    """The limbs of ``width`` bits a value below 2^bits is cut into."""
    return max(1, -(-bits // width))


def _limbs(x: _Operand, width: int) -> np.ndarray:
    """``x`` cut into limbs of ``width`` bits (int64, limb axis first): the lower limbs in [0, 2^w), the
    top one (``x`` shifted down, its sign kept) in [-2^w, 2^w)."""
    count = _count(x.bits, width)
    mask = (1 << width) - 1
    limbs = [(x.array >> (width * i)) & mask for i in range(count - 1)] + [x.array >> (width * (count - 1))]
    return np.stack([np.asarray(limb).astype(np.int64) for limb in limbs])
