"""Counterfactual identification: ID* and IDC* (I. Shpitser and J. Pearl, "What counterfactuals can be
tested", UAI 2007; "Complete Identification Methods for the Causal Hierarchy", JMLR 9, 2008, section 4).

A query is one probability term whose atoms carry subscripts: ``P(Y_{X=1}=1, Y_{X=0}=0)`` (ID*), or with
conditions ``P(Y_{X=x} | X=x')`` (IDC*: the effect of treatment on the treated, ETT). A ``do(...)`` of the
term applies to every atom. The answer is one of:

* ``identified``: an estimand in interventional probabilities ``P(S | do(X))`` (ID*'s ``P_*``), and, where
  the existing ID (:mod:`.identification`) identifies each of those terms, the same in observed
  probabilities (``observational``);
* ``inconsistent``: the event gives one random variable two values (lines 2 and 5); its probability is 0;
* ``undefined``: the conditions are inconsistent (IDC*'s line 1), so the conditional has no value;
* ``not identifiable``: ID*'s line 8 fails on a district of the counterfactual graph that sets a variable
  to one value and sees it at another — the :class:`Conflict` is the witness, as the hedge is for ID.

ID* here, on the counterfactual graph G' of :mod:`.counterfactual_graph` (line 4): the joint of its nodes
factorizes over its districts (line 6) as in Tian's c-component factorization, each district's factor being
the conjunction of its variables with every parent set to its value; a district without a conflict is
``P(var(S) | do(sub(S)))`` (line 9). Writing each factor with the node's own parents (rather than all of
``v(G') \\ s``) keeps the subscripts well defined when two worlds give one variable different values.
IDC*'s line 4 moves a condition ``y_x`` into the subscripts when it is d-separated from the outcomes given
the other conditions with its outgoing edges cut (do-calculus rule 2 in G') and it is the only copy of Y in
G'; then ``y`` joins every other atom's subscript. Line 5 is ``P(γ' ∧ δ') / P(δ')``, both by ID*.

Symbols: distinct symbols of one variable stand for distinct values (``x`` and ``x'``); the estimand is
the query's value wherever they differ (``distinct``). Every step is checked (``check=True``) by
:func:`.verdict.check_equivalence` on random structural (response-function) models, at every assignment of
the query's symbols that keeps them distinct; a refuted step raises
:class:`.identification.UnsoundIdentification`. Nested counterfactuals (path-specific effects) are outside
ID* and are refused.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from causal_datasets.docalc.admg import ADMG
from causal_datasets.docalc.atoms import Atom, Potential, Subscript, Value
from causal_datasets.docalc.chains import ShownInLatex, bracketed, latex_chain
from causal_datasets.docalc.expr import Expr, Prob, children, rebuild, substitute, to_latex
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.id_star import ZERO, Conflict, Fail, IdStar, Undefined
from causal_datasets.docalc.identification import QueryError, UnsoundIdentification, identify
from causal_datasets.docalc.identified import Check
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.verdict import GraphLike, as_graph, canonical_indices, check_equivalence

Status = Literal["identified", "inconsistent", "undefined", "not identifiable"]


@dataclass(frozen=True)
class CounterfactualStep:
    """One step of the derivation: the whole expression ``before`` became ``after`` by the algorithm's
    ``line``; ``check`` says how it was confirmed."""

    line: str
    rule: str
    condition: str
    before: Expr
    after: Expr
    check: Check = "unchecked"

    @property
    def expression(self) -> str:
        return self.after.text

    def describe(self) -> str:
        return f"{self.line}, {self.rule}{bracketed(self.condition)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "rule": self.rule,
            "condition": self.condition,
            "before": self.before.text,
            "expression": self.after.text,
            "check": self.check,
        }


@dataclass(frozen=True)
class CounterfactualIdentification(ShownInLatex):
    """The answer of :func:`identify_counterfactual` (see the module's docstring for ``status``)."""

    query: str
    algorithm: Literal["ID*", "IDC*"]
    status: Status
    estimand: Expr | None
    observational: Expr | None = None
    derivation: tuple[CounterfactualStep, ...] = ()
    witness: Conflict | None = None
    distinct: tuple[tuple[str, tuple[str, ...]], ...] = ()
    note: str = ""

    @property
    def identifiable(self) -> bool:
        """True when the query has a value in ``P_*`` (identified or inconsistent, which is 0)."""
        return self.status in ("identified", "inconsistent")

    def to_latex(self) -> str:
        """LaTeX for a notebook: the derivation as an ``aligned`` block from the query, each line naming the
        algorithm's line and rule; or the query with its status (and the conflict's variable)."""
        if self.estimand is None:
            reason = f", {self.witness.variable} in conflict" if self.witness else ""
            return rf"{to_latex(parse(self.query))} \quad \text{{{self.status}{reason}}}"
        return latex_chain(parse(self.query), [(step.after, f"{step.line}, {step.rule}") for step in self.derivation])

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "algorithm": self.algorithm,
            "status": self.status,
            "identifiable": self.identifiable,
            "estimand": self.estimand.text if self.estimand is not None else None,
            "observational": self.observational.text if self.observational is not None else None,
            "distinct": {var: list(symbols) for var, symbols in self.distinct},
            "derivation": [step.to_dict() for step in self.derivation],
            "witness": self.witness.to_dict() if self.witness else None,
            "note": self.note,
        }


def is_counterfactual_query(query: Expr | str) -> bool:
    """Does the query carry a counterfactual subscript (and so go to ID*/IDC* rather than ID/IDC)?"""
    e = parse(query) if isinstance(query, str) else query
    return isinstance(e, Prob) and not e.is_interventional


def identify_counterfactual(
    query: Expr | str,
    graph: GraphLike,
    latent: Iterable[str] = (),
    *,
    check: bool = True,
    seed: int = 0,
) -> CounterfactualIdentification:
    """Identify a counterfactual ``query`` in ``graph`` (as :func:`.identification.identify` takes it) with
    ID* (no conditions) or IDC*. Raises :class:`.identification.QueryError` for a query it does not take,
    :class:`~.parser.ExprParseError` and :class:`~causal_datasets.graph.GraphError` for bad input."""
    g = as_graph(graph, latent)
    term = _read_query(query, g)
    gamma, delta = _in_worlds(term.event, term.do), _in_worlds(term.given, term.do)
    run = IdStar(ADMG.project(g), _symbols(term))
    algorithm: Literal["ID*", "IDC*"] = "IDC*" if delta else "ID*"
    start = Prob(gamma, (), delta)
    try:
        if delta:
            estimand, stages = run.idc_star(gamma, delta)
        else:
            estimand, stages = run.id_star(gamma)
    except Undefined as undefined:
        return CounterfactualIdentification(term.text, algorithm, "undefined", None, note=str(undefined))
    except Fail as failure:
        return CounterfactualIdentification(term.text, algorithm, "not identifiable", None, witness=failure.conflict)
    steps = [CounterfactualStep("query", "the term's do() applied to each atom", "", term, start)] if term.do else []
    previous: Expr = start
    for after, line, rule, reason in stages:
        if after != previous:
            steps.append(CounterfactualStep(line, rule, reason, previous, after))
            previous = after
    observational, note = _observational(estimand, g)
    if observational is not None and observational != estimand:
        steps.append(
            CounterfactualStep("ID", "each interventional term by ID", "Shpitser & Pearl 2006", estimand, observational)
        )
    distinct = _distinct(term)
    if check:
        steps = checked_steps(steps, g, distinct, seed)
    status: Status = "inconsistent" if estimand == ZERO else "identified"
    return CounterfactualIdentification(
        term.text, algorithm, status, estimand, observational, tuple(steps), distinct=distinct, note=note
    )


# ---- the query ----------------------------------------------------------------------------------


def _read_query(query: Expr | str, graph: DoGraph) -> Prob:
    e = canonical_indices(parse(query) if isinstance(query, str) else query)
    if not isinstance(e, Prob):
        raise QueryError(f"identify takes one probability term such as P(Y_{{X=1}}=1 | X=0), not {e.text}")
    graph.check_variables(e)
    used: dict[str, set[str]] = {}
    for var, value in _assignments(e):
        if var in graph.latent:
            raise QueryError(f"{var} is unobserved: a query is about observed variables")
        if isinstance(value, Potential):
            raise QueryError(
                f"{var} is set to a nested counterfactual in {e.text}: path-specific queries are outside ID*/IDC*"
            )
        if isinstance(value, int) and not 0 <= value < graph.domain(var):
            raise QueryError(f"{var}={value} is outside the domain of {var} (0..{graph.domain(var) - 1})")
        if isinstance(value, str) and value in graph.nodes and value != var:
            raise QueryError(f"the index {value!r} of {var} names another variable")
        used.setdefault(var, set()).add("symbol" if isinstance(value, str) else "constant")
        if isinstance(value, str):
            users = {v for v, x in _assignments(e) if x == value}
            if len(users) > 1:
                raise QueryError(f"the index {value!r} is used for {', '.join(sorted(users))}; one variable each")
    mixed = sorted(var for var, kinds in used.items() if len(kinds) > 1)
    if mixed:
        raise QueryError(f"{', '.join(mixed)} take(s) both symbols and constants; write all values of one kind")
    for var, symbols in _distinct(e):
        if len(symbols) > graph.domain(var):
            raise QueryError(
                f"{var} has {graph.domain(var)} values but {len(symbols)} symbols ({', '.join(symbols)}), "
                "which stand for distinct values"
            )
    return e


def _assignments(p: Prob) -> list[tuple[str, Value | Potential | None]]:
    pairs: list[tuple[str, Value | Potential | None]] = list(p.do)
    for atom in p.event + p.given:
        pairs += [(atom.var, atom.value), *atom.cf]
    return pairs


def _in_worlds(atoms: tuple[Atom, ...], do: Subscript) -> tuple[Atom, ...]:
    """The atoms with the term's ``do(...)`` in their subscripts (an atom's own subscript wins)."""
    return tuple(Atom(a.var, a.value, tuple({**dict(do), **dict(a.cf)}.items())) for a in atoms)


def _symbols(term: Prob) -> set[str]:
    return {x for _, x in _assignments(term) if isinstance(x, str)}


def _distinct(term: Prob) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each variable with more than one symbol, and its symbols (taken to be different values)."""
    found: dict[str, set[str]] = {}
    for var, value in _assignments(term):
        if isinstance(value, str):
            found.setdefault(var, set()).add(value)
    return tuple((var, tuple(sorted(s))) for var, s in sorted(found.items()) if len(s) > 1)


# ---- observational form and checks ---------------------------------------------------------------


def _observational(estimand: Expr, graph: DoGraph) -> tuple[Expr | None, str]:
    """The estimand with each ``P(S | do(X))`` replaced by ID's formula; None (and which term) if ID
    finds one not identifiable from observations."""
    replaced: dict[Prob, Expr] = {}
    arbitrary: set[str] = set()
    for term in _do_terms(estimand):
        symbolic = Prob(
            tuple(Atom(a.var, a.var if isinstance(a.value, str) else a.value) for a in term.event),
            tuple((v, v if isinstance(x, str) else x) for v, x in term.do),
        )
        result = identify(symbolic, graph, check=False)
        if result.estimand is None or result.hedge is not None:
            return None, f"{term.text} is not identifiable from observations (ID finds a hedge)"
        back = {a.var: a.value for a in term.event if isinstance(a.value, str)}
        back |= {v: x for v, x in term.do if isinstance(x, str)}
        replaced[term] = substitute(result.estimand, {k: v for k, v in back.items() if k != v})
        arbitrary |= set(result.arbitrary)
    shown = ", ".join(sorted(arbitrary))
    note = f"the observational form is the same for every value of {shown} (ID's line 3)" if arbitrary else ""
    return _replace_terms(estimand, replaced), note


def _do_terms(e: Expr) -> list[Prob]:
    if isinstance(e, Prob):
        return [e] if e.do else []
    return [t for c in children(e) for t in _do_terms(c)]


def _replace_terms(e: Expr, replaced: dict[Prob, Expr]) -> Expr:
    if isinstance(e, Prob):
        return replaced.get(e, e)
    kids = children(e)
    return rebuild(e, tuple(_replace_terms(k, replaced) for k in kids)) if kids else e


def instances(distinct: tuple[tuple[str, tuple[str, ...]], ...], graph: DoGraph) -> list[dict[str, int]]:
    """Every assignment of constants to the symbols of ``distinct`` that keeps each variable's symbols
    apart (the values at which the estimand is claimed)."""
    per_var = [
        [
            dict(zip(symbols, values, strict=True))
            for values in itertools.permutations(range(graph.domain(var)), len(symbols))
        ]
        for var, symbols in distinct
    ]
    return [{k: v for part in combo for k, v in part.items()} for combo in itertools.product(*per_var)]


def checked_steps(
    steps: list[CounterfactualStep], graph: DoGraph, distinct: tuple[tuple[str, tuple[str, ...]], ...], seed: int
) -> list[CounterfactualStep]:
    """Each step confirmed by :func:`check_equivalence` at every assignment of the distinct symbols."""
    out = []
    for step in steps:
        outcomes: set[bool | None] = set()
        for values in instances(distinct, graph):
            constants: dict[str, Value] = dict(values)
            before, after = substitute(step.before, constants), substitute(step.after, constants)
            verdict = check_equivalence(before, after, graph, seed=seed, prove=False)
            if verdict.equivalent is False:
                raise UnsoundIdentification(f"{step.describe()} changes the value: {verdict.counterexample}")
            outcomes.add(verdict.equivalent)
        out.append(replace(step, check="equivalence" if outcomes == {True} else "undecided"))
    return out
