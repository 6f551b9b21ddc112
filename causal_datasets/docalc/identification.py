"""``identify``: from a query and a graph to an estimand over observed variables, with a derivation, or
"not identifiable" with a hedge as the witness.

Algorithms: ID for ``P(Y | do(X))`` — I. Shpitser and J. Pearl, "Identification of Joint
Interventional Distributions in Recursive Semi-Markovian Causal Models", AAAI 2006 — and IDC for
``P(Y | do(X), Z)`` — I. Shpitser and J. Pearl, "Identification of Conditional Interventional
Distributions", UAI 2006. Both are sound and complete: they fail exactly on the queries no formula in
the observed distribution answers. ID runs on the latent projection of the graph (:mod:`.admg`); a
failure (ID's line 5) returns the pair of C-forests ``F ⊋ F'`` of the failing call: a hedge for that
call's query, which is the query itself or the part of it the earlier lines reduced it to (a hedge
for a part alone does not make a query unidentifiable: I. Shpitser, "When does the ID algorithm
fail?", arXiv:2307.03750, 2023, corrects the hedge criterion's corollary on this).

The derivation. Every call ``ID(y, x, P, G)`` computes ``P(y | do(x, z))`` of the original model,
where ``z`` are the treatments earlier calls set aside (line 7) and ``P = P(V | do(z))`` is the call's
distribution. The derivation is a chain of whole expressions from the query to the estimand; each step
rewrites one probability term (every occurrence of it) and names the ID/IDC line and the rule:

* a rule of :mod:`.rules` applied to that term once, or several times in a row (``applications``: one
  per variable, e.g. the actions line 2 deletes) — do-calculus rule 3 (lines 2 and 3: delete or insert
  actions; line 6: delete later treatments), rule 2 (line 6 and IDC's line 1: exchange actions and
  observations), marginalization, the product rule, the definition of conditional probability, and
  the c-component factorization of line 4 (Tian's, :mod:`.factorization`);
* the substitution (lines 1 and 6 after a line 7) of a term of ``P(V | do(z))`` by its formula in
  observed probabilities, built by lines 7 (``P(S' | do(z)) = Π_{V_i ∈ S'} P(v_i | v_π^(i-1))``) and 2
  (a marginal): the rule of :mod:`.subproblem`.

With ``check=True`` (the default) every step is checked, and ``check`` says how. ``"rule"``: the
rule checker's function for the named rule (:func:`.rules.do_calculus_rule`, ``total_probability``,
``product_rule``, ``conditional_definition``, :func:`.factorization.c_component_factorization`,
:func:`.subproblem.subproblem_formula`) rewrites each application's term into exactly the new
expression, its graph condition holding (read by code apart from the algorithm's :mod:`.admg`); the
conditions it states become the step's ``condition`` (:mod:`.subproblem` says what a substitution's check
no longer confirms on random models). Otherwise (a step the checker does not produce, such as IDC's
conditional with several conditions) ``"equivalence"``: :func:`.verdict.check_equivalence` finds each
rewritten term equal to its replacement on random models; ``"undecided"`` where the graph is too large
for exact models, or the checks ran out of their ``time_limit`` (:mod:`.budget`; the steps after that
are not checked). A refuted step raises :class:`UnsoundIdentification`. With ``check=False`` every step
is ``"unchecked"`` and its condition is the algorithm's own reason.

The derivation works with symbolic values (``P(Y | do(X))``); a query with constants
(``P(Y=1 | do(X=0))``) gets the symbolic derivation and the estimand with its constants put in, which
is the same equality at those values. An estimand may keep an index that is not in the query (line 3
sets a non-ancestor of ``Y`` to an arbitrary value, as in the napkin graph): it is equal to the query
for every value of that index, listed in ``arbitrary``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Literal

from causal_datasets.docalc.admg import ADMG
from causal_datasets.docalc.atoms import Atom, Value
from causal_datasets.docalc.budget import OutOfTime, charge, within
from causal_datasets.docalc.expr import Expr, Prob, Sum, children, div, free_indices, mul, rebuild, substitute
from causal_datasets.docalc.factorization import RULE, c_component_factorization
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.id_distribution import Claim, Distribution, symbolic_term
from causal_datasets.docalc.identified import DerivationStep, Hedge, Identification
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.rules import (
    DO_CALCULUS_RULES,
    Rewrite,
    RuleContext,
    conditional_definition,
    do_calculus_rule,
    product_rule,
    total_probability,
)
from causal_datasets.docalc.search import vocabulary
from causal_datasets.docalc.subproblem import RULE as SUBPROBLEM
from causal_datasets.docalc.subproblem import NotDerivable, subproblem_formula
from causal_datasets.docalc.verdict import GraphLike, as_graph, canonical_indices, check_equivalence

FACTORIZATION = RULE  # ID's line 4 (:mod:`.factorization`); SUBPROBLEM: lines 1 and 6 after a 7 (:mod:`.subproblem`)
#: IDC's line 2 (one rule application for one condition)
CONDITIONAL = "definition of conditional probability"
#: the rule checker's function for each probability rule the derivation applies (the do-calculus
#: rules go through :func:`.rules.do_calculus_rule`)
PROBABILITY_RULES = {
    "marginalization": total_probability,
    "product rule": product_rule,
    CONDITIONAL: conditional_definition,
    FACTORIZATION: c_component_factorization,
}


class QueryError(ValueError):
    """The query is not a single interventional probability term that ``identify`` takes."""


class UnsoundIdentification(AssertionError):
    """A derivation step changes the value on a model of the graph: a bug in ``identify``, never hidden."""


def identify(
    query: Expr | str,
    graph: GraphLike,
    latent: Iterable[str] = (),
    *,
    check: bool = True,
    seed: int = 0,
    time_limit: float | None = None,
) -> Identification:
    """Identify ``query`` (``P(Y | do(X))``, ``P(Y | do(X), Z)``, several variables each, symbolic or
    constant values) in ``graph`` (edge text with ``A<->B`` for a latent common cause, pairs, or a
    :class:`DoGraph`; ``latent`` names further unobserved nodes).

    ``check`` (the default) checks every step of the derivation: one that applies a rule by the rule
    checker, the others by :func:`check_equivalence` (``seed`` seeds its models); ``check=False`` leaves
    them ``"unchecked"``, each with the algorithm's own reason as its condition. ``time_limit`` (seconds,
    None: none) bounds the checks: a step not checked within it is ``"undecided"``. Raises
    :class:`QueryError` for a query it does not take, :class:`~.parser.ExprParseError` and
    :class:`~causal_datasets.graph.GraphError` for bad input, :class:`UnsoundIdentification` if a check
    refutes a step (a bug).
    """
    g = as_graph(graph, latent)
    valued = _read_query(query, g)
    symbolic = _symbolic(valued)
    values = tuple((var, value) for var, value in _assignments(valued) if isinstance(value, int))
    outcomes, treatments = _names(symbolic.event), frozenset(v for v, _ in symbolic.do)
    conditions = _names(symbolic.given)
    run = _Identifier(g, symbolic)
    algorithm: Literal["ID", "IDC"] = "IDC" if conditions else "ID"
    try:
        if conditions:
            run.idc(outcomes, treatments, conditions)
        else:
            run.start_id(outcomes, treatments)
    except _Failure as failure:
        return Identification(valued.text, algorithm, None, symbolic.text, hedge=failure.hedge)
    if check:
        with within(time_limit):
            steps = run.checked(seed)
    else:
        steps = tuple(run.steps)
    estimand = substitute(run.current, dict(values))
    arbitrary = tuple(sorted(free_indices(run.current) - {var for var, _ in _assignments(symbolic)}))
    return Identification(valued.text, algorithm, estimand, symbolic.text, steps, values=values, arbitrary=arbitrary)


# ---- the query ----------------------------------------------------------------------------------


def _read_query(query: Expr | str, graph: DoGraph) -> Prob:
    e = canonical_indices(parse(query) if isinstance(query, str) else query)
    if not isinstance(e, Prob) or not e.is_interventional:
        raise QueryError(f"identify takes one probability term such as P(Y | do(X), Z), not {e.text}")
    graph.check_variables(e)
    names = [a.var for a in e.event] + [v for v, _ in e.do] + [a.var for a in e.given]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise QueryError(f"{', '.join(repeated)} appear(s) twice in {e.text}; each variable plays one role")
    hidden = sorted(set(names) & graph.latent)
    if hidden:
        raise QueryError(f"{', '.join(hidden)} is unobserved: a query is about observed variables")
    for var, value in _assignments(e):
        if isinstance(value, int) and not 0 <= value < graph.domain(var):
            raise QueryError(f"{var}={value} is outside the domain of {var} (0..{graph.domain(var) - 1})")
        if isinstance(value, str) and value != var:
            raise QueryError(f"the index {value!r} of {var} names another variable; write {var} or a constant")
        if not isinstance(value, (int, str)):
            raise QueryError(f"{var} is set to a counterfactual in {e.text}; identify takes P(Y | do(X), Z)")
    return e


def _assignments(p: Prob) -> list[tuple[str, Value | None]]:
    return [(a.var, a.value) for a in p.event + p.given] + list(p.do)


def _symbolic(p: Prob) -> Prob:
    return symbolic_term(_names(p.event), frozenset(v for v, _ in p.do), _names(p.given))


def _names(atoms: tuple[Atom, ...]) -> frozenset[str]:
    return frozenset(a.var for a in atoms)


def _without_do(p: Prob, var: str) -> Prob:
    return Prob(p.event, tuple(a for a in p.do if a[0] != var), p.given)


def _with_do(p: Prob, var: str) -> Prob:
    return Prob(p.event, p.do + ((var, var),), p.given)


def _action_to_observation(p: Prob, var: str) -> Prob:
    return Prob(p.event, tuple(a for a in p.do if a[0] != var), p.given + (Atom(var, var),))


def _observation_to_action(p: Prob, var: str) -> Prob:
    return Prob(p.event, p.do + ((var, var),), tuple(a for a in p.given if a.var != var))


# ---- the algorithm, recording the derivation -----------------------------------------------------


class _Failure(Exception):
    def __init__(self, hedge: Hedge) -> None:
        super().__init__(hedge.query)
        self.hedge = hedge


def _replace(e: Expr, old: Prob, new: Expr) -> Expr:
    """``e`` with every term equal to ``old`` replaced by ``new``."""
    if isinstance(e, Prob):
        return new if e == old else e
    kids = children(e)
    if not kids:
        return e
    changed = tuple([_replace(k, old, new) for k in kids])
    return e if all(map(operator.is_, kids, changed)) else rebuild(e, changed)


def _rule_application(old: Prob, new: Expr, rule: str, graph: DoGraph) -> Rewrite | None:
    """The rule checker's rewrite of ``old`` into exactly ``new`` by ``rule``, if it makes that one: the
    do-calculus rule applied to the variable that changes place, or the probability rule's rewrites."""
    if rule in DO_CALCULUS_RULES:  # a do-calculus rule inserts only the variable named, no vocabulary
        if not isinstance(new, Prob):
            return None
        context = RuleContext(graph, ())
        moved = (set(old.do) ^ set(new.do)) | {(a.var, a.value) for a in set(old.given) ^ set(new.given)}
        candidates: Iterable[Rewrite | None] = (
            do_calculus_rule(old, rule, var, value, context) for var, value in moved if value is not None
        )
    else:
        candidates = PROBABILITY_RULES[rule](old, RuleContext(graph, vocabulary(old, new)))
    return next((r for r in candidates if r is not None and r.rule == rule and r.result == new), None)


def _occurs(e: Expr, term: Prob) -> bool:
    return e == term if isinstance(e, Prob) else any(_occurs(k, term) for k in children(e))


class _Identifier:
    """One run of ID / IDC on a graph; ``current`` is the derivation's latest whole expression."""

    def __init__(self, graph: DoGraph, start: Prob) -> None:
        self.graph = graph
        self.admg = ADMG.project(graph)
        self.start = start
        self.current: Expr = start
        self.steps: list[DerivationStep] = []
        self.claims: dict[int, tuple[Claim, ...]] = {}  # a substitution step's distribution, by step number

    # -- derivation --
    def _rewrite(self, term: Prob, new: Expr, line: str, rule: str, reason: str) -> None:
        """One step: ``term`` (wherever it occurs) becomes ``new`` by one application of ``rule``."""
        self._step(term, [(term, new)], line, rule, reason)

    def _step(self, term: Prob, applications: list[tuple[Prob, Expr]], line: str, rule: str, reason: str) -> Expr:
        """One step: ``term`` (wherever it occurs) rewritten by ``applications`` of ``rule`` in a row, each
        a term of the previous result and what it becomes; returns the result."""
        result: Expr = term
        for old, new in applications:
            result = _replace(result, old, new)
        whole = _replace(self.current, term, result)
        if applications and whole is not self.current:
            self.steps.append(DerivationStep(line, rule, reason, term, result, whole, tuple(applications)))
            self.current = whole
        return result

    def _in_a_row(
        self, term: Prob, names: Iterable[str], change: Callable[[Prob, str], Prob], line: str, rule: str, reason: str
    ) -> Prob:
        """One step applying ``rule`` once per name: ``change(term, name)`` gives the next term; returns the last."""
        start, applications = term, list[tuple[Prob, Expr]]()
        for name in names:
            new = change(term, name)
            applications.append((term, new))
            term = new
        self._step(start, applications, line, rule, reason)
        return term

    def _marginalize(self, term: Prob, names: Sequence[str], line: str) -> Prob:
        """``term`` → ``Σ_{names} term-with-names`` in one step (one marginalization per name); returns the
        innermost term."""
        applications, inner = list[tuple[Prob, Expr]](), term
        for var in names:
            summed = Prob(inner.event + (Atom(var, var),), inner.do, inner.given)
            applications.append((inner, Sum(var, var, summed)))
            inner = summed
        self._step(term, applications, line, "marginalization", f"sum over {', '.join(names)}")
        return inner

    def checked(self, seed: int) -> tuple[DerivationStep, ...]:
        """The steps, each checked: by the rule checker where it makes each of the step's applications (the
        conditions it states replace the step's reason), else by :func:`check_equivalence` on each
        application's term before and after (every occurrence of the term is replaced, so equal terms
        make equal whole expressions); once the time budget has run out, the steps left are "undecided"."""
        out: list[DerivationStep] = []
        previous: Expr = self.start
        for number, step in enumerate(self.steps):
            try:
                charge("checking the next step")
            except OutOfTime:
                out.append(replace(step, check="undecided"))
                previous = step.whole
                continue
            conditions = self._by_the_rule(step, self.claims.get(number, ()))
            if conditions is not None:
                step = replace(step, condition=conditions, check="rule")
            else:  # each rewritten term against its replacement: equal terms make equal wholes, at less cost
                pairs = step.applications or ((previous, step.whole),)
                verdicts = [check_equivalence(old, new, self.graph, seed=seed, prove=False) for old, new in pairs]
                refuted = next((v for v in verdicts if v.equivalent is False), None)
                if refuted is not None:
                    raise UnsoundIdentification(f"{step.describe()} changes the value: {refuted.counterexample}")
                step = replace(step, check="equivalence" if all(v.equivalent for v in verdicts) else "undecided")
            out.append(step)
            previous = step.whole
        return tuple(out)

    def _by_the_rule(self, step: DerivationStep, claims: tuple[Claim, ...]) -> str | None:
        """The conditions the rule checker states if it makes each of the step's applications, else None."""
        if step.rule == SUBPROBLEM:
            try:
                formula = subproblem_formula(step.term, claims, self.admg.order, self.graph)
            except NotDerivable:
                return None
            return formula.condition if formula.result == step.result else None
        if step.rule not in DO_CALCULUS_RULES and step.rule not in PROBABILITY_RULES:
            return None
        conditions = []
        for old, new in step.applications:
            found = _rule_application(old, new, step.rule, self.graph)
            if found is None:
                return None
            conditions.append(found.condition)
        return "; ".join(dict.fromkeys(c for c in conditions if c))

    # -- IDC --
    def idc(self, y: frozenset[str], x: frozenset[str], z: frozenset[str]) -> None:
        moves: list[str] = []
        start = symbolic_term(y, x, z)
        while z:  # line 1: an observation that rule 2 turns into an action
            v = next(
                (
                    v
                    for v in self.admg.sorted(z)
                    if self.graph.d_separated({v}, y, x | (z - {v}), cut_in=x, cut_out={v})
                ),
                None,
            )
            if v is None:
                break
            moves.append(v)
            x, z = x | {v}, z - {v}
        goal = self._in_a_row(
            start,
            moves,
            _observation_to_action,
            "IDC line 1",
            "rule 2: observation to action",
            "each is d-separated from the outcome given the rest, with the edges into the actions and out of it cut",
        )
        if not z:
            self.start_id(y, x)
            return
        joint, marginal = symbolic_term(y | z, x), symbolic_term(z, x)
        self._rewrite(
            goal, div(joint, marginal), "IDC line 2", CONDITIONAL, "P(y | do(x), z) = P(y, z | do(x)) / P(z | do(x))"
        )
        self._marginalize(marginal, self.admg.sorted(y), "IDC line 2")
        self.start_id(y | z, x)

    # -- ID --
    def start_id(self, y: frozenset[str], x: frozenset[str]) -> None:
        everything = frozenset(self.admg.order)
        self.id(y, x, Distribution(everything), everything, frozenset())

    def id(
        self, y: frozenset[str], x: frozenset[str], dist: Distribution, nodes: frozenset[str], context: frozenset[str]
    ) -> None:
        """Rewrite the term ``P(y | do(x, context))`` into observed probabilities (or raise :class:`_Failure`)."""
        admg = self.admg
        goal = symbolic_term(admg.sorted(y), x | context)
        if not _occurs(self.current, goal):  # already rewritten where it occurred in another branch
            return
        if not x:  # line 1
            self._substitute(goal, dist.marginal(y, admg), "ID line 1", dist)
            return
        ancestors = admg.ancestors(y, nodes)
        if ancestors != nodes:  # line 2
            self._in_a_row(
                goal,
                admg.sorted(x - ancestors),
                _without_do,
                "ID line 2",
                "rule 3: delete action",
                "not ancestors of the outcome",
            )
            self.id(y, x & ancestors, dist.restricted(ancestors, "ID line 2"), ancestors, context)
            return
        unaffected = (nodes - x) - admg.ancestors(y, nodes, cut_in=x)
        if unaffected:  # line 3
            self._in_a_row(
                goal,
                admg.sorted(unaffected),
                _with_do,
                "ID line 3",
                "rule 3: insert action",
                "not ancestors of the outcome once the actions are set",
            )
            self.id(y, x | unaffected, dist, nodes, context)
            return
        parts = admg.components(nodes - x)
        if len(parts) > 1:  # line 4
            term = self._marginalize(goal, admg.sorted(nodes - x - y), "ID line 4")
            factors = [symbolic_term(admg.sorted(part), (nodes - part) | context) for part in parts]
            names = " | ".join("{" + ", ".join(admg.sorted(p)) + "}" for p in parts)
            self._rewrite(
                term,
                mul(*factors),
                "ID line 4",
                FACTORIZATION,
                f"the c-components of G[{', '.join(admg.sorted(nodes))}] without the actions are {names}",
            )
            for part in parts:
                self.id(part, nodes - part, dist, nodes, context)
            return
        (part,) = parts
        whole = admg.components(nodes)
        if whole == [nodes]:  # line 5
            roots = frozenset(v for v in part if not admg.children[v] & part)
            inner = admg.c_forest(part, roots)
            raise _Failure(Hedge(goal.text, admg.c_forest(nodes, roots, inner), inner))
        if part in whole:  # line 6
            self._line6(goal, y, x, part, dist, nodes)
            return
        bigger = next(c for c in whole if part < c)  # line 7
        self.id(y, x & bigger, dist.component(bigger, admg, "ID line 7", context), bigger, context | (nodes - bigger))

    def _line6(
        self,
        goal: Prob,
        y: frozenset[str],
        x: frozenset[str],
        part: frozenset[str],
        dist: Distribution,
        nodes: frozenset[str],
    ) -> None:
        """``P(y | do(x)) = Σ_{part \\ y} Π_{V_i ∈ part} P(v_i | v_π^(i-1))`` for a c-component ``part`` of
        the graph: marginalization, the product rule, then rule 2 (earlier treatments become
        observations) and rule 3 (later treatments go) on each factor. Members of ``part`` after the
        last outcome sum to one and are left out from the start."""
        admg = self.admg
        ordered = admg.sorted(part)
        last = max(i for i, v in enumerate(ordered) if v in y)
        kept = ordered[: last + 1]
        joint = self._marginalize(goal, [v for v in kept if v not in y], "ID line 6")
        factors, applications, term = list[Prob](), list[tuple[Prob, Expr]](), joint
        while len(term.event) > 1:  # the chain rule, first variable in the order first
            first = next(a for a in term.event if a.var == kept[len(factors)])
            rest = Prob(tuple(a for a in term.event if a != first), term.do, term.given + (first,))
            alone = Prob((first,), term.do, term.given)
            applications.append((term, mul(rest, alone)))
            factors.append(alone)
            term = rest
        factors.append(term)
        self._step(joint, applications, "ID line 6", "product rule", "chain rule in the topological order")
        for v, factor in zip(kept, factors, strict=True):
            earlier = admg.before(v, nodes)
            factor = self._in_a_row(
                factor,
                admg.sorted(x & earlier),
                _action_to_observation,
                "ID line 6",
                "rule 2: action to observation",
                f"no bidirected edge joins {{{', '.join(ordered)}}} to the treatments",
            )
            factor = self._in_a_row(
                factor,
                admg.sorted(x - earlier),
                _without_do,
                "ID line 6",
                "rule 3: delete action",
                f"treatments after {v}",
            )
            self._substitute(factor, dist.conditional(v, earlier, admg), "ID line 6", dist)

    def _substitute(self, term: Prob, formula: Expr, line: str, dist: Distribution) -> None:
        """A term of the call's distribution ``P(V | do(z))`` replaced by its formula (nothing to do when
        ``z`` is empty: the term is then the observed probability itself)."""
        if term != formula:
            number = len(self.steps)
            self._rewrite(term, formula, line, SUBPROBLEM, "; ".join(dist.origin))
            if len(self.steps) > number:
                self.claims[number] = dist.claims


def step_counts(identification: Identification) -> dict[str, int]:
    """How many derivation steps each check confirmed (``rule``, ``equivalence``, ...)."""
    counts: dict[str, int] = {}
    for step in identification.derivation:
        counts[step.check] = counts.get(step.check, 0) + 1
    return counts
