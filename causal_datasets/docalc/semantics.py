"""Exact evaluation of causal expressions on random discrete models compatible with a DAG.

A model object holds a *family* of ``members`` random models of one graph that are evaluated
together: every probability is an array with one value per member (axis 0). Two kinds, both
strictly positive and seeded:

* :class:`TableModel` — one random conditional table per node; the (mutilated) joint
  distribution is enumerated exactly. Answers observational and interventional terms.
* :class:`ResponseModel` — the canonical structural model: each node's exogenous variable picks
  one of all functions from parent values to node values (a "response type") with random
  positive probabilities. Every world ``do(...)`` is computed from the same exogenous states, so
  counterfactual terms (``Y_{X=1}``, nested subscripts) are exact too; members share the worlds
  and differ only in the type probabilities.

Latent nodes are ordinary nodes here. An expression is evaluated for every assignment of its free
indices (:func:`evaluate`, the reference interpreter). :mod:`.decide` compares two expressions.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from causal_datasets.docalc.expr import (
    Add,
    Atom,
    Div,
    Expect,
    Expr,
    Mul,
    Neg,
    Num,
    Potential,
    Prob,
    Sum,
    leaf_values,
)
from causal_datasets.docalc.graph import DoGraph

#: largest number of exogenous states a response model may enumerate
MAX_RESPONSE_STATES = 1 << 18
#: largest joint distribution (value combinations of all nodes) a table model may enumerate
MAX_JOINT_STATES = 1 << 20
#: smallest probability of any table entry / response type (keeps every model strictly positive)
POSITIVITY_FLOOR = 0.02


class EvaluationError(ValueError):
    """The expression cannot be evaluated (value outside the domain, too large a model, ...)."""


class ModelTooLarge(EvaluationError):
    """The graph's relevant part has too many states to enumerate exactly."""


# ---- models -------------------------------------------------------------------------------


def _positive_simplex(rng: np.random.Generator, size: int, count: int = 1) -> np.ndarray:
    """``count`` random probability vectors of length ``size``, every entry above the floor."""
    draws = rng.dirichlet(np.ones(size), count)
    return POSITIVITY_FLOOR / size + (1 - POSITIVITY_FLOOR) * draws


def safe_divide(num, den) -> np.ndarray:
    """``num / den`` elementwise, NaN where ``den`` is zero (an undefined conditional)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    nonzero = den != 0
    return np.where(nonzero, num / np.where(nonzero, den, 1.0), np.nan)


class TableModel:
    """Random conditional probability tables ``P(node | parents)`` for each member; exact joints.

    Arrays over the nodes have the member axis first, then one axis per node in
    ``graph.order`` (``self.axis[node]``)."""

    kind = "tables"

    def __init__(self, graph: DoGraph, factors: dict[str, np.ndarray]) -> None:
        """``factors[node]``: ``P(node | parents)`` as a member-first array over all nodes, of full
        size on the node and its parents and size 1 elsewhere (rows summing to 1 over the node)."""
        self.graph = graph
        self.axis = {n: i + 1 for i, n in enumerate(graph.order)}
        self.members = len(factors[graph.order[0]])
        self.shape = (self.members,) + tuple(graph.domain(n) for n in graph.order)
        self._factors = factors
        self._truncated: dict[frozenset, np.ndarray] = {}
        self._joints: dict[tuple, np.ndarray] = {}
        self._memo: dict[tuple, np.ndarray] = {}
        self._terms: dict = {}  # vectorized term values (see :mod:`.vectorized`)

    @classmethod
    def single(cls, graph: DoGraph, tables: dict[str, np.ndarray]) -> TableModel:
        """A one-member model from given tables: ``tables[node]`` has one axis per parent (in
        ``graph.parents(node)`` order) then the node's values; checked."""
        axis = {n: i for i, n in enumerate(graph.order)}
        shapes = _factor_shapes(graph, 1)
        factors = {}
        for node in graph.order:
            family = graph.parents(node) + (node,)
            expected = tuple(graph.domain(n) for n in family)
            table = np.asarray(tables[node], dtype=float)
            if table.shape != expected or table.min() < 0 or np.abs(table.sum(axis=-1) - 1.0).max() > 1e-9:
                raise EvaluationError(f"table of {node} must have shape {expected} and rows summing to 1")
            moved = np.transpose(table, sorted(range(len(family)), key=lambda i: axis[family[i]]))
            factors[node] = moved.reshape(shapes[node])
        return cls(graph, factors)

    @classmethod
    def random(cls, graph: DoGraph, rng: np.random.Generator, members: int = 1) -> TableModel:
        """``members`` random models: each row of each table is a flat Dirichlet draw (normalized
        exponentials) mixed with the positivity floor.

        A node comes after its parents in ``graph.order``, so its own axis is the last of its
        factor and each row (one member, one parent configuration) is contiguous: the rows of
        all tables with the same domain size are drawn and normalized in one array."""
        states = math.prod(graph.domain(n) for n in graph.order)
        if states > MAX_JOINT_STATES:
            raise ModelTooLarge(
                f"exact evaluation needs the joint distribution of {len(graph.order)} nodes ({states} states; limit {MAX_JOINT_STATES})"
            )
        shapes = _factor_shapes(graph, members)
        factors = {}
        for size in sorted({graph.domain(n) for n in graph.order}):
            nodes = [n for n in graph.order if graph.domain(n) == size]
            rows = rng.standard_exponential((sum(math.prod(shapes[n]) for n in nodes) // size, size))
            rows = POSITIVITY_FLOOR / size + (1 - POSITIVITY_FLOOR) * rows / rows.sum(axis=1, keepdims=True)
            flat, offset = rows.reshape(-1), 0
            for node in nodes:
                count = math.prod(shapes[node])
                factors[node] = flat[offset : offset + count].reshape(shapes[node])
                offset += count
        return cls(graph, factors)

    def table(self, node: str, member: int = 0) -> np.ndarray:
        """One member's table of ``node``: one axis per parent (``graph.parents`` order), then the node."""
        family = self.graph.parents(node) + (node,)
        in_joint_order = sorted(family, key=self.axis.__getitem__)
        squeezed = self._factors[node][member].reshape([self.shape[self.axis[n]] for n in in_joint_order])
        return np.transpose(squeezed, [in_joint_order.index(n) for n in family])

    def truncated(self, cut: frozenset) -> np.ndarray:
        """The product of every table except those of the ``cut`` nodes.

        Truncated factorization: read at ``node = x`` for each cut node, this is the joint
        distribution under ``do(node = x)`` — so one array answers every value of the actions."""
        found = self._truncated.get(cut)
        if found is None:
            found = np.ones(self.shape)
            for node in self.graph.order:
                if node not in cut:
                    found *= self._factors[node]
            self._truncated[cut] = found
        return found

    def joint(self, do: tuple) -> np.ndarray:
        """The exact joint distribution of all nodes under ``do`` (sorted assignments): the
        truncated product times an indicator of each action's value."""
        found = self._joints.get(do)
        if found is None:
            found = self.truncated(frozenset(node for node, _ in do))
            for node, value in do:
                shape = [1] * len(self.shape)
                shape[self.axis[node]] = self.shape[self.axis[node]]
                indicator = np.zeros(shape)
                indicator[(0,) * self.axis[node] + (value,)] = 1.0
                found = found * indicator
            self._joints[do] = found
        return found

    def prob(self, event: tuple[Atom, ...], do: tuple, given: tuple[Atom, ...]) -> np.ndarray:
        """``P(event | do, given)`` in each member (NaN where the condition has probability zero)."""
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            if any(a.cf for a in event + given):
                raise EvaluationError("counterfactual terms need a response model")
            joint = self.joint(do)
            numerator = _mass(joint, self.axis, event + given)
            denominator = _mass(joint, self.axis, given) if given else 1.0
            found = self._memo[key] = safe_divide(numerator, denominator)
        return found

    def describe(self, member: int = 0) -> dict:
        return {
            "kind": self.kind,
            "tables": [
                {"node": n, "parents": list(self.graph.parents(n)), "p": np.round(self.table(n, member), 6).tolist()}
                for n in self.graph.order
            ],
        }


def _factor_shapes(graph: DoGraph, members: int) -> dict[str, tuple[int, ...]]:
    """Shape of each node's factor: members, then the domain on the node and its parents, 1 elsewhere."""
    position = {n: i + 1 for i, n in enumerate(graph.order)}
    shapes = {}
    for node in graph.order:
        shape = [1] * (len(position) + 1)
        shape[0] = members
        for n in graph.parents(node) + (node,):
            shape[position[n]] = graph.domain(n)
        shapes[node] = tuple(shape)
    return shapes


def _mass(joint: np.ndarray, axis: dict[str, int], atoms: tuple[Atom, ...]) -> np.ndarray:
    """Probability of the (constant-valued) ``atoms`` in each member."""
    index: list = [slice(None)] * joint.ndim
    for atom in atoms:
        position = axis[atom.var]
        current = index[position]
        if isinstance(current, int) and current != atom.value:
            return np.zeros(joint.shape[0])
        index[position] = atom.value
    return joint[tuple(index)].reshape(joint.shape[0], -1).sum(axis=1)


class ResponseModel:
    """The canonical structural model: independent random response types per node, per member."""

    kind = "response-functions"

    def __init__(self, graph: DoGraph, rng: np.random.Generator, members: int = 1) -> None:
        self.graph = graph
        self.members = members
        counts = []
        self.functions: dict[str, np.ndarray] = {}
        self.type_probs: dict[str, np.ndarray] = {}
        for node in graph.order:
            d = graph.domain(node)
            configs = math.prod(graph.domain(p) for p in graph.parents(node))
            n_types = d**configs
            if n_types > MAX_RESPONSE_STATES:
                raise ModelTooLarge(f"node {node} has too many parent configurations for a response model")
            counts.append(n_types)
            types = np.arange(n_types)[:, None]
            # function table: type t maps parent configuration c to digit c of t in base d
            self.functions[node] = (types // d ** np.arange(configs)[None, :]) % d
            self.type_probs[node] = _positive_simplex(rng, n_types, members)
        if math.prod(counts) > MAX_RESPONSE_STATES:
            raise ModelTooLarge(
                f"a response model of this graph needs {math.prod(counts)} exogenous states (limit {MAX_RESPONSE_STATES})"
            )
        grids = np.indices(counts).reshape(len(counts), -1)
        self.types = {node: grids[i] for i, node in enumerate(graph.order)}
        # weights[m, s]: probability of exogenous state s in member m
        self.weights = np.prod([self.type_probs[n][:, self.types[n]] for n in graph.order], axis=0)
        self._worlds: dict[tuple, dict[str, np.ndarray]] = {}
        self._memo: dict[tuple, np.ndarray] = {}

    def world(self, do: tuple) -> dict[str, np.ndarray]:
        """Node values in every exogenous state under the intervention ``do`` (sorted assignments;
        a :class:`~.expr.Potential` value sets the node, state by state, to the value its variable
        takes under the nested intervention)."""
        found = self._worlds.get(do)
        if found is None:
            intervened = dict(do)
            states = self.weights.shape[1]
            found = {}
            for node in self.graph.order:
                if node in intervened:
                    value = intervened[node]
                    found[node] = self.world(value.cf)[value.var] if isinstance(value, Potential) else np.full(states, value)
                    continue
                config = np.zeros(states, dtype=np.int64)
                for parent in self.graph.parents(node):
                    config = config * self.graph.domain(parent) + found[parent]
                found[node] = self.functions[node][self.types[node], config]
            self._worlds[do] = found
        return found

    def _mask(self, atom: Atom, do: tuple) -> np.ndarray:
        return self.world(_within(do, atom.cf))[atom.var] == atom.value

    def prob(self, event: tuple[Atom, ...], do: tuple, given: tuple[Atom, ...]) -> np.ndarray:
        """``P(event | do, given)`` in each member (NaN where the condition has probability zero)."""
        key = (event, do, given)
        found = self._memo.get(key)
        if found is None:
            condition = np.ones(self.weights.shape[1], dtype=bool)
            for atom in given:
                condition &= self._mask(atom, do)
            joint = condition.copy()
            for atom in event:
                joint &= self._mask(atom, do)
            found = self._memo[key] = safe_divide(self.weights @ joint, self.weights @ condition)
        return found

    def describe(self, member: int = 0) -> dict:
        return {
            "kind": self.kind,
            "response_type_probabilities": [
                {"node": n, "parents": list(self.graph.parents(n)), "p": np.round(self.type_probs[n][member], 6).tolist()}
                for n in self.graph.order
            ],
        }


def _within(do: tuple, cf: tuple) -> tuple:
    """The subscript ``cf`` applied on top of the term's ``do`` (sorted), nested subscripts too."""
    resolved = {var: Potential(value.var, _within(do, value.cf)) if isinstance(value, Potential) else value for var, value in cf}
    return tuple(sorted({**dict(do), **resolved}.items()))


Model = TableModel | ResponseModel


def random_models(graph: DoGraph, seed: int, members: int, counterfactual: bool) -> Model:
    """The seeded family of ``members`` random models of ``graph`` (response models when
    counterfactuals occur).

    Families are kept on the graph object, so pairs checked under one graph share them (and their
    cached interventional distributions)."""
    key = ("models", seed, members, counterfactual)
    model = graph._cache.get(key)
    if model is None:
        rng = np.random.Generator(np.random.PCG64(_seed_sequence(seed, members)))
        model = ResponseModel(graph, rng, members) if counterfactual else TableModel.random(graph, rng, members)
        graph._cache[key] = model
    return model


@lru_cache(maxsize=64)
def _seed_sequence(seed: int, members: int) -> np.random.SeedSequence:
    """The entropy of a model family's stream, hashed once (a fresh generator per family stays cheap)."""
    return np.random.SeedSequence([seed, members])


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

    def assignments(self, names: list[str]):
        for values in itertools.product(*(range(self.sizes[n]) for n in names)):
            yield dict(zip(names, values))


def evaluate(e: Expr, model: Model, graph: DoGraph, env: dict[str, int]) -> np.ndarray:
    """Value of ``e`` in each member model (shape ``(members,)``) with free indices bound by ``env``."""
    if isinstance(e, Num):
        return np.full(model.members, float(e.value))
    if isinstance(e, Prob):
        return model.prob(_bind_atoms(e.event, graph, env), _bind_do(e.do, graph, env), _bind_atoms(e.given, graph, env))
    if isinstance(e, Expect):
        do = _bind_do(e.do, graph, env)
        given = _bind_atoms(e.given, graph, env)
        total = np.zeros(model.members)
        for coef, atom in e.body:
            if atom.value is None:
                cf = _bind_do(atom.cf, graph, env)
                for v in range(1, graph.domain(atom.var)):
                    total = total + coef * v * model.prob((Atom(atom.var, v, cf),), do, given)
            else:
                total = total + coef * model.prob(_bind_atoms((atom,), graph, env), do, given)
        return total
    if isinstance(e, Neg):
        return -evaluate(e.arg, model, graph, env)
    if isinstance(e, Add):
        return sum(evaluate(t, model, graph, env) for t in e.terms)
    if isinstance(e, Mul):
        return math.prod(evaluate(f, model, graph, env) for f in e.factors)
    if isinstance(e, Div):
        return safe_divide(evaluate(e.num, model, graph, env), evaluate(e.den, model, graph, env))
    if isinstance(e, Sum):
        return sum(
            evaluate(e.body, model, graph, {**env, e.index: value}) for value in range(graph.domain(e.var))
        )
    raise EvaluationError(f"cannot evaluate {type(e).__name__}")


def _bind(var: str, value, graph: DoGraph, env: dict[str, int]) -> int | Potential:
    if isinstance(value, Potential):
        if graph.domain(value.var) != graph.domain(var):
            raise EvaluationError(f"{var} cannot take the values of {value.var}: their domains differ")
        return Potential(value.var, _bind_do(value.cf, graph, env))
    if isinstance(value, str):
        if value not in env:
            raise EvaluationError(f"index {value!r} is not bound")
        value = env[value]
    if not 0 <= value < graph.domain(var):
        raise EvaluationError(f"value {value} is outside the domain of {var} (0..{graph.domain(var) - 1})")
    return value


def _bind_do(assigns, graph: DoGraph, env: dict[str, int]) -> tuple:
    return tuple(sorted(((v, _bind(v, x, graph, env)) for v, x in assigns), key=lambda pair: pair[0]))


def _bind_atoms(atoms: tuple[Atom, ...], graph: DoGraph, env: dict[str, int]) -> tuple[Atom, ...]:
    return tuple(Atom(a.var, _bind(a.var, a.value, graph, env), _bind_do(a.cf, graph, env)) for a in atoms)

