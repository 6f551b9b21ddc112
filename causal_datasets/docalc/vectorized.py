"""Vectorized evaluation on a :class:`~.semantics.TableModel`: every free index and member at once.

An expression becomes a :class:`Factor` — an array with the member models on axis 0 and one axis
per free index — computed with numpy slices and sums instead of one Python call per index value
and model. A term ``P(E | do(D), G)`` reads the truncated product without D's tables, whose D
axes are the action values (see :meth:`~.semantics.TableModel.truncated`), so a symbolic action
costs no loop. Shapes this path does not cover (a variable twice in one term, an index shared
within one term, counterfactual atoms) raise :class:`NotVectorizable`; the caller then uses the
plain interpreter :func:`~.semantics.evaluate`, which is the reference implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from causal_datasets.docalc.expr import Add, Atom, Div, Expect, Expr, Mul, Neg, Num, Prob, Sum
from causal_datasets.docalc.semantics import EvaluationError, TableModel, safe_divide


class NotVectorizable(ValueError):
    """The expression has a shape the vectorized path does not handle."""


@dataclass(frozen=True)
class Factor:
    """Values over free indices: axis 0 = member model (size 1 for constants), then one axis per
    name in ``names`` (sorted)."""

    names: tuple[str, ...]
    array: np.ndarray

    def aligned(self, names: tuple[str, ...]) -> np.ndarray:
        """The array broadcastable over ``names`` (a sorted superset of ``self.names``)."""
        shape = [self.array.shape[0]]
        shape += [self.array.shape[1 + self.names.index(n)] if n in self.names else 1 for n in names]
        return self.array.reshape(shape)


def _combine(factors: list[Factor], op) -> Factor:
    names = tuple(sorted(set().union(*(f.names for f in factors))))
    arrays = [f.aligned(names) for f in factors]
    result = arrays[0]
    for other in arrays[1:]:
        result = op(result, other)
    return Factor(names, np.asarray(result, dtype=float))


def vector_evaluate(e: Expr, model: TableModel, sizes: dict[str, int]) -> Factor:
    """``e`` as a factor over its free indices (``sizes``: the values of each index)."""
    if isinstance(e, Num):
        return Factor((), np.full(1, float(e.value)))
    if isinstance(e, Prob):
        return _prob(e, model, sizes)
    if isinstance(e, Expect):
        return vector_evaluate(_expectation_as_sum(e, model), model, sizes)
    if isinstance(e, Neg):
        inner = vector_evaluate(e.arg, model, sizes)
        return Factor(inner.names, -inner.array)
    if isinstance(e, Add):
        return _combine([vector_evaluate(t, model, sizes) for t in e.terms], np.add)
    if isinstance(e, Mul):
        return _combine([vector_evaluate(f, model, sizes) for f in e.factors], np.multiply)
    if isinstance(e, Div):
        return _combine([vector_evaluate(e.num, model, sizes), vector_evaluate(e.den, model, sizes)], safe_divide)
    if isinstance(e, Sum):
        body = vector_evaluate(e.body, model, {**sizes, e.index: model.graph.domain(e.var)})
        if e.index in body.names:
            axis = body.names.index(e.index)
            return Factor(body.names[:axis] + body.names[axis + 1 :], body.array.sum(axis=1 + axis))
        return Factor(body.names, body.array * model.graph.domain(e.var))
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
            terms.append(Mul((Num(abs(weight)), Prob((event,), e.do, e.given))))
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
    joint = model.truncated(frozenset(v for v, _ in p.do))
    # joint axis -> the term's value there (int constant or index name); other axes are summed out
    values = {model.axis[a.var]: a.value for a in p.event + p.given} | {model.axis[v]: x for v, x in p.do}
    for axis, value in values.items():
        if isinstance(value, int) and not 0 <= value < joint.shape[axis]:
            var = model.graph.order[axis - 1]
            raise EvaluationError(f"value {value} is outside the domain of {var} (0..{joint.shape[axis] - 1})")
    event = {model.axis[a.var] for a in p.event}
    fixed_condition = {ax for ax, value in values.items() if isinstance(value, int) and ax not in event}
    selected = joint[(slice(None), *(values[ax] if ax in fixed_condition else slice(None) for ax in range(1, joint.ndim)))]
    kept = [ax for ax in range(1, joint.ndim) if ax not in fixed_condition]
    outside = tuple(1 + i for i, ax in enumerate(kept) if ax not in values)
    reduced = selected.sum(axis=outside) if outside else selected
    kept = [ax for ax in kept if ax in values]
    fixed_event = [values[ax] if ax in event and isinstance(values[ax], int) else slice(None) for ax in kept]
    result = reduced[(slice(None), *fixed_event)]
    if p.given:
        event_positions = tuple(1 + i for i, ax in enumerate(kept) if ax in event)
        denominator = reduced.sum(axis=event_positions, keepdims=True)
        # a zero condition has zero events too: 0/0 = NaN, undefined (callers silence the warning)
        result = result / denominator[(slice(None), *(0 if isinstance(f, int) else f for f in fixed_event))]
    names = [values[ax] for ax, f in zip(kept, fixed_event) if not isinstance(f, int)]
    order = sorted(range(len(names)), key=names.__getitem__)
    return Factor(tuple(names[i] for i in order), np.transpose(result, [0] + [1 + i for i in order]))
