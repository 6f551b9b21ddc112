"""Float values with a rigorous bound on their rounding error, and the division both evaluators use.

:class:`Bounded` carries one value per model member and a bound on its absolute rounding error
through sums, products and quotients (:func:`.semantics.evaluate` with ``bounded=True``,
:mod:`.vectorized`): :mod:`.decide` counts two values different only when they differ by more than
their bounds. :func:`safe_divide` marks an undefined quotient (a zero divisor) as NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from causal_datasets.docalc.elimination import EPSILON

#: float values, one per member (or broadcastable over members and assignments)
Floats = NDArray[np.float64]


def safe_divide(num: ArrayLike, den: ArrayLike) -> Floats:
    """``num / den`` elementwise, NaN where ``den`` is zero (an undefined conditional)."""
    numerator, denominator = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    nonzero = denominator != 0
    return np.where(nonzero, numerator / np.where(nonzero, denominator, 1.0), np.nan)


def rounding(constant: Fraction) -> float:
    """The error of a constant written as a float."""
    return float(abs(Fraction(float(constant)) - constant))


@dataclass(frozen=True)
class Bounded:
    """Values (one per member) with a bound on their absolute rounding error: each operation adds
    the propagated errors of its operands (products of errors included) and its own rounding."""

    value: Floats
    error: Floats
    __array_ufunc__ = None  # numpy arrays and numbers defer to the operators below

    @staticmethod
    def of(x: Bounded | ArrayLike) -> Bounded:
        """``x`` itself, or an exact number (an integer coefficient) as a value without error."""
        return x if isinstance(x, Bounded) else Bounded(np.asarray(x, dtype=float), np.zeros(np.shape(x)))

    def __add__(self, other: Bounded | ArrayLike) -> Bounded:
        operand = Bounded.of(other)
        value = self.value + operand.value
        return Bounded(value, self.error + operand.error + EPSILON * np.abs(value))

    __radd__ = __add__

    def __neg__(self) -> Bounded:
        return Bounded(-self.value, self.error)

    def __mul__(self, other: Bounded | ArrayLike) -> Bounded:
        operand = Bounded.of(other)
        value = self.value * operand.value
        error = np.abs(self.value) * operand.error + np.abs(operand.value) * self.error + self.error * operand.error
        return Bounded(value, error + EPSILON * np.abs(value))

    __rmul__ = __mul__

    def divided_by(self, other: Bounded) -> Bounded:
        """The quotient; its error is infinite where the divisor's error could reach zero."""
        value = safe_divide(self.value, other.value)
        margin = np.abs(other.value) - other.error
        safe = margin > 0
        error = (self.error + np.abs(value) * other.error) / np.where(safe, margin, 1.0) + EPSILON * np.abs(value)
        return Bounded(value, np.where(safe, error, np.inf))
