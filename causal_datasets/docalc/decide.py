"""The semantic decision procedure: compare two expressions on random models of the graph.

Equal on every sampled strictly positive model means equal under the graph with probability one
(a false identity between rational functions of the model parameters fails on almost every
random model), provided the models can show every difference: each latent source gets the
number of values :mod:`.latent` proves enough for this pair. A difference is returned as a
counterexample. All models of the family are evaluated at once; table models with the vectorized
path when it applies, response models (counterfactuals) with the interpreter.

Floating point: every value comes with a bound on its rounding error (:class:`~.semantics.Bounded`:
propagated through the expression from the exact-evaluation bounds of each term), and two values
count as equal when they differ by at most :data:`SAFETY` times the sum of their bounds — so
cancelling large constants never makes a false counterexample, and the tolerance, reported as the
largest such allowance relative to the values, is typically a few units of 1e-16. Two sums of the
same terms plus different numbers are compared exactly (:func:`constant_difference`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from causal_datasets.docalc.expr import Add, Expr, constant_value, contains_counterfactual, free_indices, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.latent import MIN_LATENT_VALUES, latent_values, model_graph, projection
from causal_datasets.docalc.semantics import (
    Bounded,
    IndexDomains,
    Model,
    ModelTooLarge,
    TableModel,
    evaluate,
    random_models,
)
from causal_datasets.docalc.vectorized import NotVectorizable, vector_evaluate

#: two values are equal when they differ by at most this multiple of the sum of their rounding-error bounds
SAFETY = 2.0
#: most random models one comparison may use
MAX_MODELS = 1000
#: most conditional-table entries (all members) a family of random models may have
MAX_MODEL_ENTRIES = 1 << 22


@dataclass(frozen=True)
class Counterexample:
    """A model of the graph on which two expressions differ, and where."""

    model: dict
    assignment: dict[str, int]
    value_a: float
    value_b: float


@dataclass(frozen=True)
class SemanticResult:
    """``equal`` is None when no model gave both expressions defined values; ``latent_values`` are
    the numbers of values of the latent sources of the models compared on."""

    equal: bool | None
    models_checked: int
    counterexample: Counterexample | None = None
    reason: str | None = None
    latent_values: dict[str, int] = field(default_factory=dict)
    tolerance: float = 0.0  # the largest allowed difference relative to the values compared


def semantic_check(a: Expr, b: Expr, graph: DoGraph, seed: int = 0, models: int = 3) -> SemanticResult:
    """Compare ``a`` and ``b`` on a family of ``models`` random models of ``graph`` (of its part
    that can matter: the ancestors of the variables they mention), for every free-index value.
    Models where either expression is undefined are not counted.

    Models whose latent sources have two values come first (cheap; a difference there is a
    counterexample); a pair equal on them is compared again on models with as many latent values
    as :mod:`.latent` proves enough. Raises :class:`~.semantics.EvaluationError` for expressions
    that cannot be evaluated (among them :class:`~.semantics.ModelTooLarge` where those models
    would have more than :data:`MAX_MODEL_ENTRIES` table entries, or a term's exact evaluation is
    too large) and ``ValueError`` for ``models`` outside 1..:data:`MAX_MODELS` (no model cannot show
    equality).
    """
    if not 1 <= models <= MAX_MODELS:
        raise ValueError(f"models must be between 1 and {MAX_MODELS}, got {models}")
    relevant = graph.ancestral(variables(a) | variables(b))  # nothing else changes either value
    counterfactual = contains_counterfactual(a) or contains_counterfactual(b)
    fewer = dict.fromkeys(projection(relevant).sources, MIN_LATENT_VALUES)
    # binary latents first: cheap, and a difference there is a difference
    first = _compare(a, b, graph, relevant, fewer, seed, models, counterfactual)
    if first.equal is not True or not fewer:
        return first
    needed = latent_values(relevant, a, b, counterfactual)
    if needed == fewer:
        return first
    try:
        return _compare(a, b, graph, relevant, needed, seed, models, counterfactual)
    except ModelTooLarge as error:
        shown = ", ".join(f"{s}={k}" for s, k in needed.items())
        raise ModelTooLarge(
            f"with the latent values this pair needs to show any difference ({shown}), {error}; with "
            "two values per latent the two are equal, which does not decide them"
        ) from None


def _compare(
    a: Expr,
    b: Expr,
    whole: DoGraph,
    graph: DoGraph,
    sizes: dict[str, int],
    seed: int,
    models: int,
    counterfactual: bool,
) -> SemanticResult:
    """The comparison on the models of ``graph`` (the relevant part of ``whole``) whose sources have
    ``sizes`` values."""
    model = model_graph(graph, sizes)
    entries = models * sum(math.prod(model.domain(n) for n in (v, *model.parents(v))) for v in model.nodes)
    if entries > MAX_MODEL_ENTRIES:
        raise ModelTooLarge(f"random models would have {entries:,} table entries (limit {MAX_MODEL_ENTRIES:,})")
    family = random_models(model, seed, models, counterfactual)
    domains = IndexDomains.of(graph, a, b)
    names = sorted(free_indices(a) | free_indices(b))
    exact = constant_difference(a, b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # undefined values are NaN, counted below
        left, right = _values(a, b, family, graph, domains, names)
        # a value whose divisor cannot be told from zero within its rounding error is undefined there
        values_a, values_b = (np.where(np.isfinite(x.error), x.value, np.nan) for x in (left, right))
        allowed = SAFETY * (left.error + right.error)
        if exact is None:
            close = np.abs(values_a - values_b) <= allowed
        else:  # the same terms, other constants: a - b is exactly their difference wherever both are defined
            close = (exact == 0) & ~(np.isnan(values_a) | np.isnan(values_b))
        tolerance = _relative(allowed, values_a, values_b) if exact is None else 0.0
    if close.all():  # NaN is never close: every model counted
        return SemanticResult(True, models, latent_values=sizes, tolerance=tolerance)
    shape = (models,) + tuple(domains.sizes[n] for n in names)
    values_a, values_b, close = (np.broadcast_to(x, shape) for x in (values_a, values_b, close))
    defined = ~(np.isnan(values_a) | np.isnan(values_b)).reshape(models, -1).any(axis=1)
    checked = int(defined.sum())
    if checked == 0:
        return SemanticResult(
            None, 0, reason="an expression is undefined (division by zero) on every sampled model", latent_values=sizes
        )
    close = close | ~defined.reshape((models,) + (1,) * len(names))
    if close.all():
        return SemanticResult(True, checked, latent_values=sizes, tolerance=tolerance)
    member, *position = np.unravel_index(int(np.argmin(close)), close.shape)
    where = (member, *position)
    model = family.describe(int(member))
    if exact is not None:
        model["difference"] = f"a - b = {exact} exactly, wherever both are defined"
    if graph is not whole:  # not ancestors of the expressions' variables
        model["any_tables_for"] = [n for n in whole.nodes if n not in graph.nodes]
    counterexample = Counterexample(
        model, {n: int(i) for n, i in zip(names, position, strict=True)}, float(values_a[where]), float(values_b[where])
    )
    return SemanticResult(False, checked, counterexample, latent_values=sizes, tolerance=tolerance)


def _relative(allowed, values_a, values_b) -> float:
    """The largest allowed difference relative to the values' size (over the defined ones)."""
    scale = np.maximum(np.abs(values_a), np.abs(values_b))
    ratios = np.where(scale > 0, allowed / np.where(scale > 0, scale, 1.0), allowed)
    ratios = ratios[np.isfinite(ratios)]
    return float(ratios.max()) if ratios.size else 0.0


def constant_difference(a: Expr, b: Expr) -> Fraction | None:
    """``a - b`` as an exact number when the two are sums of the same terms plus different numbers
    (``P(Y=1) + 0.0000000001`` and ``P(Y=1)``), else None: their constants are compared without
    tolerance."""
    parts_a, parts_b = _additive_parts(a), _additive_parts(b)
    if parts_a is None or parts_b is None or parts_a[1] != parts_b[1]:
        return None
    return parts_a[0] - parts_b[0]


def _additive_parts(e: Expr) -> tuple[Fraction, tuple[Expr, ...]] | None:
    """``(sum of the number terms, the other terms)`` of a sum (or a single term); None if a number divides by zero."""
    terms = e.terms if isinstance(e, Add) else (e,)
    numbers = [constant_value(t) for t in terms if not variables(t)]
    if None in numbers:
        return None
    return sum(numbers, Fraction(0)), tuple(t for t in terms if variables(t))


def _values(
    a: Expr, b: Expr, family: Model, graph: DoGraph, domains: IndexDomains, names: list[str]
) -> tuple[Bounded, Bounded]:
    """Both expressions, values and rounding-error bounds, broadcastable over (member, every
    assignment of ``names``)."""
    if isinstance(family, TableModel):
        try:
            full = tuple(names)
            return vector_evaluate(a, family, domains.sizes).aligned(full), vector_evaluate(
                b, family, domains.sizes
            ).aligned(full)
        except NotVectorizable:
            pass
    shape = (family.members,) + tuple(domains.sizes[n] for n in names)
    pairs = [
        (evaluate(a, family, graph, env, bounded=True), evaluate(b, family, graph, env, bounded=True))
        for env in domains.assignments(names)
    ]

    def stacked(values) -> np.ndarray:
        return np.array([np.broadcast_to(v, (family.members,)) for v in values], dtype=float).T.reshape(shape)

    return (
        Bounded(stacked(x.value for x, _ in pairs), stacked(x.error for x, _ in pairs)),
        Bounded(stacked(y.value for _, y in pairs), stacked(y.error for _, y in pairs)),
    )
