"""``check_equivalence``: the verdict API over parsing, graph checks, semantics and proof search.

Order of work: parse and validate (errors give ``equivalent=None`` with the reason) → identical
canonical forms → semantic decision on random models (decides the verdict; a difference comes
with a counterexample) → for equal pairs, a bounded proof search, so a returned proof's
conclusion has passed the semantic check (except where the graph is too large for exact models:
then only a proof can decide, and only for equality). :func:`check_proof` re-checks every single step
and raises :class:`UnsoundProof` if one changes the value (used by the tests and the dataset
builder: an unsound rule is surfaced, never hidden).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from causal_datasets.docalc.expr import Expr, constant_value, free_indices, leaf_values, substitute, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.search import NormalizationBudget, Proof, SearchLimits, find_proof
from causal_datasets.docalc.decide import Counterexample, semantic_check
from causal_datasets.docalc.semantics import EvaluationError, ModelTooLarge
from causal_datasets.graph import GraphError

Method = Literal["identical", "arithmetic", "proof", "semantic", "error"]


#: the proof search (optional for equal pairs) is skipped when the two expressions are longer than
#: this together: its normalization is quadratic in the number of terms; the semantic check is not
PROOF_MAX_CHARS = 4_000


class UnsoundProof(AssertionError):
    """The proof search returned a proof of an equality that fails on a model of the graph."""


@dataclass(frozen=True)
class Verdict:
    """``equivalent`` is True/False, or None with ``error`` saying why: bad input (``invalid``: a
    parse error, an unknown variable, a malformed or cyclic graph) or a pair the checks could not
    decide (an undefined value, too large a model without a proof)."""

    equivalent: bool | None
    method: Method
    proof: Proof | None = None
    counterexample: Counterexample | None = None
    error: str | None = None
    a: str | None = None  # canonical texts of the two expressions (after index renaming)
    b: str | None = None
    invalid: bool = False

    def __bool__(self) -> bool:
        return bool(self.equivalent)


def as_graph(graph: DoGraph | str | Iterable, latent: Iterable[str] = ()) -> DoGraph:
    """A :class:`DoGraph` from one, from edge-list text, or from ``(source, target)`` pairs."""
    if isinstance(graph, DoGraph):
        if latent and frozenset(latent) != graph.latent:
            return DoGraph(graph.nodes, graph.edges, frozenset(latent) | graph.latent, dict(graph.domains))
        return graph
    if isinstance(graph, str):
        return DoGraph.parse(graph, latent=latent)
    return DoGraph.from_edges(list(graph), latent=latent)


def canonical_indices(e: Expr) -> Expr:
    """Rename each free symbolic index used with exactly one variable to that variable's name
    (``P(Y=y | X=x)`` → ``P(Y | X)``), unless the name is taken."""
    uses: dict[str, set[str]] = {}
    for var, value in leaf_values(e):
        if isinstance(value, str):
            uses.setdefault(value, set()).add(var)
    free = free_indices(e)
    mapping = {}
    for index in sorted(free):
        (var, *others) = sorted(uses.get(index, ()))
        if not others and index != var and var not in free and var not in mapping.values():
            mapping[index] = var
    return substitute(e, mapping)


def check_equivalence(
    a: Expr | str,
    b: Expr | str,
    graph: DoGraph | str | Iterable,
    latent: Iterable[str] = (),
    *,
    seed: int = 0,
    models: int = 3,
    limits: SearchLimits = SearchLimits(),
    prove: bool = True,
) -> Verdict:
    """Decide whether ``a`` and ``b`` are equal in every model of ``graph``.

    ``equivalent`` is never True without identical canonical forms, equality on every sampled
    model, or — where the graph is too large for exact models — a proof; it is never False without
    a counterexample model. ``prove=False`` skips the proof search (the verdict is the same where
    models can be evaluated; only the explanation differs). ``models`` must be at least 1.
    """
    if models < 1:
        raise ValueError(f"models must be at least 1, got {models}: equality on no model proves nothing")
    try:
        g = as_graph(graph, latent)
        left = canonical_indices(parse(a) if isinstance(a, str) else a)
        right = canonical_indices(parse(b) if isinstance(b, str) else b)
        g.check_variables(left)
        g.check_variables(right)
    except ExprParseError as error:
        return Verdict(None, "error", error=f"parse error: {error}", invalid=True)
    except GraphError as error:
        return Verdict(None, "error", error=f"graph error: {error}", invalid=True)
    texts = {"a": left.text, "b": right.text}
    hidden = sorted((variables(left) | variables(right)) & g.latent)
    if hidden:
        return Verdict(None, "error", error=f"uses the unobserved variable(s) {hidden}: an estimand must be "
                       "a function of observed variables", invalid=True, **texts)
    if left == right:
        return Verdict(True, "identical", **texts)
    if not variables(left) and not variables(right):  # numbers only: exact arithmetic, no model needed
        return _compare_numbers(left, right)
    try:
        semantic = semantic_check(left, right, g, seed=seed, models=models)
    except EvaluationError as error:
        reason = f"cannot evaluate: {error}"
        if prove and isinstance(error, ModelTooLarge):
            return _proof_only(left, right, g, limits, reason, texts)
        return Verdict(None, "error", error=reason, **texts)
    if semantic.equal is None:
        return Verdict(None, "semantic", error=semantic.reason, **texts)
    if semantic.equal is False:
        return Verdict(False, "semantic", counterexample=semantic.counterexample, **texts)
    if prove and len(left.text) + len(right.text) <= PROOF_MAX_CHARS:
        try:
            outcome = find_proof(left, right, g, limits)
        except NormalizationBudget:  # too long to normalize within the budget: the semantic verdict stands
            return Verdict(True, "semantic", **texts)
        if outcome.proof is not None:
            return Verdict(True, "proof", proof=outcome.proof, **texts)
    return Verdict(True, "semantic", **texts)


def _compare_numbers(left: Expr, right: Expr) -> Verdict:
    """Two expressions of numbers only, compared exactly (rationals, no tolerance)."""
    texts = {"a": left.text, "b": right.text}
    a, b = constant_value(left), constant_value(right)
    if a is None or b is None:
        return Verdict(None, "arithmetic", error="an expression divides by zero", **texts)
    if a == b:
        return Verdict(True, "arithmetic", **texts)
    model = {"kind": "arithmetic", "a": str(a), "b": str(b)}  # the two exact values, on every model
    return Verdict(False, "arithmetic", counterexample=Counterexample(model, {}, float(a), float(b)), **texts)


def _proof_only(left: Expr, right: Expr, g: DoGraph, limits: SearchLimits, reason: str, texts: dict) -> Verdict:
    """When no model can be evaluated (too large a graph): a proof still shows equality, since every
    rule is an identity under its graph condition; nothing can show inequality."""
    try:
        outcome = find_proof(left, right, g, limits)
    except NormalizationBudget as budget:
        return Verdict(None, "error", error=f"{reason}; {budget}", **texts)
    if outcome.proof is not None:
        return Verdict(True, "proof", proof=outcome.proof, **texts)
    return Verdict(None, "error", error=f"{reason}; no proof found within the search limits", **texts)


def check_proof(proof: Proof, graph: DoGraph, seed: int = 0) -> None:
    """Raise :class:`UnsoundProof` unless every step keeps the value on random models of ``graph``."""
    previous = parse(proof.start)
    for number, step in enumerate(proof.steps, 1):
        current = parse(step.expression)
        result = semantic_check(previous, current, graph, seed=seed)
        if result.equal is False:
            raise UnsoundProof(f"step {number} ({step.describe()}) changes the value: {result.counterexample}")
        previous = current
