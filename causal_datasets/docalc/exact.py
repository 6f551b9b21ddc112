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

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.elimination import Table
from causal_datasets.docalc.expr import Add, Div, Expect, Expr, Mul, Neg, Num, Prob, Sum, free_indices
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.semantics import (
    Actions,
    EvaluationError,
    Model,
    ResponseModel,
    TableModel,
    TermKey,
    bind_atoms,
    bind_do,
    bind_subscript,
    bound_value,
    grid_bits,
)

#: one value per member model: an exact number, or NaN where it is undefined (a quotient by zero)
Values = tuple[Fraction | float, ...]


def counts(array: np.ndarray, bits: int) -> np.ndarray:
    """``array * 2^bits`` as Python integers (object dtype); every entry must lie on that grid."""
    scaled = np.ldexp(np.asarray(array, dtype=float), bits)
    if not np.array_equal(scaled, np.floor(scaled)):
        raise EvaluationError("the model's probabilities are not on the grid: no exact evaluation")
    integers: np.ndarray = scaled.astype(np.int64).astype(object)
    return integers


class ExactTables:
    """A :class:`~.semantics.TableModel` held exactly: integer counts over powers of two.

    A term's numerator and denominator are read from one joint table of its variables under its
    intervention (integer counts, every value of every variable kept), contracted once and shared by
    all the values its indices take; both share one power of two, which cancels."""

    def __init__(self, model: TableModel) -> None:
        self.graph = model.graph
        self.members = model.members
        factors = {
            n: Table(t.names, counts(t.array, grid_bits(self.graph.domain(n)))) for n, t in model.factors.items()
        }
        self._counts = TableModel(self.graph, factors)
        self._joints: dict[tuple[tuple[str, ...], Actions], np.ndarray] = {}
        self._memo: dict[TermKey, Values] = {}

    def prob(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> Values:
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            if any(a.cf for a in event + given):
                raise EvaluationError("counterfactual terms need a response model")
            actions = dict(do)
            names = tuple(sorted({a.var for a in event + given} - actions.keys()))
            joint = self._joint(names, do)
            numerator = _mass(joint, names, event + given, actions)
            denominator = _mass(joint, names, given, actions)
            found = self._memo[key] = tuple(
                Fraction(int(n), int(d)) if d else NAN for n, d in zip(numerator, denominator, strict=True)
            )
        return found

    def _joint(self, names: tuple[str, ...], do: Actions) -> np.ndarray:
        """Counts over (member, *names) under ``do``: the joint distribution times a power of two."""
        key = (names, do)
        found = self._joints.get(key)
        if found is None:
            found = self._joints[key] = self._counts.contract(names, frozenset(v for v, _ in do), dict(do))[0]
        return found


def _mass(joint: np.ndarray, names: tuple[str, ...], atoms: tuple[Atom, ...], actions: dict[str, int]) -> np.ndarray:
    """The counts of the constant-valued ``atoms`` (zero when two of them, or one and an action,
    give a variable different values), per member."""
    fixed = dict(actions)
    for atom in atoms:
        if fixed.setdefault(atom.var, bound_value(atom)) != atom.value:
            return np.zeros(joint.shape[0], dtype=object)
    selected = joint[(slice(None), *(fixed.get(n, slice(None)) for n in names))]
    total: np.ndarray = selected.reshape(joint.shape[0], -1).sum(axis=1)
    return total


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
        self._memo: dict[TermKey, Values] = {}

    def prob(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> Values:
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            condition = np.ones(self.weights.shape[1], dtype=bool)
            for atom in given:
                condition &= self.model.mask(atom, do)
            joint = condition.copy()
            for atom in event:
                joint &= self.model.mask(atom, do)
            numerator = self.weights[:, joint].sum(axis=1)
            denominator = self.weights[:, condition].sum(axis=1)
            found = self._memo[key] = tuple(
                Fraction(int(n), int(d)) if d else NAN for n, d in zip(numerator, denominator, strict=True)
            )
        return found


ExactModel = ExactTables | ExactResponses


def exact_model(model: Model) -> ExactModel:
    """The exact twin of a random model family (kept on the family: pairs under one graph share it)."""
    if isinstance(model, TableModel):
        if model.exact is None:
            model.exact = ExactTables(model)
        return model.exact
    if model.exact is None:
        model.exact = ExactResponses(model)
    return model.exact


@dataclass(frozen=True)
class ExactFactor:
    """Exact values over free indices: axis 0 = member model (size 1 for constants), then one axis per
    name in ``names`` (sorted); entries are Fractions, or NaN where the value is undefined (a NaN
    absorbs any arithmetic with it and is never equal to anything)."""

    names: tuple[str, ...]
    array: np.ndarray

    def aligned(self, names: tuple[str, ...]) -> np.ndarray:
        """The values broadcastable over ``names`` (a sorted superset of ``self.names``)."""
        shape = [self.array.shape[0]]
        shape += [self.array.shape[1 + self.names.index(n)] if n in self.names else 1 for n in names]
        return self.array.reshape(shape)


def exact_factor(e: Expr, model: ExactModel, graph: DoGraph, sizes: dict[str, int]) -> ExactFactor:
    """``e`` exactly, over its free indices (``sizes``: the values of each index): the arithmetic
    with numpy over object arrays, each probability term looked up per value of its own indices."""
    if isinstance(e, Num):
        return ExactFactor((), np.array([e.value], dtype=object))
    if isinstance(e, Prob | Expect):
        names = tuple(sorted(free_indices(e)))
        array = np.empty((model.members, *(sizes[n] for n in names)), dtype=object)
        for position in np.ndindex(*array.shape[1:]):
            array[(slice(None), *position)] = _term(e, model, graph, dict(zip(names, position, strict=True)))
        return ExactFactor(names, array)
    if isinstance(e, Neg):
        inner = exact_factor(e.arg, model, graph, sizes)
        return ExactFactor(inner.names, -inner.array)
    if isinstance(e, Add):
        return _combine([exact_factor(t, model, graph, sizes) for t in e.terms], np.add)
    if isinstance(e, Mul):
        return _combine([exact_factor(f, model, graph, sizes) for f in e.factors], np.multiply)
    if isinstance(e, Div):
        return _combine([exact_factor(e.num, model, graph, sizes), exact_factor(e.den, model, graph, sizes)], _DIVIDE)
    if isinstance(e, Sum):
        m = graph.domain(e.var)
        body = exact_factor(e.body, model, graph, {**sizes, e.index: m})
        if e.index not in body.names:
            return ExactFactor(body.names, body.array * m)
        axis = body.names.index(e.index)
        return ExactFactor(body.names[:axis] + body.names[axis + 1 :], body.array.sum(axis=1 + axis))
    raise EvaluationError(f"cannot evaluate {type(e).__name__}")


def undefined(array: np.ndarray) -> np.ndarray:
    """Where exact values are undefined (NaN), as booleans."""
    flags: np.ndarray = np.frompyfunc(lambda x: isinstance(x, float), 1, 1)(array).astype(bool)
    return flags


def _combine(factors: list[ExactFactor], op: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> ExactFactor:
    names = tuple(sorted(set().union(*(f.names for f in factors))))
    result = factors[0].aligned(names)
    for other in factors[1:]:
        result = op(result, other.aligned(names))
    return ExactFactor(names, result)


def _term(e: Prob | Expect, model: ExactModel, graph: DoGraph, env: dict[str, int]) -> Values:
    """A probability term or expectation with its indices bound by ``env``, in each member (NaN: undefined)."""
    if isinstance(e, Prob):
        event, given = bind_atoms(e.event, graph, env), bind_atoms(e.given, graph, env)
        return model.prob(event, bind_do(e.do, graph, env), given)
    do, given = bind_do(e.do, graph, env), bind_atoms(e.given, graph, env)
    total: Values = (Fraction(0),) * model.members
    for coef, atom in e.body:
        if atom.value is None:  # the variable itself: its values times their probabilities
            cf = bind_subscript(atom.cf, graph, env)
            weighted: list[tuple[int, tuple[Atom, ...]]] = [
                (coef * v, (Atom(atom.var, v, cf),)) for v in range(1, graph.domain(atom.var))
            ]
        else:
            weighted = [(coef, bind_atoms((atom,), graph, env))]
        for weight, bound in weighted:
            total = tuple(t + weight * p for t, p in zip(total, model.prob(bound, do, given), strict=True))
    return total


def _quotient(num: Fraction | float, den: Fraction | float) -> Fraction | float:
    """``num / den``, NaN where ``den`` is zero (or undefined)."""
    return num / den if den else NAN


NAN = float("nan")
_DIVIDE = np.frompyfunc(_quotient, 2, 1)
