"""The semantic decision procedure: compare two expressions on random models of the graph.

Equal on every sampled strictly positive model means equal under the graph with probability one
(a false identity between rational functions of the model parameters fails on almost every
random model); a difference is returned as a counterexample. All models of the family are
evaluated at once; table models with the vectorized path when it applies, response models
(counterfactuals) with the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from causal_datasets.docalc.expr import Expr, contains_counterfactual, free_indices, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.semantics import IndexDomains, Model, TableModel, evaluate, random_models
from causal_datasets.docalc.vectorized import NotVectorizable, vector_evaluate

#: tolerances for equal values (float evaluation of exact rational functions)
REL_TOL = 1e-9
ABS_TOL = 1e-12


@dataclass(frozen=True)
class Counterexample:
    """A model of the graph on which two expressions differ, and where."""

    model: dict
    assignment: dict[str, int]
    value_a: float
    value_b: float


@dataclass(frozen=True)
class SemanticResult:
    """``equal`` is None when no model gave both expressions defined values."""

    equal: bool | None
    models_checked: int
    counterexample: Counterexample | None = None
    reason: str | None = None


def semantic_check(a: Expr, b: Expr, graph: DoGraph, seed: int = 0, models: int = 3) -> SemanticResult:
    """Compare ``a`` and ``b`` on a family of ``models`` random models of ``graph`` (of its part
    that can matter: the ancestors of the variables they mention), for every free-index value.
    Models where either expression is undefined are not counted.

    Raises :class:`~.semantics.EvaluationError` for expressions that cannot be evaluated and
    ``ValueError`` for ``models < 1`` (no model cannot show equality).
    """
    if models < 1:
        raise ValueError(f"models must be at least 1, got {models}")
    whole = graph
    graph = whole.ancestral(variables(a) | variables(b))  # nothing else changes either value
    counterfactual = contains_counterfactual(a) or contains_counterfactual(b)
    domains = IndexDomains.of(graph, a, b)
    names = sorted(free_indices(a) | free_indices(b))
    family = random_models(graph, seed, models, counterfactual)
    with np.errstate(divide="ignore", invalid="ignore"):  # undefined values are NaN, counted below
        values_a, values_b = _values(a, b, family, graph, domains, names)
        close = np.abs(values_a - values_b) <= ABS_TOL + REL_TOL * np.abs(values_b)  # np.isclose's test, without its overhead
    if close.all():  # NaN is never close: every model counted
        return SemanticResult(True, models)
    shape = (models,) + tuple(domains.sizes[n] for n in names)
    values_a, values_b, close = (np.broadcast_to(x, shape) for x in (values_a, values_b, close))
    defined = ~(np.isnan(values_a) | np.isnan(values_b)).reshape(models, -1).any(axis=1)
    checked = int(defined.sum())
    if checked == 0:
        return SemanticResult(None, 0, reason="an expression is undefined (division by zero) on every sampled model")
    close = close | ~defined.reshape((models,) + (1,) * len(names))
    if close.all():
        return SemanticResult(True, checked)
    member, *position = np.unravel_index(int(np.argmin(close)), close.shape)
    where = (member, *position)
    assignment = {n: int(i) for n, i in zip(names, position)}
    model = family.describe(int(member))
    if graph is not whole:
        model["any_tables_for"] = [n for n in whole.nodes if n not in graph.nodes]  # not ancestors of the expressions' variables
    counterexample = Counterexample(model, assignment, float(values_a[where]), float(values_b[where]))
    return SemanticResult(False, checked, counterexample)


def _values(a: Expr, b: Expr, family: Model, graph: DoGraph, domains: IndexDomains, names: list[str]):
    """Both expressions as arrays broadcastable over (member, every assignment of ``names``)."""
    if isinstance(family, TableModel):
        try:
            full = tuple(names)
            return vector_evaluate(a, family, domains.sizes).aligned(full), vector_evaluate(b, family, domains.sizes).aligned(full)
        except NotVectorizable:
            pass
    shape = (family.members,) + tuple(domains.sizes[n] for n in names)
    pairs = [(evaluate(a, family, graph, env), evaluate(b, family, graph, env)) for env in domains.assignments(names)]
    values_a = np.array([x for x, _ in pairs], dtype=float).T.reshape(shape)
    values_b = np.array([y for _, y in pairs], dtype=float).T.reshape(shape)
    return values_a, values_b
