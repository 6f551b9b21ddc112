"""``check_equivalence``: the verdict API over parsing, graph checks, semantics and proof search.

Order of work: parse and validate (errors give ``equivalent=None`` with the reason) → the number
of values of every observed variable (:mod:`.domains`, stated in the verdict) → identical
canonical forms, or numbers only (exact arithmetic) → semantic decision on random models (decides
the verdict; a difference comes with a counterexample; "equivalent" only when the difference is
exactly zero on every model, in rational arithmetic — no tolerance —, and the arithmetic that
decided is stated in the verdict) → for equal pairs, a bounded proof search after the verdict is known, so a returned
proof's conclusion has passed the semantic check (except where the exact evaluation is too large:
then only a proof can decide, and only for equality). With a ``time_limit`` (:mod:`.budget`) every
costly step is charged to it, and a pair not decided in time is undecided. :func:`check_proof`
re-checks every single step and raises :class:`UnsoundProof` if one changes the value (used by the tests and the dataset
builder: an unsound rule is surfaced, never hidden).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, TypedDict

from causal_datasets.docalc.atoms import Value
from causal_datasets.docalc.budget import OutOfTime, within
from causal_datasets.docalc.decide import MAX_MODELS, Arithmetic, Counterexample, semantic_check
from causal_datasets.docalc.domains import with_domains
from causal_datasets.docalc.expr import (
    Add,
    Div,
    Expr,
    Mul,
    Neg,
    Num,
    children,
    free_indices,
    leaf_values,
    substitute,
    variables,
)
from causal_datasets.docalc.graph import DoGraph, EdgeForm
from causal_datasets.docalc.independence import (
    MAX_VARIABLES,
    IndependenceError,
    Independences,
    StatementGraph,
    TooManyGraphs,
)
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.search import NormalizationBudget, Proof, SearchLimits, find_proof
from causal_datasets.docalc.semantics import EvaluationError, ModelTooLarge
from causal_datasets.graph import GraphError

Method = Literal["identical", "arithmetic", "proof", "semantic", "independences", "error"]


#: the proof search (optional for equal pairs) is skipped when the two expressions are longer than
#: this together: its normalization is quadratic in the number of terms; the semantic check is not
PROOF_MAX_CHARS = 4_000


#: what a graph argument may be: a graph, edge-list text, or ``(source, target)`` pairs
GraphLike = DoGraph | str | Iterable[EdgeForm]


class UnsoundProof(AssertionError):
    """The proof search returned a proof of an equality that fails on a model of the graph."""


@dataclass(frozen=True)
class Verdict:
    """``equivalent`` is True/False, or None with ``error`` saying why: bad input (``invalid``: a
    parse error, an unknown variable, a malformed or cyclic graph, numbers of values that do not
    fit) or a pair the checks could not decide (an undefined value, too large a model without a
    proof).

    What the verdict assumed: ``domains`` (the number of values of each observed variable),
    ``latent_values`` (how many values each latent source had in the random models: enough to show
    any difference, :mod:`.latent`; latent causes themselves are unrestricted) and ``arithmetic``
    (what decided the comparison on models or of numbers: ``"rational"``, exact — an equal verdict
    always is —, or ``"float"``, a float difference larger than its rigorous rounding-error bound;
    None where nothing was evaluated)."""

    equivalent: bool | None
    method: Method
    proof: Proof | None = None
    counterexample: Counterexample | None = None
    error: str | None = None
    a: str | None = None  # canonical texts of the two expressions (after index renaming)
    b: str | None = None
    invalid: bool = False
    note: str | None = None  # with independence statements: what the verdict rests on
    domains: dict[str, int] | None = None
    latent_values: dict[str, int] | None = None
    arithmetic: Arithmetic | None = None

    def __bool__(self) -> bool:
        return bool(self.equivalent)

    def _repr_latex_(self) -> str | None:
        """A notebook shows a proved verdict as its proof (LaTeX); any other verdict as its plain repr."""
        return self.proof._repr_latex_() if self.proof is not None else None


@dataclass(frozen=True)
class _Settings:
    """The options of one :func:`check_equivalence` call that the checks under independences pass on."""

    seed: int
    models: int
    limits: SearchLimits
    prove: bool
    values: Mapping[str, int] | None


class _Stated(TypedDict, total=False):
    """What a verdict states besides its outcome: the two canonical texts and what it assumed."""

    a: str
    b: str
    domains: dict[str, int]
    latent_values: dict[str, int] | None
    arithmetic: Arithmetic | None


def _read(e: Expr | str) -> Expr:
    """An expression (parsed if text) with its indices renamed as :func:`canonical_indices` does."""
    return canonical_indices(parse(e) if isinstance(e, str) else e)


def _unobserved(left: Expr, right: Expr, hidden_names: frozenset[str], texts: _Stated) -> Verdict | None:
    """The invalid verdict when either expression uses an unobserved variable, else None."""
    hidden = sorted((variables(left) | variables(right)) & hidden_names)
    if not hidden:
        return None
    return Verdict(
        None,
        "error",
        error=f"uses the unobserved variable(s) {hidden}: an estimand must be a function of observed variables",
        invalid=True,
        **texts,
    )


def _without_models(left: Expr, right: Expr, texts: _Stated) -> Verdict | None:
    """The verdict when no model is needed: identical canonical forms, or numbers only (exact arithmetic)."""
    if left == right:
        return Verdict(True, "identical", **texts)
    if not variables(left) and not variables(right):
        return _compare_numbers(left, right, texts)
    return None


def as_graph(graph: GraphLike, latent: Iterable[str] = ()) -> DoGraph:
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
    mapping: dict[str, Value] = {}
    for index in sorted(free):
        (var, *others) = sorted(uses.get(index, ()))
        if not others and index != var and var not in free and var not in mapping.values():
            mapping[index] = var
    return substitute(e, mapping)


def check_equivalence(
    a: Expr | str,
    b: Expr | str,
    graph: GraphLike | Independences,
    latent: Iterable[str] = (),
    *,
    seed: int = 0,
    models: int = 3,
    limits: SearchLimits = SearchLimits(),
    prove: bool = True,
    values: Mapping[str, int] | None = None,
    time_limit: float | None = None,
    work_limit: int | None = None,
) -> Verdict:
    """Decide whether ``a`` and ``b`` are equal in every model of ``graph``.

    Every observed variable has 2 values unless ``values`` (or the graph's ``domains``) gives it
    another number, or the expressions mention a larger value; latent variables are unrestricted.
    ``equivalent`` is never True without identical canonical forms, equality on every sampled
    model, or — where the exact evaluation is too large — a proof; it is never False without a
    counterexample model. ``prove=False`` skips the proof search (the verdict is the same where
    models can be evaluated; only the explanation differs). ``models`` must be in 1..MAX_MODELS.

    ``graph`` may be :class:`~.independence.Independences` instead of a DAG: then the verdict is
    what the statements imply for every DAG they fit (see :func:`_under_independences`), and
    ``None`` whenever that differs between such DAGs.

    ``time_limit``: seconds (wall clock) for the call; None, the default, sets no limit of its own (an
    enclosing :func:`.budget.within` still applies), so the verdict does not depend on the machine's
    speed (the dataset builder and the tests rely on that). Past the limit the verdict is undecided
    (``equivalent=None``, method ``"error"``) with the reason "undecided: time limit of ... s reached
    before ..." (:mod:`.budget`), never a hang; the proof search gets what is left of the limit.
    ``work_limit``: table entries of work for the call (None: none of its own), the budget that gives
    the same verdict on any machine (the rewards': :data:`.budget.REWARD_WORK_LIMIT`); past it the
    verdict is undecided in the same way ("undecided: work limit of ... table entries reached before ...").
    """
    if time_limit is not None or work_limit is not None:  # the same call, within its budget
        with within(time_limit, entries=work_limit):
            return check_equivalence(
                a, b, graph, latent, seed=seed, models=models, limits=limits, prove=prove, values=values
            )
    if not 1 <= models <= MAX_MODELS:
        raise ValueError(
            f"models must be between 1 and {MAX_MODELS}, got {models}: "
            "equality on no model proves nothing, and more cost memory without deciding more"
        )
    if isinstance(graph, Independences):
        return _under_independences(a, b, graph, latent, _Settings(seed, models, limits, prove, values))
    try:
        g = as_graph(graph, latent)
        left, right = _read(a), _read(b)
        g.check_variables(left)
        g.check_variables(right)
    except ExprParseError as error:
        return Verdict(None, "error", error=f"parse error: {error}", invalid=True)
    except GraphError as error:
        return Verdict(None, "error", error=f"graph error: {error}", invalid=True)
    texts: _Stated = {"a": left.text, "b": right.text}
    if (unobserved := _unobserved(left, right, g.latent, texts)) is not None:
        return unobserved
    try:
        g = with_domains(g, (left, right), values)
    except GraphError as error:
        return Verdict(None, "error", error=f"values: {error}", invalid=True, **texts)
    texts["domains"] = {n: g.domain(n) for n in g.nodes if n not in g.latent}
    if (settled := _without_models(left, right, texts)) is not None:
        return settled
    try:
        semantic = semantic_check(left, right, g, seed=seed, models=models)
    except OutOfTime as error:
        return Verdict(None, "error", error=f"undecided: {error}", **texts)
    except EvaluationError as error:
        reason = f"cannot evaluate: {error}"
        if prove and isinstance(error, ModelTooLarge):
            return _proof_only(left, right, g, limits, reason, texts)
        return Verdict(None, "error", error=reason, **texts)
    texts |= {"latent_values": semantic.latent_values or None, "arithmetic": semantic.arithmetic}
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


def _under_independences(
    a: Expr | str, b: Expr | str, known: Independences, latent: Iterable[str], settings: _Settings
) -> Verdict:
    """The verdict the statements imply, never one a DAG they fit would contradict.

    Complete statements: the verdict shared by every DAG with exactly these independences (their
    Markov equivalence class), each decided as usual. Partial statements: "not equivalent" when the
    two differ on a model where every variable is independent (it satisfies any statement and is a
    model of every DAG), "equivalent" with a proof whose every rule condition the statements
    imply; anything else is undecided."""
    hidden_names = frozenset(latent) | known.latent
    try:
        left, right = _read(a), _read(b)
    except ExprParseError as error:
        return Verdict(None, "error", error=f"parse error: {error}", invalid=True)
    texts: _Stated = {"a": left.text, "b": right.text}
    if (unobserved := _unobserved(left, right, hidden_names, texts)) is not None:
        return unobserved
    nodes = tuple(sorted(variables(left) | variables(right) | known.variables | hidden_names))
    try:
        independent = with_domains(DoGraph(nodes, (), hidden_names), (left, right), settings.values)
    except GraphError as error:
        return Verdict(None, "error", error=f"values: {error}", invalid=True, **texts)
    texts["domains"] = {n: independent.domain(n) for n in nodes if n not in hidden_names}
    if (settled := _without_models(left, right, texts)) is not None:
        return settled
    if len(nodes) > MAX_VARIABLES:
        return Verdict(
            None,
            "error",
            error=f"{len(nodes)} variables: independence reasoning takes at most {MAX_VARIABLES}",
            **texts,
        )
    if known.complete:
        return _over_class(left, right, known, nodes, texts, settings)
    base = check_equivalence(left, right, independent, seed=settings.seed, models=settings.models, prove=False)
    texts |= {"latent_values": base.latent_values, "arithmetic": base.arithmetic}
    if base.equivalent is False:
        return Verdict(
            False,
            "independences",
            counterexample=base.counterexample,
            **texts,
            note="the two differ on a model in which every variable is independent, which satisfies "
            "every statement and is a model of every DAG",
        )
    if base.equivalent is None:
        return Verdict(None, "error", error=base.error, **texts)
    try:
        outcome = find_proof(
            left, right, StatementGraph(known, nodes, hidden_names, dict(independent.domains)), settings.limits
        )
    except NormalizationBudget as budget:
        return Verdict(None, "error", error=str(budget), **texts)
    if outcome.proof is not None:
        return Verdict(
            True,
            "proof",
            proof=outcome.proof,
            **texts,
            note="every rule condition of the proof follows from the statements",
        )
    return Verdict(
        None,
        "independences",
        **texts,
        error="the statements do not decide the pair: no proof from them, "
        "and the two are equal when every variable is independent",
    )


def _over_class(
    left: Expr, right: Expr, known: Independences, nodes: tuple[str, ...], texts: _Stated, settings: _Settings
) -> Verdict:
    """The verdict every DAG with exactly the stated independences gives, or None naming two that differ."""
    try:
        members = known.equivalence_class(nodes)
    except TooManyGraphs as error:
        return Verdict(None, "error", error=f"independences: {error}", **texts)
    except IndependenceError as error:
        return Verdict(None, "error", error=f"independences: {error}", invalid=True, **texts)
    verdicts = [
        check_equivalence(
            left,
            right,
            g,
            seed=settings.seed,
            models=settings.models,
            limits=settings.limits,
            prove=settings.prove,
            values=settings.values,
        )
        for g in members
    ]
    outcomes = {v.equivalent for v in verdicts}
    texts = texts | {"arithmetic": verdicts[0].arithmetic}  # the verdict shown (its proof or counterexample)
    every = f"each of the {len(members)} DAG(s) with exactly these independences"
    if outcomes == {True}:
        return Verdict(
            True,
            "independences",
            proof=verdicts[0].proof if len(members) == 1 else None,
            **texts,
            note=f"equal under {every}",
        )
    if outcomes == {False}:
        return Verdict(
            False,
            "independences",
            counterexample=verdicts[0].counterexample,
            **texts,
            note=f"different under {every}; the counterexample is a model of {members[0].edge_text()}",
        )
    shown = {v.equivalent: g.edge_text() or "(no edges)" for v, g in zip(verdicts, members, strict=True)}
    return Verdict(
        None,
        "independences",
        **texts,
        error="the independences do not decide the pair: "
        + "; ".join(
            f"{label} under {shown[value]}"
            for value, label in ((True, "equal"), (False, "different"), (None, "undecided"))
            if value in shown
        ),
    )


def _compare_numbers(left: Expr, right: Expr, texts: _Stated) -> Verdict:
    """Two expressions of numbers only, compared exactly (rationals, no tolerance)."""
    a, b = constant_value(left), constant_value(right)
    texts = texts | {"arithmetic": "rational"}
    if a is None or b is None:
        return Verdict(None, "arithmetic", error="an expression divides by zero", **texts)
    if a == b:
        return Verdict(True, "arithmetic", **texts)
    model = {"kind": "arithmetic", "a": str(a), "b": str(b)}  # the two exact values, on every model
    return Verdict(False, "arithmetic", counterexample=Counterexample(model, {}, float(a), float(b)), **texts)


def constant_value(e: Expr) -> Fraction | None:
    """The exact value of an expression made of numbers only; None if it holds a term or a
    summation, or divides by zero."""
    if isinstance(e, Num):
        return e.value
    if not isinstance(e, (Neg, Add, Mul, Div)):
        return None
    parts = [constant_value(child) for child in children(e)]
    known = [part for part in parts if part is not None]
    if len(known) < len(parts):
        return None
    if isinstance(e, Neg):
        return -known[0]
    if isinstance(e, Add):
        return sum(known, Fraction(0))
    if isinstance(e, Mul):
        product = Fraction(1)
        for part in known:
            product *= part
        return product
    numerator, denominator = known
    return None if denominator == 0 else numerator / denominator


def _proof_only(left: Expr, right: Expr, g: DoGraph, limits: SearchLimits, reason: str, texts: _Stated) -> Verdict:
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
