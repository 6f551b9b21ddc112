"""The semantic decision procedure: compare two expressions on random models of the graph.

Equal on every sampled strictly positive model means equal under the graph with probability one
(a false identity between rational functions of the model parameters fails on almost every
random model), provided the models can show every difference: each latent source gets the
number of values :mod:`.latent` proves enough for this pair. A difference is returned as a
counterexample. All models of the family are evaluated at once; table models with the vectorized
path when it applies, response models (counterfactuals) with the interpreter.

Arithmetic: no tolerance ever counts two different numbers as equal. Every float value comes with
a rigorous bound on its rounding error (:class:`~.bounded.Bounded`), and when ``a`` and ``b``
differ by more than :data:`SAFETY` times the sum of their bounds the difference is real: "not
equivalent", decided in floating point (``arithmetic="float"``). Anything floats cannot tell apart
is decided in exact rational arithmetic on the same models (:mod:`.exact`): "equivalent" only
when ``a - b`` is exactly zero on every model where both are defined, else a counterexample
(``arithmetic="rational"``). The module docstring of :mod:`.exact` gives the argument.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from causal_datasets.docalc.bounded import Bounded
from causal_datasets.docalc.districts import district_graph
from causal_datasets.docalc.exact import ExactTables, exact_factor, exact_model
from causal_datasets.docalc.expr import Expr, contains_counterfactual, free_indices, variables
from causal_datasets.docalc.families import random_models
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.latent import MIN_LATENT_VALUES, latent_values, model_graph, projection
from causal_datasets.docalc.semantics import EvaluationError, IndexDomains, Model, ModelTooLarge, TableModel, evaluate
from causal_datasets.docalc.vectorized import NotVectorizable, vector_evaluate

#: two float values are shown to differ when they differ by more than this multiple of the sum of
#: their rounding-error bounds (a margin over bounds that are already rigorous)
SAFETY = 2.0
#: a fraction whose numerator and denominator have more bits than this together has over 60 digits
SHORT_BITS = 256
#: most random models one comparison may use
MAX_MODELS = 1000
#: most conditional-table entries (all members) a family of random models may have
MAX_MODEL_ENTRIES = 1 << 22


@dataclass(frozen=True)
class Counterexample:
    """A model of the graph on which two expressions differ, and where."""

    model: dict[str, Any]  # the model's description (JSON)
    assignment: dict[str, int]
    value_a: float
    value_b: float


#: what decided a comparison: floats whose difference exceeds its error bound, or exact rationals
Arithmetic = Literal["float", "rational"]


@dataclass(frozen=True)
class SemanticResult:
    """``equal`` is None when no model gave both expressions defined values; ``latent_values`` are
    the numbers of values of the latent sources of the models compared on; ``arithmetic`` what
    decided (a float difference beyond its error bound, or exact rationals)."""

    equal: bool | None
    models_checked: int
    counterexample: Counterexample | None = None
    reason: str | None = None
    latent_values: dict[str, int] = field(default_factory=dict)
    arithmetic: Arithmetic = "rational"


def semantic_check(
    a: Expr, b: Expr, graph: DoGraph, seed: int = 0, models: int = 3, *, refute_only: bool = False
) -> SemanticResult:
    """Compare ``a`` and ``b`` on a family of ``models`` random models of ``graph`` (of its part
    that can matter: the ancestors of the variables they mention), for every free-index value.
    Models where either expression is undefined are not counted.

    Models whose latent sources have two values come first, in floats (cheap; a difference there
    beyond the error bounds is a counterexample); the pair is then decided on models with as many
    latent values as :mod:`.latent` proves enough: in floats where they show a difference, else in
    exact rationals (:mod:`.exact`). Where those models are too large, an equality may still be shown
    on the district model (:mod:`.districts`: one source per district, which has every model of the
    graph); a difference there is not taken. Raises :class:`~.semantics.EvaluationError` for expressions
    that cannot be evaluated (among them :class:`~.semantics.ModelTooLarge` where those models
    would have more than :data:`MAX_MODEL_ENTRIES` table entries, or a term's exact evaluation is
    too large) and ``ValueError`` for ``models`` outside 1..:data:`MAX_MODELS` (no model cannot show
    equality).

    ``refute_only``: the same models in floats only: a difference beyond the error bounds is a counterexample
    (``equal=False``, decided); anything else comes back ``equal=True`` with ``arithmetic="float"``,
    undecided (a guard over pairs that a proof already decides).
    """
    if not 1 <= models <= MAX_MODELS:
        raise ValueError(f"models must be between 1 and {MAX_MODELS}, got {models}")
    relevant = graph.ancestral(variables(a) | variables(b))  # nothing else changes either value
    counterfactual = contains_counterfactual(a) or contains_counterfactual(b)
    fewer = dict.fromkeys(projection(relevant).sources, MIN_LATENT_VALUES)

    def compare(sizes: dict[str, int], exact: bool, floats: Floats = "first") -> SemanticResult:
        return _compare(a, b, graph, relevant, sizes, seed, models, counterfactual, exact, floats)

    if not fewer:
        return compare(fewer, exact=not refute_only)
    # binary latents first: cheap, and a difference there is a difference
    first = compare(fewer, exact=False)
    if first.counterexample is not None:
        return first
    needed = latent_values(relevant, a, b, counterfactual)
    if refute_only:
        return first if needed == fewer else compare(needed, exact=False)
    if needed == fewer:
        return compare(fewer, exact=True, floats="done")
    try:
        return compare(needed, exact=True, floats="after")
    except ModelTooLarge as error:
        equal = _equal_by_districts(a, b, relevant, seed, models)
        if equal is not None:
            return equal
        binary = compare(fewer, exact=True, floats="done")
        if binary.equal is not True:
            return binary
        shown = ", ".join(f"{s}={k}" for s, k in needed.items())
        raise ModelTooLarge(
            f"with the latent values this pair needs to show any difference ({shown}), {error}; with "
            "two values per latent the two are equal, which does not decide them"
        ) from None


def _equal_by_districts(a: Expr, b: Expr, graph: DoGraph, seed: int, models: int) -> SemanticResult | None:
    """The pair decided "equivalent" on the district model of ``graph`` (:mod:`.districts`: it has every
    model of the graph, and smaller tables), or None: no district model, too large, or not shown equal
    there (a difference there need not be one of the graph)."""
    coarse = district_graph(graph)
    if coarse is None:
        return None
    try:
        result = semantic_check(a, b, coarse, seed, models)
    except ModelTooLarge:
        return None
    return result if result.equal is True else None


#: when the float pass runs: before the exact one; after it, only where the exact one does not show
#: equality on every model (a float difference is a real one, so it cannot change an exact equality);
#: or not at all, having already found no difference on these models
Floats = Literal["first", "after", "done"]


@dataclass(frozen=True)
class _Setting:
    """What both passes of a comparison read: the models, the graph and its relevant part, the free
    indices (their values, their names in order, the values' shape with the members first) and the
    sources' numbers of values."""

    family: Model
    whole: DoGraph
    graph: DoGraph
    domains: IndexDomains
    names: list[str]
    shape: tuple[int, ...]
    sizes: dict[str, int]


def _compare(
    a: Expr,
    b: Expr,
    whole: DoGraph,
    graph: DoGraph,
    sizes: dict[str, int],
    seed: int,
    models: int,
    counterfactual: bool,
    exact: bool,
    floats: Floats = "first",
) -> SemanticResult:
    """The comparison on the models of ``graph`` (the relevant part of ``whole``) whose sources have
    ``sizes`` values: in floats, which can only show a difference, and (``exact``) in rationals, in
    the order ``floats`` says; a difference floats show is the one returned, as before rationals ran.
    Without ``exact``, a pair floats cannot tell apart comes back ``equal=True``, undecided."""
    model = model_graph(graph, sizes)
    entries = models * sum(math.prod(model.domain(n) for n in (v, *model.parents(v))) for v in model.nodes)
    if entries > MAX_MODEL_ENTRIES:
        raise ModelTooLarge(f"random models would have {entries:,} table entries (limit {MAX_MODEL_ENTRIES:,})")
    family = random_models(model, seed, models, counterfactual)
    domains = IndexDomains.of(graph, a, b)
    names = sorted(free_indices(a) | free_indices(b))
    shape = (models,) + tuple(domains.sizes[n] for n in names)
    at = _Setting(family, whole, graph, domains, names, shape, sizes)

    def in_floats() -> SemanticResult | None:
        return _float_difference(a, b, at)

    if floats == "first":
        shown = in_floats()
        if shown is not None or not exact:
            return shown or SemanticResult(True, models, latent_values=sizes, arithmetic="float")
    try:
        result = _exact_comparison(a, b, at)
    except EvaluationError:
        if floats != "after" or (shown := in_floats()) is None:
            raise
        return shown
    if floats == "after" and (result.equal is not True or result.models_checked < models):
        return in_floats() or result
    return result


def _float_difference(a: Expr, b: Expr, at: _Setting) -> SemanticResult | None:
    """The float comparison: a counterexample where the values differ beyond their error bounds, else None."""
    family, whole, graph, names, shape, sizes = at.family, at.whole, at.graph, at.names, at.shape, at.sizes
    models = family.members
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # undefined values are NaN
        left, right = _values(a, b, family, graph, at.domains, names)
        # a value whose divisor cannot be told from zero within its rounding error is not compared
        values_a, values_b = (np.where(np.isfinite(x.error), x.value, np.nan) for x in (left, right))
        apart = np.abs(values_a - values_b) > SAFETY * (left.error + right.error)  # NaN is never apart
    if apart.any():
        apart, values_a, values_b = (np.broadcast_to(x, shape) for x in (apart, values_a, values_b))
        where = np.unravel_index(int(np.argmax(apart)), shape)
        checked = int((~np.isnan(values_a) & ~np.isnan(values_b)).reshape(models, -1).all(axis=1).sum())
        counterexample = _counterexample(family, whole, graph, names, where, values_a[where], values_b[where])
        return SemanticResult(False, checked, counterexample, latent_values=sizes, arithmetic="float")
    return None


def _exact_comparison(a: Expr, b: Expr, at: _Setting) -> SemanticResult:
    """The comparison in exact rationals: equal where ``a - b`` is exactly zero on every model where
    both are defined, else a counterexample."""
    family, whole, graph, names, shape, sizes = at.family, at.whole, at.graph, at.names, at.shape, at.sizes
    models = family.members
    twin = exact_model(family)
    if isinstance(twin, ExactTables):
        twin.share(graph, a, b)
    (num_a, den_a), (num_b, den_b) = (
        (np.broadcast_to(x, shape) for x in exact_factor(e, twin, graph, at.domains.sizes).aligned(tuple(names)))
        for e in (a, b)
    )
    counted = ~((den_a == 0) | (den_b == 0)).reshape(models, -1).any(axis=1)  # defined everywhere
    checked = int(counted.sum())
    if checked == 0:
        return SemanticResult(
            None, 0, reason="an expression is undefined (division by zero) on every sampled model", latent_values=sizes
        )
    differ = (num_a * den_b != num_b * den_a) & counted.reshape((models,) + (1,) * len(names))
    if differ.any():
        where = np.unravel_index(int(np.argmax(differ)), shape)
        x, y = Fraction(num_a[where], den_a[where]), Fraction(num_b[where], den_b[where])
        counterexample = _counterexample(family, whole, graph, names, where, float(x), float(y))
        counterexample.model["difference"] = _difference(x - y)
        return SemanticResult(False, checked, counterexample, latent_values=sizes)
    return SemanticResult(True, checked, latent_values=sizes)


def _counterexample(
    family: Model,
    whole: DoGraph,
    graph: DoGraph,
    names: list[str],
    where: tuple[int | np.integer[Any], ...],
    x: float | np.floating[Any],
    y: float | np.floating[Any],
) -> Counterexample:
    """The counterexample at ``where`` (member, then one position per free index)."""
    member, *position = where
    model = family.describe(int(member))
    if graph is not whole:  # not ancestors of the expressions' variables
        model["any_tables_for"] = [n for n in whole.nodes if n not in graph.nodes]
    return Counterexample(model, {n: int(i) for n, i in zip(names, position, strict=True)}, float(x), float(y))


def _difference(x: Fraction) -> str:
    """The exact difference, as a fraction when it is short, else rounded (and said so). A fraction of more
    than :data:`SHORT_BITS` bits has more than 60 digits: it is not written out (Python refuses to
    write integers of over 4300 digits)."""
    if x.numerator.bit_length() + x.denominator.bit_length() <= SHORT_BITS and len(text := str(x)) <= 60:
        return f"a - b = {text} exactly"
    return f"a - b = {float(x):.6g} (the exact value, rounded)"


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

    def stacked(values: Iterable[np.ndarray]) -> np.ndarray:
        return np.array([np.broadcast_to(v, (family.members,)) for v in values], dtype=float).T.reshape(shape)

    return (
        Bounded(stacked(x.value for x, _ in pairs), stacked(x.error for x, _ in pairs)),
        Bounded(stacked(y.value for _, y in pairs), stacked(y.error for _, y in pairs)),
    )
