"""Random ADMGs and queries, and two checks of ``identify`` that share no code with the package:
an exact numeric evaluator on models with explicit latent variables, and Tian's identification
decision (J. Tian, "Studies in Causal Reasoning and Learning", 2002: ``Identify(C, T)``), complete
like ID (Shpitser & Pearl 2006; Huang & Valtorta 2006).

Graphs are plain data here: observed nodes in a topological order, directed edges, bidirected pairs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from causal_datasets.docalc.expr import Add, Div, Expr, Mul, Neg, Num, Prob, Sum


@dataclass(frozen=True)
class MixedGraph:
    nodes: tuple[str, ...]  # a topological order
    directed: tuple[tuple[str, str], ...]
    bidirected: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        """Edge text for ``identify``; every node appears (a lone node on its own)."""
        touched = {n for edge in self.directed + self.bidirected for n in edge}
        parts = [f"{a}->{b}" for a, b in self.directed] + [f"{a}<->{b}" for a, b in self.bidirected]
        return ",".join(parts + [n for n in self.nodes if n not in touched])

    def parents(self, node: str) -> set[str]:
        return {a for a, b in self.directed if b == node}

    def siblings(self, node: str) -> set[str]:
        return {b if a == node else a for a, b in self.bidirected if node in (a, b)}


def random_admg(
    rng: np.random.Generator, size: int, p_directed: float = 0.35, p_bidirected: float = 0.25, max_bidirected: int = 6
) -> MixedGraph:
    nodes = tuple(f"V{i}" for i in range(1, size + 1))
    directed = tuple((a, b) for i, a in enumerate(nodes) for b in nodes[i + 1 :] if rng.random() < p_directed)
    pairs = [(a, b) for i, a in enumerate(nodes) for b in nodes[i + 1 :] if rng.random() < p_bidirected]
    rng.shuffle(pairs)
    return MixedGraph(nodes, directed, tuple(sorted(pairs[:max_bidirected])))


def random_query(
    rng: np.random.Generator, graph: MixedGraph, conditional: bool
) -> tuple[list[str], list[str], list[str]]:
    """(outcomes, treatments, conditions): disjoint, one or two outcomes and treatments, at most one condition."""
    order = list(rng.permutation(graph.nodes))
    ys = order[: int(rng.integers(1, 3))]
    rest = order[len(ys) :]
    xs = rest[: int(rng.integers(1, 3))]
    zs = rest[len(xs) : len(xs) + 1] if conditional else []
    return sorted(ys), sorted(xs), sorted(zs)


def query_text(ys, xs, zs=(), values: dict | None = None) -> str:
    values = values or {}

    def show(v):
        return f"{v}={values[v]}" if v in values else v

    conditions = ([f"do({', '.join(show(x) for x in xs)})"] if xs else []) + [show(z) for z in zs]
    return f"P({', '.join(show(y) for y in ys)}{' | ' + ', '.join(conditions) if conditions else ''})"


# ---- Tian's decision ----------------------------------------------------------------------------


def _closure(start, step, within) -> frozenset[str]:
    """``start`` and every node of ``within`` reached from it by repeated ``step`` (parents or siblings)."""
    found, stack = set(start), list(start)
    while stack:
        for node in step(stack.pop()) & set(within):
            if node not in found:
                found.add(node)
                stack.append(node)
    return frozenset(found)


def _ancestors(graph: MixedGraph, targets, within) -> frozenset[str]:
    return _closure(targets, graph.parents, within)


def _district(graph: MixedGraph, start, within) -> frozenset[str]:
    return _closure(start, graph.siblings, within)


def tian_identifiable(graph: MixedGraph, ys, xs) -> bool:
    """Is ``P(ys | do(xs))`` identifiable? Each district D of the ancestors of ys in G[V \\ xs] must be
    reached from its district of G by Tian's Identify (ancestral closure, then district, repeated)."""
    everything = frozenset(graph.nodes)
    relevant = _ancestors(graph, ys, everything - set(xs))
    seen: set[str] = set()
    for node in sorted(relevant):
        if node in seen:
            continue
        district = _district(graph, {node}, relevant)
        seen |= district
        target = _district(graph, district, everything)
        while True:
            closure = _ancestors(graph, district, target)
            if closure == district:
                break
            if closure == target:
                return False
            target = _district(graph, district, closure)
    return True


def with_latents(graph: MixedGraph) -> nx.DiGraph:
    """The DAG with one explicit latent node per bidirected pair."""
    dag = nx.DiGraph()
    dag.add_nodes_from(graph.nodes)
    dag.add_edges_from(graph.directed)
    for a, b in graph.bidirected:
        dag.add_edges_from([(f"L_{a}_{b}", a), (f"L_{a}_{b}", b)])
    return dag


def idc_identifiable(graph: MixedGraph, ys, xs, zs) -> bool:
    """IDC's reduction (an observation Z that is d-separated from ys given the rest, with the edges into
    the actions and out of Z cut, becomes an action), read with networkx's d-separation, then Tian."""
    dag = with_latents(graph)
    xs, zs = set(xs), set(zs)
    moved = True
    while zs and moved:
        moved = False
        for z in sorted(zs):
            cut = dag.copy()
            cut.remove_edges_from([(u, v) for u, v in dag.edges if v in xs or u == z])
            if nx.is_d_separator(cut, {z}, set(ys), xs | (zs - {z})):
                xs, zs, moved = xs | {z}, zs - {z}, True
                break
    return tian_identifiable(graph, set(ys) | zs, xs)


# ---- an exact model with explicit latent variables ----------------------------------------------


@dataclass
class LatentModel:
    """Random strictly positive tables for the observed nodes (domain ``observed``) and one latent node
    (domain ``latent``) per bidirected pair; exact probabilities by enumerating the full joint."""

    graph: MixedGraph
    rng: np.random.Generator
    observed: int = 2
    latent: int = 3
    _joints: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.latents = [f"L_{a}_{b}" for a, b in self.graph.bidirected]
        self.order = self.latents + list(self.graph.nodes)
        self.axis = {n: i for i, n in enumerate(self.order)}
        self.size = {n: self.latent if n in self.latents else self.observed for n in self.order}
        self.parents = {n: [] for n in self.latents}
        for node in self.graph.nodes:
            self.parents[node] = sorted(self.graph.parents(node)) + [
                f"L_{a}_{b}" for a, b in self.graph.bidirected if node in (a, b)
            ]
        self.tables = {}
        for node in self.order:
            shape = [self.size[p] for p in self.parents[node]] + [self.size[node]]
            raw = self.rng.uniform(0.05, 1.0, size=shape)
            self.tables[node] = raw / raw.sum(axis=-1, keepdims=True)

    def observed_joint(self, do: tuple[tuple[str, int], ...] = ()) -> np.ndarray:
        """The joint of the observed nodes under ``do``: the truncated product over every node, the
        latent ones summed out."""
        if do not in self._joints:
            set_to = dict(do)
            total = np.ones([self.size[n] for n in self.order])
            for node in self.order:
                if node in set_to:
                    factor = np.zeros(self.size[node])
                    factor[set_to[node]] = 1.0
                    axes = [self.axis[node]]
                else:
                    factor = self.tables[node]
                    axes = [self.axis[p] for p in self.parents[node]] + [self.axis[node]]
                shape = [1] * len(self.order)
                for k, a in enumerate(axes):
                    shape[a] = factor.shape[k]
                total = total * np.transpose(factor, np.argsort(axes)).reshape(shape)
            self._joints[do] = total.sum(axis=tuple(range(len(self.latents))))
        return self._joints[do]

    def prob(
        self, event: dict[str, int], given: dict[str, int] | None = None, do: dict[str, int] | None = None
    ) -> float:
        joint = self.observed_joint(tuple(sorted((do or {}).items())))
        given = given or {}
        position = {n: i for i, n in enumerate(self.graph.nodes)}

        def mass(values: dict[str, int]) -> float:
            index: list = [slice(None)] * len(self.graph.nodes)
            for var, value in values.items():
                if isinstance(index[position[var]], int) and index[position[var]] != value:
                    return 0.0
                index[position[var]] = value
            return float(joint[tuple(index)].sum())

        return mass({**given, **event}) / mass(given) if given else mass(event)

    def evaluate(self, e: Expr, env: dict[str, int]) -> float:
        """The value of an estimand in observed probabilities (no ``do``) with its free indices in ``env``."""
        if isinstance(e, Num):
            return float(e.value)
        if isinstance(e, Prob):
            assert not e.do, f"{e.text} is not observational"
            value = {a.var: env[a.value] if isinstance(a.value, str) else a.value for a in e.event}
            given = {a.var: env[a.value] if isinstance(a.value, str) else a.value for a in e.given}
            return self.prob(value, given)
        if isinstance(e, Sum):
            return sum(self.evaluate(e.body, {**env, e.index: v}) for v in range(self.size[e.var]))
        if isinstance(e, Mul):
            return float(np.prod([self.evaluate(f, env) for f in e.factors]))
        if isinstance(e, Div):
            return self.evaluate(e.num, env) / self.evaluate(e.den, env)
        if isinstance(e, Add):
            return sum(self.evaluate(t, env) for t in e.terms)
        if isinstance(e, Neg):
            return -self.evaluate(e.arg, env)
        raise TypeError(type(e).__name__)

    def query(self, ys, xs, zs, env: dict[str, int]) -> float:
        return self.prob({y: env[y] for y in ys}, {z: env[z] for z in zs}, {x: env[x] for x in xs})


def largest_difference(
    model: LatentModel, estimand: Expr, ys, xs, zs, free: list[str], fixed: dict[str, int] | None = None
) -> float:
    """max |estimand - query| over every assignment of the query's variables (but those ``fixed``, the
    query's constants) and of the estimand's other indices."""
    fixed = fixed or {}
    names = sorted((set(ys) | set(xs) | set(zs) | set(free)) - set(fixed))
    worst = 0.0
    for values in itertools.product(*(range(model.observed) for _ in names)):
        env = {**dict(zip(names, values, strict=True)), **fixed}
        worst = max(worst, abs(model.evaluate(estimand, env) - model.query(ys, xs, zs, env)))
    return worst
