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
  the tables of the ancestors of products of one entry per table, so ``mass = M / 2^(sum of their
  b)`` with ``M`` an integer. The integers ``M`` are read from one joint count table per term
  (every value of its indices at once; :meth:`~.semantics.TableModel.contract` run on the int64
  counts, every step exact: :mod:`.integer_einsum`); of a response model, the sums of the integer weights of the
  exogenous states where the event (and condition) hold. The common power of two cancels;
* every value is held as an integer numerator and denominator (not reduced but after a sum over an
  index, where their common divisor is divided out); sums, products, quotients and the
  expression's constants (exact decimals) are integer arithmetic on them; a quotient by an exact
  zero is undefined on that model (denominator 0). A sum over a product is summed one index at a
  time over the factors that mention it (the same rational values, far shorter integers).

So ``a - b`` on each model is computed exactly, and "equal on this model" means the difference's
numerator is zero, not small. What stays random is only the choice of models, as before: a false
identity is a nonzero rational function of the model's parameters, and it vanishes on a random grid model only if
the parameters hit the zero set of its numerator, a polynomial of degree ``d``; each free parameter
takes about 2^20 values, so (Schwartz–Zippel) that happens with probability about ``d / 2^20`` per
model, for every one of the independent models at once (``models``, default 3). No tolerance takes
part: two different numbers are never counted equal.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from causal_datasets.docalc.atoms import Atom, Value
from causal_datasets.docalc.elimination import Table
from causal_datasets.docalc.expr import Add, Div, Expect, Expr, Mul, Neg, Num, Prob, Sum, children, free_indices
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

#: exact values, one per member model: numerators and denominators (Python integers in object
#: arrays, not reduced); a denominator 0 marks a value that is undefined (a quotient by zero)
Pair = tuple[np.ndarray, np.ndarray]


def counts(array: np.ndarray, bits: int) -> np.ndarray:
    """``array * 2^bits`` as int64 integers (probabilities times at most 2^62: exact); every entry must
    lie on that grid."""
    scaled = np.ldexp(np.asarray(array, dtype=float), bits)
    if not np.array_equal(scaled, np.floor(scaled)) or bits > 62:
        raise EvaluationError("the model's probabilities are not on the grid: no exact evaluation")
    integers: np.ndarray = scaled.astype(np.int64)
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
        self._joints: dict[tuple[tuple[str, ...], Actions, frozenset[str]], np.ndarray] = {}
        self._memo: dict[TermKey, Pair] = {}
        self._terms: dict[Prob, ExactFactor] = {}  # terms over all the values of their indices

    def prob(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> Pair:
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            if any(a.cf for a in event + given):
                raise EvaluationError("counterfactual terms need a response model")
            actions = dict(do)
            names = tuple(sorted({a.var for a in event + given} - actions.keys()))
            joint = self.joint(names, do)
            found = self._memo[key] = (_mass(joint, names, event + given, actions), _mass(joint, names, given, actions))
        return found

    def joint(self, names: tuple[str, ...], do: Actions, acting: frozenset[str] = frozenset()) -> np.ndarray:
        """Counts over (member, *names) under ``do`` and the actions on the variables ``acting`` (among
        ``names``: their axes hold the action's values): the joint distribution times a power of two.
        Summed out of a joint already contracted over more variables under the same actions if there
        is one (its power of two may differ: a term's numerator and denominator share it)."""
        key = (names, do, acting)
        found = self._joints.get(key)
        if found is None:
            wider = next((k for k in self._joints if k[1:] == key[1:] and set(names) < set(k[0])), None)
            if wider is None:
                found = self._counts.contract(names, acting | {v for v, _ in do}, dict(do))[0]
            else:
                found = self._joints[wider].sum(axis=tuple(1 + i for i, n in enumerate(wider[0]) if n not in names))
            self._joints[key] = found
        return found

    def share(self, graph: DoGraph, *exprs: Expr) -> None:
        """Contract the joints the terms of ``exprs`` read, widest first, so that a term whose variables
        are among another's (under the same actions) sums that joint instead of contracting its own."""
        wanted: set[tuple[tuple[str, ...], Actions, frozenset[str]]] = set()
        pending = list(exprs)
        while pending:
            e = pending.pop()
            pending.extend(children(e))
            shape = _whole(e) if isinstance(e, Prob) else None
            if isinstance(e, Prob) and shape is not None:
                names, acting = shape
                wanted.add((names, bind_do(tuple((v, x) for v, x in e.do if v not in acting), graph, {}), acting))
        for names, do, acting in sorted(wanted, key=lambda k: (-len(k[0]), k[0], k[1], sorted(k[2]))):
            self.joint(names, do, acting)

    def term(self, p: Prob, graph: DoGraph) -> ExactFactor | None:
        """``p`` over every value of its indices at once, read from one joint table (an indexed
        action's values on its axis). None for the shapes this does not cover (an index twice in the
        term, a variable twice, a counterfactual or valueless atom), which the caller evaluates value
        by value."""
        found = self._terms.get(p)
        if found is None:
            shape = _whole(p)
            if shape is None:
                return None
            names, acting = shape
            atoms = p.event + p.given
            bind_atoms(tuple(a for a in atoms if isinstance(a.value, int)), graph, {})  # domains checked
            joint = self.joint(names, bind_do(tuple((v, x) for v, x in p.do if v not in acting), graph, {}), acting)
            values: dict[str, Value | None] = {a.var: a.value for a in atoms} | {v: x for v, x in p.do if v in acting}
            event = {a.var for a in p.event}
            numerator = joint[(slice(None), *(_pick(values[n]) for n in names))]
            summed = joint.sum(axis=tuple(1 + i for i, n in enumerate(names) if n in event), keepdims=True)
            picks = (
                _pick(values[n]) if n not in event else 0 if isinstance(values[n], int) else slice(None) for n in names
            )
            denominator = np.broadcast_to(summed[(slice(None), *picks)], numerator.shape)
            labels = [str(values[n]) for n in names if isinstance(values[n], str)]  # the kept axes, in order
            axes = [0, *(1 + i for i in sorted(range(len(labels)), key=labels.__getitem__))]
            # in lowest terms: a conditional's numerator and denominator share its conditions' tables
            reduced = _reduced(
                (np.transpose(numerator, axes).astype(object), np.transpose(denominator, axes).astype(object))
            )
            found = self._terms[p] = ExactFactor(tuple(sorted(labels)), *reduced)
        return found


def _whole(p: Prob) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The variables of the joint table ``p`` is read from for all its index values (sorted) and its
    indexed actions; None for a shape :meth:`ExactTables.term` does not cover."""
    atoms = p.event + p.given
    variables = [a.var for a in atoms] + [v for v, _ in p.do]
    acting = frozenset(v for v, x in p.do if isinstance(x, str))
    labels = [a.value for a in atoms if isinstance(a.value, str)] + [x for _, x in p.do if isinstance(x, str)]
    if any(a.cf or a.value is None for a in atoms) or len(set(variables)) != len(variables):
        return None
    if len(set(labels)) != len(labels):
        return None
    return tuple(sorted({a.var for a in atoms} | acting)), acting


def _pick(value: object) -> int | slice:
    """The axis position of a constant value, or every position for an index."""
    return value if isinstance(value, int) else slice(None)


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
            table = counts(probs, grid_bits(probs.shape[-1])).astype(object)
            weights = weights * table[:, model._latent_config(node), model.types[node]]
        self.weights = weights  # every state's probability times one common power of two
        self._memo: dict[TermKey, Pair] = {}

    def prob(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> Pair:
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            condition = np.ones(self.weights.shape[1], dtype=bool)
            for atom in given:
                condition &= self.model.mask(atom, do)
            joint = condition.copy()
            for atom in event:
                joint &= self.model.mask(atom, do)
            found = self._memo[key] = (self.weights[:, joint].sum(axis=1), self.weights[:, condition].sum(axis=1))
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
    name in ``names`` (sorted); each value is ``numerator / denominator`` (Python integers, not
    reduced), undefined where the denominator is 0 (an undefined value makes undefined anything
    computed with it, and is never equal to anything)."""

    names: tuple[str, ...]
    numerator: np.ndarray
    denominator: np.ndarray

    def aligned(self, names: tuple[str, ...]) -> Pair:
        """Numerators and denominators broadcastable over ``names`` (a sorted superset of ``self.names``)."""
        shape = [self.numerator.shape[0]]
        shape += [self.numerator.shape[1 + self.names.index(n)] if n in self.names else 1 for n in names]
        return self.numerator.reshape(shape), self.denominator.reshape(shape)

    def values(self) -> np.ndarray:
        """The values as :class:`~fractions.Fraction` (NaN where undefined), same axes."""
        array: np.ndarray = _FRACTION(self.numerator, self.denominator)
        return array


def exact_factor(e: Expr, model: ExactModel, graph: DoGraph, sizes: dict[str, int]) -> ExactFactor:
    """``e`` exactly, over its free indices (``sizes``: the values of each index): the arithmetic
    on integer numerators and denominators with numpy over object arrays; a probability term of a
    table model read for all the values of its indices at once (:meth:`ExactTables.term`), any
    other looked up value by value."""
    if isinstance(e, Num):
        value = Fraction(e.value)
        return ExactFactor((), np.array([value.numerator], dtype=object), np.array([value.denominator], dtype=object))
    if isinstance(e, Prob | Expect):
        whole = model.term(e, graph) if isinstance(e, Prob) and isinstance(model, ExactTables) else None
        return whole if whole is not None else _by_value(e, model, graph, sizes)
    if isinstance(e, Neg):
        inner = exact_factor(e.arg, model, graph, sizes)
        return ExactFactor(inner.names, -inner.numerator, inner.denominator)
    if isinstance(e, Add):
        return _combine([exact_factor(t, model, graph, sizes) for t in e.terms], _add)
    if isinstance(e, Mul):
        return _combine([exact_factor(f, model, graph, sizes) for f in e.factors], _multiply)
    if isinstance(e, Div):
        return _combine([exact_factor(e.num, model, graph, sizes), exact_factor(e.den, model, graph, sizes)], _divide)
    if isinstance(e, Sum):
        return _sum_product(e, model, graph, sizes)
    raise EvaluationError(f"cannot evaluate {type(e).__name__}")


def _sum_product(e: Sum, model: ExactModel, graph: DoGraph, sizes: dict[str, int]) -> ExactFactor:
    """A nest of sums over a product, each index summed over only the factors that mention it (variable
    elimination on exact factors, smallest product first, ties by name): the same rational values as
    summing the whole product, with far shorter integers."""
    summed: dict[str, int] = {}
    body: Expr = e
    while isinstance(body, Sum) and body.index not in summed:  # an index summed again inside is its own nest
        summed[body.index] = graph.domain(body.var)
        body = body.body
    inner = {**sizes, **summed}
    factors = [exact_factor(f, model, graph, inner) for f in _factors(body)]
    repeat = 1  # the values of the indices no factor mentions
    pending = set(summed)
    while pending:
        _, index = min((_cost(factors, i, inner), i) for i in pending)
        pending.remove(index)
        group = [f for f in factors if index in f.names]
        if not group:
            repeat *= summed[index]
            continue
        factors = [f for f in factors if index not in f.names] + [_sum_out(_combine(group, _multiply), index)]
    result = _combine(factors, _multiply)
    return ExactFactor(result.names, result.numerator * repeat, result.denominator)


def _factors(e: Expr) -> list[Expr]:
    """The factors of a product, nested products flattened (any other expression: itself)."""
    return [g for f in e.factors for g in _factors(f)] if isinstance(e, Mul) else [e]


def _cost(factors: list[ExactFactor], index: str, sizes: dict[str, int]) -> int:
    """Summing out ``index``: the entries of the product of the factors that mention it, times their number."""
    group = [f for f in factors if index in f.names]
    return len(group) * math.prod(sizes[n] for n in {n for f in group for n in f.names})


def _sum_out(body: ExactFactor, index: str) -> ExactFactor:
    """``body`` summed over ``index`` (one of its names), reduced by the common divisors."""
    axis = 1 + body.names.index(index)
    numerator, denominator = np.moveaxis(body.numerator, axis, 0), np.moveaxis(body.denominator, axis, 0)
    total = (numerator[0], denominator[0])
    for i in range(1, numerator.shape[0]):
        total = _add(total, (numerator[i], denominator[i]))
    return ExactFactor(body.names[: axis - 1] + body.names[axis:], *_reduced(total))


def _by_value(e: Prob | Expect, model: ExactModel, graph: DoGraph, sizes: dict[str, int]) -> ExactFactor:
    """A term over its free indices, looked up for one value of them at a time."""
    names = tuple(sorted(free_indices(e)))
    numerator = np.empty((model.members, *(sizes[n] for n in names)), dtype=object)
    denominator = np.empty_like(numerator)
    for position in np.ndindex(*numerator.shape[1:]):
        where = (slice(None), *position)
        numerator[where], denominator[where] = _term(e, model, graph, dict(zip(names, position, strict=True)))
    return ExactFactor(names, numerator, denominator)


def _add(x: Pair, y: Pair) -> Pair:
    """``x + y`` (over a common denominator, the product unless both are the same)."""
    if x[1].shape == y[1].shape and bool((x[1] == y[1]).all()):
        return x[0] + y[0], x[1]
    return x[0] * y[1] + y[0] * x[1], x[1] * y[1]


def _reduced(x: Pair) -> Pair:
    """``x`` with each numerator and denominator divided by their greatest common divisor (keeps the
    integers of sums over many values short)."""
    common = np.gcd(x[0], x[1])
    common[common == 0] = 1  # 0 / 0: undefined, kept
    return x[0] // common, x[1] // common


def _multiply(x: Pair, y: Pair) -> Pair:
    return x[0] * y[0], x[1] * y[1]


def _divide(x: Pair, y: Pair) -> Pair:
    """``x / y``: undefined where ``y`` is zero or undefined."""
    denominator: np.ndarray = np.where(y[1] == 0, 0, x[1] * y[0])
    return x[0] * y[1], denominator


def _combine(factors: list[ExactFactor], op: Callable[[Pair, Pair], Pair]) -> ExactFactor:
    names = tuple(sorted(set().union(*(f.names for f in factors))))
    result = factors[0].aligned(names)
    for other in factors[1:]:
        result = op(result, other.aligned(names))
    return ExactFactor(names, *result)


def _term(e: Prob | Expect, model: ExactModel, graph: DoGraph, env: dict[str, int]) -> Pair:
    """A probability term or expectation with its indices bound by ``env``, in each member."""
    if isinstance(e, Prob):
        event, given = bind_atoms(e.event, graph, env), bind_atoms(e.given, graph, env)
        return model.prob(event, bind_do(e.do, graph, env), given)
    do, given = bind_do(e.do, graph, env), bind_atoms(e.given, graph, env)
    total: Pair = (np.zeros(model.members, dtype=object), np.ones(model.members, dtype=object))
    for coef, atom in e.body:
        if atom.value is None:  # the variable itself: its values times their probabilities
            cf = bind_subscript(atom.cf, graph, env)
            weighted: list[tuple[int, tuple[Atom, ...]]] = [
                (coef * v, (Atom(atom.var, v, cf),)) for v in range(1, graph.domain(atom.var))
            ]
        else:
            weighted = [(coef, bind_atoms((atom,), graph, env))]
        for weight, bound in weighted:
            numerator, denominator = model.prob(bound, do, given)
            total = _add(total, (weight * numerator, denominator))
    return total


def _fraction(numerator: int, denominator: int) -> Fraction | float:
    return Fraction(numerator, denominator) if denominator else NAN


NAN = float("nan")
_FRACTION = np.frompyfunc(_fraction, 2, 1)
