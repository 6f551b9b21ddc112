"""Vectorized evaluation on a :class:`~.semantics.TableModel`: every free index and member at once.

An expression becomes a :class:`Factor` — an array with the member models on axis 0 and one axis
per free index — computed with numpy slices and sums instead of one Python call per index value
and model. A term ``P(E | do(D), G)`` is one variable elimination over the tables but D's
(:meth:`~.semantics.TableModel.contract`) that keeps the axes of E, of the indexed conditions and of
the indexed actions — an action's axis holds its values —, so a symbolic action costs no loop.
Every value carries a bound on its rounding error (see :class:`~.bounded.Bounded`). Shapes this
path does not cover (a variable twice in one term, an index shared within one term,
counterfactual atoms) raise :class:`NotVectorizable`; the caller then uses the plain interpreter
:func:`~.semantics.evaluate`, which is the reference implementation.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from causal_datasets.docalc.atoms import Atom, Value
from causal_datasets.docalc.bounded import Bounded, rounding
from causal_datasets.docalc.elimination import EPSILON
from causal_datasets.docalc.expr import Add, Div, Expect, Expr, Mul, Neg, Num, Prob, Sum
from causal_datasets.docalc.semantics import EvaluationError, TableModel


class NotVectorizable(ValueError):
    """The expression has a shape the vectorized path does not handle."""


@dataclass(frozen=True)
class Factor:
    """Values over free indices: axis 0 = member model (size 1 for constants), then one axis per
    name in ``names`` (sorted); ``error`` bounds the rounding error of each value (same shape)."""

    names: tuple[str, ...]
    array: np.ndarray
    error: np.ndarray

    def aligned(self, names: tuple[str, ...]) -> Bounded:
        """Values and errors broadcastable over ``names`` (a sorted superset of ``self.names``)."""
        shape = [self.array.shape[0]]
        shape += [self.array.shape[1 + self.names.index(n)] if n in self.names else 1 for n in names]
        return Bounded(self.array.reshape(shape), self.error.reshape(shape))


def _combine(factors: list[Factor], op: Callable[[Bounded, Bounded], Bounded]) -> Factor:
    names = tuple(sorted(set().union(*(f.names for f in factors))))
    operands = [f.aligned(names) for f in factors]
    result = operands[0]
    for other in operands[1:]:
        result = op(result, other)
    return Factor(names, result.value, np.broadcast_to(result.error, np.shape(result.value)))


def vector_evaluate(e: Expr, model: TableModel, sizes: dict[str, int]) -> Factor:
    """``e`` as a factor over its free indices (``sizes``: the values of each index)."""
    if isinstance(e, Num):
        return Factor((), np.full(1, float(e.value)), np.full(1, rounding(e.value)))
    if isinstance(e, Prob):
        return _prob(e, model, sizes)
    if isinstance(e, Expect):
        return vector_evaluate(_expectation_as_sum(e, model), model, sizes)
    if isinstance(e, Neg):
        inner = vector_evaluate(e.arg, model, sizes)
        return Factor(inner.names, -inner.array, inner.error)
    if isinstance(e, Add):
        return _combine([vector_evaluate(t, model, sizes) for t in e.terms], operator.add)
    if isinstance(e, Mul):
        return _combine([vector_evaluate(f, model, sizes) for f in e.factors], operator.mul)
    if isinstance(e, Div):
        parts = [vector_evaluate(e.num, model, sizes), vector_evaluate(e.den, model, sizes)]
        return _combine(parts, Bounded.divided_by)
    if isinstance(e, Sum):
        m = model.graph.domain(e.var)
        body = vector_evaluate(e.body, model, {**sizes, e.index: m})
        if e.index in body.names:
            axis = body.names.index(e.index)
            total = body.array.sum(axis=1 + axis)
            # a sum of m values rounds at most m - 1 times, each by EPSILON of a partial sum
            error = body.error.sum(axis=1 + axis) + (m - 1) * EPSILON * np.abs(body.array).sum(axis=1 + axis)
            return Factor(body.names[:axis] + body.names[axis + 1 :], total, error)
        return Factor(body.names, body.array * m, body.error * m + EPSILON * np.abs(body.array * m))
    raise EvaluationError(f"cannot evaluate {type(e).__name__}")


def _expectation_as_sum(e: Expect, model: TableModel) -> Expr:
    terms: list[Expr] = []
    for coef, atom in e.body:
        if atom.cf:
            raise NotVectorizable("counterfactual expectation")
        values = range(1, model.graph.domain(atom.var)) if atom.value is None else (None,)
        for v in values:
            event = Atom(atom.var, atom.value if v is None else v)
            weight = coef * (1 if v is None else v)
            terms.append(Mul((Num(Fraction(abs(weight))), Prob((event,), e.do, e.given))))
            if weight < 0:
                terms[-1] = Neg(terms[-1])
    return terms[0] if len(terms) == 1 else Add(tuple(terms))


def _prob(p: Prob, model: TableModel, sizes: dict[str, int]) -> Factor:
    """``P(E | do(D), G)`` as a factor; memoized on the model (indices range over their
    variable's domain, so the value depends on the term alone)."""
    found = model._terms.get(p)
    if found is None:
        _check_shape(p, sizes)
        found = model._terms[p] = _prob_factor(p, model)
    return found


def _check_shape(p: Prob, sizes: dict[str, int]) -> None:
    if not p.is_interventional:
        raise NotVectorizable("counterfactual term")
    atoms = p.event + p.given
    variables = [a.var for a in atoms] + [v for v, _ in p.do]
    if len(set(variables)) != len(variables):
        raise NotVectorizable("a variable appears twice in one term")
    labels = [a.value for a in atoms if isinstance(a.value, str)] + [x for _, x in p.do if isinstance(x, str)]
    if len(set(labels)) != len(labels):
        raise NotVectorizable("an index is shared within one term")
    for index in labels:
        if index not in sizes:
            raise EvaluationError(f"index {index!r} is not bound")


def _prob_factor(p: Prob, model: TableModel) -> Factor:
    # the term's value at each variable: an int constant or an index name
    values: dict[str, Value] = {a.var: a.value for a in p.event + p.given if a.value is not None} | dict(p.do)
    event = {a.var for a in p.event}
    fixed = {var: value for var, value in values.items() if isinstance(value, int) and var not in event}
    kept = tuple(var for var in values if var not in fixed)  # the event's variables, indexed conditions and actions
    for var in kept:
        value = values[var]
        if isinstance(value, int) and not 0 <= value < model.graph.domain(var):
            top = model.graph.domain(var) - 1
            raise EvaluationError(f"value {value} is outside the domain of {var} (0..{top})")
    reduced, relative = model.contract(kept, frozenset(v for v, _ in p.do), fixed)
    fixed_event: list[int | slice] = [value if isinstance(value := values[var], int) else slice(None) for var in kept]
    result = reduced[(slice(None), *fixed_event)]
    if p.given:
        event_positions = tuple(1 + i for i, var in enumerate(kept) if var in event)
        denominator = reduced.sum(axis=event_positions, keepdims=True)
        # a zero condition has zero events too: 0/0 = NaN, undefined (callers silence the warning)
        result = result / denominator[(slice(None), *(0 if isinstance(f, int) else f for f in fixed_event))]
        # nonnegative numbers: the denominator's sum and the division add their roundings to the joint's, twice
        relative = 2 * relative + (math.prod(reduced.shape[i] for i in event_positions) + 1) * EPSILON
    names = [value for var in kept if isinstance(value := values[var], str)]  # the indexed variables'
    order = sorted(range(len(names)), key=lambda i: names[i])
    array = np.transpose(result, [0] + [1 + i for i in order])
    return Factor(tuple(names[i] for i in order), array, relative * np.abs(array))
