"""Exact evaluation of causal expressions on random discrete models of a DAG.

A model object holds a *family* of ``members`` random models of one graph that are evaluated
together: every probability is an array with one value per member (axis 0). Two kinds, both
strictly positive and seeded:

* :class:`TableModel` — one random conditional table per node; a term (observational or interventional)
  is a sum of products of tables, by variable elimination (:mod:`.elimination`) over the ancestors of its
  variables in the graph without the edges into its actions: the joint of all nodes is never built.
* :class:`ResponseModel` — the canonical structural model: each observed node's exogenous
  variable picks one of all functions from its observed parents' values to its values (a
  "response type"), with random positive probabilities that may depend on the values of its
  latent parents (the sources of :mod:`.latent`, which have random distributions of their own).
  Every world ``do(...)`` is computed from the same exogenous states, so counterfactual terms
  (``Y_{X=1}``, nested subscripts) are exact too; members share the worlds and differ only in the
  probabilities.

The families (:mod:`.families`) are drawn for the *model graph* of :mod:`.latent`. :func:`evaluate`, the
reference interpreter, evaluates an expression for an assignment of its free indices, with a bound on
its rounding error if asked (:class:`~.bounded.Bounded`); :mod:`.decide` compares two. Drawing, each
term's elimination and each interpreter step are charged to the call's time budget (:mod:`.budget`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, overload

import numpy as np

from causal_datasets.docalc.atoms import Assign, Atom, Potential, Subscript, Value
from causal_datasets.docalc.bounded import Bounded, Floats, rounding, safe_divide
from causal_datasets.docalc.budget import charge
from causal_datasets.docalc.elimination import EPSILON, Table, TooLarge, contract
from causal_datasets.docalc.expr import Add, Div, Expect, Expr, Mul, Neg, Num, Prob, Sum, leaf_values
from causal_datasets.docalc.graph import DoGraph

if TYPE_CHECKING:
    from causal_datasets.docalc.exact import ExactResponses, ExactTables
    from causal_datasets.docalc.vectorized import Factor

#: largest number of exogenous states a response model may enumerate
MAX_RESPONSE_STATES = 1 << 18
#: most entries (members included) one step of a term's variable elimination may touch
MAX_TERM_ENTRIES = 1 << 24
#: drawing a table entry takes about as long as this many entries of an elimination step (40-100 ns loaded)
DRAW_ENTRIES = 4
#: smallest probability of any table entry / response type (keeps every model strictly positive)
POSITIVITY_FLOOR = 0.02
#: every random probability is a multiple of 2^-(GRID_BITS + bit length of its row's size): exact in
#: float64, and exactly rational for :mod:`.exact`
GRID_BITS = 20


class EvaluationError(ValueError):
    """The expression cannot be evaluated (value outside the domain, too large a model, ...)."""


class ModelTooLarge(EvaluationError):
    """The graph's relevant part has too many states to evaluate exactly."""


# ---- models -------------------------------------------------------------------------------


def _positive_simplex(rng: np.random.Generator, size: int, count: int = 1) -> np.ndarray:
    """``count`` random probability vectors of length ``size``, every entry above the floor, on the grid."""
    draws = rng.dirichlet(np.ones(size), count)
    return on_grid(POSITIVITY_FLOOR / size + (1 - POSITIVITY_FLOOR) * draws)


def grid_bits(size: int) -> int:
    """The bits of the grid of a probability vector of length ``size`` (its entries are multiples of 2^-bits)."""
    return GRID_BITS + size.bit_length()


def on_grid(rows: np.ndarray) -> np.ndarray:
    """Probability vectors (last axis) moved onto their grid, summing to 1 exactly: every entry but
    the last rounded down, the last what is left (so none falls below the floor's grid value)."""
    scale = float(1 << grid_bits(rows.shape[-1]))
    counts = np.floor(rows * scale)
    counts[..., -1] = scale - counts[..., :-1].sum(axis=-1)
    return counts / scale


def _family(graph: DoGraph, node: str) -> tuple[str, ...]:
    """The node and its parents in ``graph.order`` (the node last): the axes of its table."""
    position = graph._cache.get("order index")
    if position is None:
        position = graph._cache["order index"] = {n: i for i, n in enumerate(graph.order)}
    return tuple(sorted(graph.parents(node) + (node,), key=position.__getitem__))


class TableModel:
    """Random conditional probability tables ``P(node | parents)`` for each member; exact terms.

    ``factors[node]`` is a :class:`~.elimination.Table` over the node's family in graph order (the
    node last), member axis first."""

    kind = "tables"

    def __init__(self, graph: DoGraph, factors: dict[str, Table]) -> None:
        self.graph = graph
        self.factors = factors
        self.members = factors[graph.order[0]].array.shape[0]
        self._memo: dict[TermKey, tuple[Floats, float]] = {}
        self._terms: dict[Prob, Factor] = {}  # vectorized term values (see :mod:`.vectorized`)
        self.exact: ExactTables | None = None  # the exact twin, once built (:func:`.exact.exact_model`)

    @classmethod
    def single(cls, graph: DoGraph, tables: dict[str, np.ndarray]) -> TableModel:
        """A one-member model from given tables: ``tables[node]`` has one axis per parent (in
        ``graph.parents(node)`` order) then the node's values; checked."""
        factors = {}
        for node in graph.order:
            given = graph.parents(node) + (node,)
            expected = tuple(graph.domain(n) for n in given)
            table = np.asarray(tables[node], dtype=float)
            if table.shape != expected or table.min() < 0 or np.abs(table.sum(axis=-1) - 1.0).max() > 1e-9:
                raise EvaluationError(f"table of {node} must have shape {expected} and rows summing to 1")
            family = _family(graph, node)
            factors[node] = Table(family, np.transpose(table, [given.index(n) for n in family])[None])
        return cls(graph, factors)

    @classmethod
    def random(cls, graph: DoGraph, rng: np.random.Generator, members: int = 1) -> TableModel:
        """``members`` random models: each row of each table is a flat Dirichlet draw (normalized
        exponentials) mixed with the positivity floor, on the grid (:func:`on_grid`).

        A node is the last axis of its table, so each row (one member, one parent configuration)
        is contiguous: the rows of all tables with the same domain size are drawn and normalized
        in one array."""
        shapes = {n: (members, *(graph.domain(m) for m in _family(graph, n))) for n in graph.order}
        charge("drawing the random models", DRAW_ENTRIES * sum(math.prod(shape) for shape in shapes.values()))
        factors = {}
        for size in sorted({graph.domain(n) for n in graph.order}):
            nodes = [n for n in graph.order if graph.domain(n) == size]
            rows = rng.standard_exponential((sum(math.prod(shapes[n]) for n in nodes) // size, size))
            rows = on_grid(POSITIVITY_FLOOR / size + (1 - POSITIVITY_FLOOR) * rows / rows.sum(axis=1, keepdims=True))
            flat, offset = rows.reshape(-1), 0
            for node in nodes:
                count = math.prod(shapes[node])
                factors[node] = Table(_family(graph, node), flat[offset : offset + count].reshape(shapes[node]))
                offset += count
        return cls(graph, factors)

    def table(self, node: str, member: int = 0) -> np.ndarray:
        """One member's table of ``node``: one axis per parent (``graph.parents`` order), then the node."""
        factor = self.factors[node]
        given = self.graph.parents(node) + (node,)
        return np.transpose(factor.array[member], [factor.names.index(n) for n in given])

    def contract(self, keep: tuple[str, ...], do: frozenset[str], fixed: dict[str, int]) -> tuple[np.ndarray, float]:
        """The joint distribution under ``do(do)`` of the ``keep`` variables and the ``fixed`` ones
        read at their values: an array over (member, *keep) — a kept action has its action values
        on its axis — and a bound on its relative rounding error. Only the tables of the
        ancestors of the variables (edges into the actions cut) take part."""
        for var, value in fixed.items():
            if not 0 <= value < self.graph.domain(var):
                raise EvaluationError(f"value {value} is outside the domain of {var} (0..{self.graph.domain(var) - 1})")
        targets = [v for v in (*keep, *fixed) if v not in do]
        tables = []
        for node in sorted(self.graph.ancestors(targets, cut_in=do) - do):
            factor = self.factors[node]
            index = (slice(None), *(fixed.get(n, slice(None)) for n in factor.names))
            tables.append(Table(tuple(n for n in factor.names if n not in fixed), factor.array[index]))
        sizes = {n: self.graph.domain(n) for n in (*keep, *(n for t in tables for n in t.names))}
        try:
            return contract(tables, keep, sizes, MAX_TERM_ENTRIES)
        except TooLarge as error:
            raise ModelTooLarge(f"exact evaluation of a term is too large: {error}") from None

    def prob(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> Floats:
        """``P(event | do, given)`` in each member (NaN where the condition has probability zero)."""
        return self.prob_with_error(event, do, given)[0]

    def prob_with_error(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> tuple[Floats, float]:
        """``P(event | do, given)`` and a bound on its relative rounding error."""
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            if any(a.cf for a in event + given):
                raise EvaluationError("counterfactual terms need a response model")
            numerator, error = self._mass(event + given, do)
            denominator, den_error = self._mass(given, do) if given else (1.0, 0.0)
            found = self._memo[key] = (safe_divide(numerator, denominator), error + den_error + EPSILON)
        return found

    def _mass(self, atoms: tuple[Atom, ...], do: Actions) -> tuple[Floats, float]:
        """Probability of the (constant-valued) ``atoms`` under ``do`` in each member: zero when two
        of them, or one and an action, give a variable different values."""
        fixed = dict(do)
        for atom in atoms:
            if fixed.setdefault(atom.var, bound_value(atom)) != atom.value:
                return np.zeros(self.members), 0.0
        mass, error = self.contract((), frozenset(var for var, _ in do), fixed)
        return mass.reshape(-1), error

    def describe(self, member: int = 0) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tables": [
                {"node": n, "parents": list(self.graph.parents(n)), "p": np.round(self.table(n, member), 6).tolist()}
                for n in self.graph.order
            ],
        }


class ResponseModel:
    """The canonical structural model: random response-type probabilities per node and member.

    Latent nodes (sources: no parents) have a random distribution over their values; an observed
    node's response types are the functions of its observed parents, with probabilities that
    depend on the values of its latent parents. The exogenous states (every source value and
    response type) are enumerated."""

    kind = "response-functions"

    def __init__(self, graph: DoGraph, rng: np.random.Generator, members: int = 1) -> None:
        self.graph = graph
        self.members = members
        counts = []
        self.functions: dict[str, np.ndarray] = {}
        self.type_probs: dict[str, np.ndarray] = {}  # member, latent parents' configuration, type
        self._observed_parents: dict[str, tuple[str, ...]] = {}
        for node in graph.order:
            if node in graph.latent and graph.parents(node):
                raise EvaluationError(f"latent node {node} has parents: response models take latent sources only")
            d = graph.domain(node)
            observed = tuple(p for p in graph.parents(node) if p not in graph.latent)
            latent_configs = math.prod(graph.domain(p) for p in graph.parents(node) if p in graph.latent)
            configs = math.prod(graph.domain(p) for p in observed)
            n_types = d if node in graph.latent else d**configs
            if n_types > MAX_RESPONSE_STATES:
                raise ModelTooLarge(f"node {node} has too many parent configurations for a response model")
            counts.append(n_types)
            self._observed_parents[node] = observed
            types = np.arange(n_types)[:, None]
            # function table: type t maps parent configuration c to digit c of t in base d
            self.functions[node] = (types // d ** np.arange(configs)[None, :]) % d
            probs = _positive_simplex(rng, n_types, members * latent_configs)
            self.type_probs[node] = probs.reshape(members, latent_configs, n_types)
        states = math.prod(counts)
        if states > MAX_RESPONSE_STATES or members * states > MAX_TERM_ENTRIES:
            raise ModelTooLarge(
                f"a response model of this graph needs {states:,} exogenous states for {members} member(s) "
                f"(limits {MAX_RESPONSE_STATES:,} states, {MAX_TERM_ENTRIES:,} entries)"
            )
        charge("enumerating the exogenous states", members * states * len(counts))
        grids = np.indices(counts).reshape(len(counts), -1)
        self.types = {node: grids[i] for i, node in enumerate(graph.order)}
        # weights[m, s]: probability of exogenous state s in member m
        self.weights = np.prod(
            [self.type_probs[n][:, self._latent_config(n), self.types[n]] for n in graph.order], axis=0
        )
        self._worlds: dict[Subscript, dict[str, np.ndarray]] = {}
        self.exact: ExactResponses | None = None  # the exact twin, once built (:func:`.exact.exact_model`)
        self._memo: dict[TermKey, tuple[Floats, float]] = {}

    def _latent_config(self, node: str) -> np.ndarray:
        """The configuration of ``node``'s latent parents in every exogenous state."""
        config = np.zeros(len(self.types[node]), dtype=np.int64)
        for parent in self.graph.parents(node):
            if parent in self.graph.latent:
                config = config * self.graph.domain(parent) + self.types[parent]
        return config

    def world(self, do: Subscript) -> dict[str, np.ndarray]:
        """Observed node values in every exogenous state under the intervention ``do`` (sorted
        assignments; a :class:`~.expr.Potential` value sets the node, state by state, to the value
        its variable takes under the nested intervention)."""
        found = self._worlds.get(do)
        if found is None:
            intervened = dict(do)
            states = self.weights.shape[1]
            found = {}
            for node in self.graph.order:
                if node in self.graph.latent:
                    continue
                if node in intervened:
                    value = intervened[node]
                    found[node] = (
                        self.world(value.cf)[value.var] if isinstance(value, Potential) else np.full(states, value)
                    )
                    continue
                config = np.zeros(states, dtype=np.int64)
                for parent in self._observed_parents[node]:
                    config = config * self.graph.domain(parent) + found[parent]
                found[node] = self.functions[node][self.types[node], config]
            self._worlds[do] = found
        return found

    def mask(self, atom: Atom, do: Subscript) -> np.ndarray:
        """Which exogenous states make ``atom`` true under ``do`` (its own subscript applied on top)."""
        holds: np.ndarray = self.world(_within(do, atom.cf))[atom.var] == atom.value
        return holds

    def prob(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> Floats:
        """``P(event | do, given)`` in each member (NaN where the condition has probability zero)."""
        return self.prob_with_error(event, do, given)[0]

    def prob_with_error(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> tuple[Floats, float]:
        """``P(event | do, given)`` and a bound on its relative rounding error (the weights are
        products of one probability per node, summed over the states)."""
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            charge("a term of the response model", self.weights.size * (len(event) + len(given) + 2))
            condition = np.ones(self.weights.shape[1], dtype=bool)
            for atom in given:
                condition &= self.mask(atom, do)
            joint = condition.copy()
            for atom in event:
                joint &= self.mask(atom, do)
            error = 2 * (len(self.graph.order) + self.weights.shape[1]) * EPSILON + EPSILON
            found = self._memo[key] = (safe_divide(self.weights @ joint, self.weights @ condition), error)
        return found

    def describe(self, member: int = 0) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "response_type_probabilities": [
                {
                    "node": n,
                    "parents": list(self.graph.parents(n)),
                    "p": np.round(self._type_probs(n, member), 6).tolist(),
                }
                for n in self.graph.order
            ],
        }

    def _type_probs(self, node: str, member: int) -> np.ndarray:
        """One member's type probabilities of ``node``: one row per configuration of its latent parents, if any."""
        probs: np.ndarray = self.type_probs[node][member]
        return probs if any(p in self.graph.latent for p in self.graph.parents(node)) else probs[0]


def bound_value(atom: Atom) -> int:
    """The value of an atom whose index was bound (:func:`bind_atoms`)."""
    if not isinstance(atom.value, int):
        raise EvaluationError(f"{atom.var} has no bound value")
    return atom.value


def _within(do: Subscript, cf: Subscript) -> Subscript:
    """The subscript ``cf`` applied on top of the term's ``do`` (sorted), nested subscripts too."""
    resolved = {
        var: Potential(value.var, _within(do, value.cf)) if isinstance(value, Potential) else value for var, value in cf
    }
    return tuple(sorted({**dict(do), **resolved}.items()))


Model = TableModel | ResponseModel


class TermModel(Protocol):
    """What :func:`evaluate` reads of a model without error bounds (a :data:`Model`, or a peer's)."""

    members: int

    def prob(self, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...]) -> Floats: ...


#: interventions with their values bound: ``((variable, value), ...)`` sorted by variable
Actions = tuple[tuple[str, int], ...]
#: a term's memo key: its event, its (bound) interventions and its conditions
TermKey = tuple[tuple[Atom, ...], Subscript, tuple[Atom, ...]]


# ---- evaluation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexDomains:
    """The values each free index of an expression ranges over."""

    sizes: dict[str, int]

    @classmethod
    def of(cls, graph: DoGraph, *exprs: Expr) -> IndexDomains:
        sizes: dict[str, int] = {}
        for e in exprs:
            for var, value in leaf_values(e):
                if isinstance(value, str):
                    size = graph.domain(var)
                    if sizes.setdefault(value, size) != size:
                        raise EvaluationError(f"index {value!r} is used with variables of different domain sizes")
        return cls(sizes)

    def assignments(self, names: list[str]) -> Iterator[dict[str, int]]:
        for values in itertools.product(*(range(self.sizes[n]) for n in names)):
            charge("evaluating the next assignment of the free indices")
            yield dict(zip(names, values, strict=True))


@overload
def evaluate(
    e: Expr, model: TermModel, graph: DoGraph, env: dict[str, int], bounded: Literal[False] = False
) -> Floats: ...


@overload
def evaluate(e: Expr, model: Model, graph: DoGraph, env: dict[str, int], bounded: Literal[True]) -> Bounded: ...


@overload
def evaluate(e: Expr, model: TermModel, graph: DoGraph, env: dict[str, int], bounded: bool) -> Floats | Bounded: ...


def evaluate(e: Expr, model: TermModel, graph: DoGraph, env: dict[str, int], bounded: bool = False) -> Floats | Bounded:
    """Value of ``e`` in each member model (shape ``(members,)``) with free indices bound by ``env``;
    with ``bounded``, a :class:`Bounded`: the same values with a bound on their rounding error."""
    if isinstance(e, Num):
        value = np.full(model.members, float(e.value))
        return Bounded(value, np.full(model.members, rounding(e.value))) if bounded else value
    if isinstance(e, Prob):
        event, given = bind_atoms(e.event, graph, env), bind_atoms(e.given, graph, env)
        return _term(model, event, bind_do(e.do, graph, env), given, bounded)
    if isinstance(e, Expect):
        do = bind_do(e.do, graph, env)
        given = bind_atoms(e.given, graph, env)
        total: Floats | Bounded = np.zeros(model.members)
        for coef, atom in e.body:
            if atom.value is None:
                cf = bind_subscript(atom.cf, graph, env)
                for v in range(1, graph.domain(atom.var)):
                    total = total + coef * v * _term(model, (Atom(atom.var, v, cf),), do, given, bounded)
            else:
                total = total + coef * _term(model, bind_atoms((atom,), graph, env), do, given, bounded)
        return total
    if isinstance(e, Neg):
        return -evaluate(e.arg, model, graph, env, bounded)
    if isinstance(e, Add):
        return _total(evaluate(t, model, graph, env, bounded) for t in e.terms)
    if isinstance(e, Mul):
        return cast("Floats | Bounded", math.prod(evaluate(f, model, graph, env, bounded) for f in e.factors))
    if isinstance(e, Div):
        num, den = evaluate(e.num, model, graph, env, bounded), evaluate(e.den, model, graph, env, bounded)
        if isinstance(num, Bounded) or isinstance(den, Bounded):
            return Bounded.of(num).divided_by(Bounded.of(den))
        return safe_divide(num, den)
    if isinstance(e, Sum):
        charge(f"summing over {e.var}")
        return _total(
            evaluate(e.body, model, graph, {**env, e.index: value}, bounded) for value in range(graph.domain(e.var))
        )
    raise EvaluationError(f"cannot evaluate {type(e).__name__}")


def _total(values: Iterable[Floats | Bounded]) -> Floats | Bounded:
    """Python's ``sum`` of at least one value (a bounded sum charges its addition to 0 as well)."""
    return cast("Floats | Bounded", sum(values))


def _term(
    model: TermModel, event: tuple[Atom, ...], do: Actions, given: tuple[Atom, ...], bounded: bool
) -> Floats | Bounded:
    if not bounded:  # any model with ``prob`` will do (the benchmark's pgmpy peer has nothing else)
        return model.prob(event, do, given)
    if not isinstance(model, TableModel | ResponseModel):
        raise EvaluationError(f"a {type(model).__name__} bounds no rounding error")
    value, relative = model.prob_with_error(event, do, given)
    return Bounded(value, relative * np.abs(value))


def _bind(var: str, value: Value | Potential, graph: DoGraph, env: dict[str, int]) -> int | Potential:
    if isinstance(value, Potential):
        if graph.domain(value.var) != graph.domain(var):
            raise EvaluationError(f"{var} cannot take the values of {value.var}: their domains differ")
        return Potential(value.var, bind_subscript(value.cf, graph, env))
    return _bind_value(var, value, graph, env)


def _bind_value(var: str, value: Value | None, graph: DoGraph, env: dict[str, int]) -> int:
    if value is None:
        raise EvaluationError(f"{var} has no value to bind")
    if isinstance(value, str):
        if value not in env:
            raise EvaluationError(f"index {value!r} is not bound")
        value = env[value]
    if not 0 <= value < graph.domain(var):
        raise EvaluationError(f"value {value} is outside the domain of {var} (0..{graph.domain(var) - 1})")
    return value


def bind_do(assigns: tuple[Assign, ...], graph: DoGraph, env: dict[str, int]) -> Actions:
    """Interventions with their indices bound by ``env`` (sorted by variable)."""
    return tuple(sorted(((v, _bind_value(v, x, graph, env)) for v, x in assigns), key=lambda pair: pair[0]))


def bind_subscript(assigns: Subscript, graph: DoGraph, env: dict[str, int]) -> Subscript:
    """A counterfactual subscript with its indices bound by ``env``, nested ones too (sorted by variable)."""
    return tuple(sorted(((v, _bind(v, x, graph, env)) for v, x in assigns), key=lambda pair: pair[0]))


def bind_atoms(atoms: tuple[Atom, ...], graph: DoGraph, env: dict[str, int]) -> tuple[Atom, ...]:
    return tuple(Atom(a.var, _bind_value(a.var, a.value, graph, env), bind_subscript(a.cf, graph, env)) for a in atoms)
