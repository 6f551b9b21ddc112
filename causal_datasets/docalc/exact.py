"""Exact evaluation: the value of an expression on a random model as a rational number.

Why "equivalent" rests on exact zeros. :mod:`.decide` compares two expressions on a family of
random models. A float comparison can only show a difference (when it exceeds the rigorous
rounding-error bound of both values); it can never show equality, because an error bound grows
with the intermediate values: ``(A - B) * 10^20`` with ``A ≡ B`` is exactly 0 but its float value
carries an error bound near 10^4, so "within the bound of 1000" proves nothing. Whatever floats
cannot tell apart is therefore decided here, without rounding:

* every probability of a random model is a multiple of 2^-b (:func:`~.semantics.on_grid`, b = 20
  plus the bit length of its row's size), so the model *is* a rational model, held exactly by
  integer counts: ``P(v | parents) = n / 2^b``;
* a term ``P(E | do(D), G)`` of a table model is ``mass(E, G) / mass(G)``, each mass a sum over
  the tables of the ancestors (:meth:`~.semantics.TableModel.contract`, run on the integer counts
  with Python integers) of products of one entry per table, so ``mass = M / 2^(sum of their b)``
  with ``M`` an integer; of a response model, the sums of the integer weights of the exogenous
  states where the event (and condition) hold, whose common denominator cancels;
* sums, products, quotients and the expression's constants (exact decimals) are
  :class:`~fractions.Fraction` arithmetic; a quotient by an exact zero is undefined on that model.

So ``a - b`` on each model is computed exactly, and "equal on this model" means the difference is
zero, not small. What stays random is only the choice of models, as before: a false identity is a
nonzero rational function of the model's parameters, and it vanishes on a random grid model only if
the parameters hit the zero set of its numerator, a polynomial of degree ``d``; each free parameter
takes about 2^20 values, so (Schwartz–Zippel) that happens with probability about ``d / 2^20`` per
model, for every one of the independent models at once (``models``, default 3). No tolerance takes
part: two different numbers are never counted equal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction

import numpy as np

from causal_datasets.docalc.elimination import Table
from causal_datasets.docalc.expr import Add, Atom, Div, Expect, Expr, Mul, Neg, Num, Prob, Sum
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.semantics import (
    EvaluationError,
    Model,
    ResponseModel,
    TableModel,
    _bind_atoms,
    _bind_do,
    grid_bits,
)

#: one value per member model: an exact number, or None where it is undefined (a quotient by zero)
Values = tuple[Fraction | None, ...]


def counts(array: np.ndarray, bits: int) -> np.ndarray:
    """``array * 2^bits`` as Python integers (object dtype); every entry must lie on that grid."""
    scaled = np.ldexp(np.asarray(array, dtype=float), bits)
    if not np.array_equal(scaled, np.floor(scaled)):
        raise EvaluationError("the model's probabilities are not on the grid: no exact evaluation")
    return scaled.astype(np.int64).astype(object)


class ExactTables:
    """A :class:`~.semantics.TableModel` held exactly: integer counts over powers of two."""

    def __init__(self, model: TableModel) -> None:
        self.graph = model.graph
        self.members = model.members
        self.bits = {n: grid_bits(self.graph.domain(n)) for n in self.graph.order}
        factors = {n: Table(t.names, counts(t.array, self.bits[n])) for n, t in model.factors.items()}
        self._counts = TableModel(self.graph, factors)
        self._memo: dict[tuple, Values] = {}

    def prob(self, event: tuple[Atom, ...], do: tuple, given: tuple[Atom, ...]) -> Values:
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            if any(a.cf for a in event + given):
                raise EvaluationError("counterfactual terms need a response model")
            numerator = self._mass(event + given, do)
            denominator = self._mass(given, do) if given else (Fraction(1),) * self.members
            found = self._memo[key] = _apply(_quotient, numerator, denominator)
        return found

    def _mass(self, atoms: tuple[Atom, ...], do: tuple) -> Values:
        """The exact probability of the constant-valued ``atoms`` under ``do`` in each member."""
        fixed = dict(do)
        for atom in atoms:
            if fixed.setdefault(atom.var, atom.value) != atom.value:
                return (Fraction(0),) * self.members
        actions = frozenset(var for var, _ in do)
        # the tables the contraction multiplies: one entry of each in every product
        tables = self.graph.ancestors([v for v in fixed if v not in actions], cut_in=actions) - actions
        if not tables:
            return (Fraction(1),) * self.members
        total, _ = self._counts.contract((), actions, fixed)
        scale = 1 << sum(self.bits[n] for n in tables)
        return tuple(Fraction(int(c), scale) for c in total.reshape(-1))


class ExactResponses:
    """A :class:`~.semantics.ResponseModel` held exactly: integer weights of the exogenous states."""

    def __init__(self, model: ResponseModel) -> None:
        self.model = model
        self.members = model.members
        order = model.graph.order
        weights = np.ones((model.members, model.weights.shape[1]), dtype=object)
        for node in order:
            probs = model.type_probs[node]
            table = counts(probs, grid_bits(probs.shape[-1]))
            weights = weights * table[:, model._latent_config(node), model.types[node]]
        self.weights = weights  # every state's probability times one common power of two
        self._memo: dict[tuple, Values] = {}

    def prob(self, event: tuple[Atom, ...], do: tuple, given: tuple[Atom, ...]) -> Values:
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            condition = np.ones(self.weights.shape[1], dtype=bool)
            for atom in given:
                condition &= self.model.mask(atom, do)
            joint = condition.copy()
            for atom in event:
                joint &= self.model.mask(atom, do)
            numerator = tuple(Fraction(int(w)) for w in self.weights[:, joint].sum(axis=1))
            denominator = tuple(Fraction(int(w)) for w in self.weights[:, condition].sum(axis=1))
            found = self._memo[key] = _apply(_quotient, numerator, denominator)
        return found


ExactModel = ExactTables | ExactResponses


def exact_model(model: Model) -> ExactModel:
    """The exact twin of a random model family (kept on the family: pairs under one graph share it)."""
    found = getattr(model, "_exact", None)
    if found is None:
        found = ExactTables(model) if isinstance(model, TableModel) else ExactResponses(model)
        model._exact = found  # type: ignore[union-attr]
    return found


def exact_evaluate(e: Expr, model: ExactModel, graph: DoGraph, env: dict[str, int]) -> Values:
    """The exact value of ``e`` in each member, free indices bound by ``env`` (None: undefined)."""
    if isinstance(e, Num):
        return (e.value,) * model.members
    if isinstance(e, Prob):
        event, given = _bind_atoms(e.event, graph, env), _bind_atoms(e.given, graph, env)
        return model.prob(event, _bind_do(e.do, graph, env), given)
    if isinstance(e, Expect):
        do, given = _bind_do(e.do, graph, env), _bind_atoms(e.given, graph, env)
        terms: list[Values] = []
        for coef, atom in e.body:
            if atom.value is None:
                cf = _bind_do(atom.cf, graph, env)
                for v in range(1, graph.domain(atom.var)):
                    terms.append(_scaled(coef * v, model.prob((Atom(atom.var, v, cf),), do, given)))
            else:
                terms.append(_scaled(coef, model.prob(_bind_atoms((atom,), graph, env), do, given)))
        return _fold(_add, terms, model.members)
    if isinstance(e, Neg):
        return _apply(lambda x: -x, exact_evaluate(e.arg, model, graph, env))
    if isinstance(e, Add):
        return _fold(_add, (exact_evaluate(t, model, graph, env) for t in e.terms), model.members)
    if isinstance(e, Mul):
        return _fold(_times, (exact_evaluate(f, model, graph, env) for f in e.factors), model.members)
    if isinstance(e, Div):
        return _apply(_quotient, exact_evaluate(e.num, model, graph, env), exact_evaluate(e.den, model, graph, env))
    if isinstance(e, Sum):
        values = (exact_evaluate(e.body, model, graph, {**env, e.index: v}) for v in range(graph.domain(e.var)))
        return _fold(_add, values, model.members)
    raise EvaluationError(f"cannot evaluate {type(e).__name__}")


def _quotient(num: Fraction, den: Fraction) -> Fraction | None:
    return num / den if den else None


def _add(x: Fraction, y: Fraction) -> Fraction:
    return x + y


def _times(x: Fraction, y: Fraction) -> Fraction:
    return x * y


def _scaled(coef, values: Values) -> Values:
    return _apply(lambda x: coef * x, values)


def _apply(op: Callable, *operands: Values) -> Values:
    """``op`` member by member; undefined wherever an operand is."""
    return tuple(None if None in xs else op(*xs) for xs in zip(*operands, strict=True))


def _fold(op: Callable, operands: Iterable[Values], members: int) -> Values:
    """``op`` over the operands from left to right (the empty sum or product: ``op``'s unit)."""
    result: Values | None = None
    for values in operands:
        result = values if result is None else _apply(op, result, values)
    if result is None:
        return (Fraction(0 if op is _add else 1),) * members
    return result
