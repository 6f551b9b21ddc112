"""Rewrite rules: the three rules of do-calculus (both directions, values kept) and probability rules.

Every rule is an equality that holds in every model of the graph when its stated condition holds,
so each may be applied in either direction anywhere inside an expression. A rule yields
``Rewrite(result, rule, condition)`` for the node it is given; :func:`neighbours` applies all rules
at every position. Insertions (of an observation, an action or a summation variable) draw from a
vocabulary of ``(variable, value)`` pairs — in practice those of the two expressions being compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from causal_datasets.docalc.atoms import Assign, Atom, Potential, Subscript, Value
from causal_datasets.docalc.expr import (
    Add,
    Div,
    Expect,
    Expr,
    Mul,
    Neg,
    Num,
    Prob,
    Sum,
    add,
    children,
    div,
    free_indices,
    leaf_values,
    mul,
    negate,
    rebuild,
    substitute,
)
from causal_datasets.docalc.graph import RuleGraph


@dataclass(frozen=True)
class Rewrite:
    result: Expr
    rule: str
    condition: str = ""


#: the outcomes, actions and observations of a term, as variable sets
Roles = tuple[frozenset[str], frozenset[str], frozenset[str]]


@dataclass(frozen=True)
class RuleContext:
    graph: RuleGraph
    vocabulary: tuple[tuple[str, Value], ...]  # insertable (variable, value) pairs, sorted


def _names(nodes: Iterable[str]) -> str:
    return ", ".join(sorted(nodes)) or "∅"


def _graph_name(cut_in: Iterable[str], cut_out: Iterable[str]) -> str:
    parts = []
    if cut_in:
        parts.append(f"bar({_names(cut_in)})")
    if cut_out:
        parts.append(f"underline({_names(cut_out)})")
    return f"G[{'; '.join(parts)}]" if parts else "G"


def _separation(
    graph: RuleGraph,
    xs: Iterable[str],
    ys: Iterable[str],
    zs: Iterable[str],
    cut_in: Iterable[str] = frozenset(),
    cut_out: Iterable[str] = frozenset(),
) -> str | None:
    """The condition text if ``xs ⊥ ys | zs`` holds in the mutilated graph, else None."""
    if graph.d_separated(xs, ys, zs, cut_in, cut_out):
        return f"({_names(ys)} ⊥ {_names(xs)} | {_names(zs)}) in {_graph_name(cut_in, cut_out)}"
    return None


# ---- do-calculus ----------------------------------------------------------------------------


def _roles(p: Prob) -> Roles | None:
    """(outcomes, actions, observations) as variable sets, or None if a variable plays two roles."""
    ys = [a.var for a in p.event]
    xs = [v for v, _ in p.do]
    ws = [a.var for a in p.given]
    all_vars = ys + xs + ws
    if len(set(all_vars)) != len(all_vars):
        return None
    return frozenset(ys), frozenset(xs), frozenset(ws)


#: the six do-calculus rewrites, in the order :func:`do_calculus` tries them
DO_CALCULUS_RULES = (
    "rule 1: delete observation",
    "rule 2: action to observation",
    "rule 2: observation to action",
    "rule 3: delete action",
    "rule 1: insert observation",
    "rule 3: insert action",
)
_ON_OBSERVATIONS = {"rule 1: delete observation", "rule 2: observation to action"}
_ON_ACTIONS = {"rule 2: action to observation", "rule 3: delete action"}


def do_calculus(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    """Every do-calculus rewrite of ``p`` whose condition holds: deletions and exchanges of its own
    observations and actions, insertions from the vocabulary."""
    roles = _roles(p) if p.is_interventional else None
    if roles is None:
        return
    used = roles[0] | roles[1] | roles[2]
    observed = [(a.var, a.value) for a in p.given if a.value is not None]  # inside P(...) every atom has one
    candidates = [("rule 1: delete observation", var, value) for var, value in observed]
    candidates += [("rule 2: action to observation", var, value) for var, value in p.do]
    candidates += [("rule 2: observation to action", var, value) for var, value in observed]
    candidates += [("rule 3: delete action", var, value) for var, value in p.do]
    for var, value in ctx.vocabulary:
        if var not in used:
            candidates += [("rule 1: insert observation", var, value), ("rule 3: insert action", var, value)]
    above: dict[frozenset[str], frozenset[str]] = {}  # the ancestors of the observations per cut, computed once
    for rule, var, value in candidates:
        rewrite = _do_rule(p, roles, rule, var, value, ctx.graph, above)
        if rewrite is not None:
            yield rewrite


def do_calculus_rule(p: Prob, rule: str, var: str, value: Value, ctx: RuleContext) -> Rewrite | None:
    """The one application of the do-calculus ``rule`` to ``var=value`` in ``p`` (an observation or an
    action of ``p`` for a deletion or an exchange, a variable ``p`` does not mention for an insertion), or
    None when ``p`` has not the rule's shape there or its condition fails in the graph: what
    :func:`do_calculus` yields for that rule and variable, without trying the others."""
    roles = _roles(p) if p.is_interventional else None
    if roles is None or rule not in DO_CALCULUS_RULES:
        return None
    if rule in _ON_OBSERVATIONS:
        fits = Atom(var, value) in p.given
    elif rule in _ON_ACTIONS:
        fits = (var, value) in p.do
    else:
        fits = var not in roles[0] | roles[1] | roles[2]
    return _do_rule(p, roles, rule, var, value, ctx.graph) if fits else None


def _do_rule(
    p: Prob,
    roles: Roles,
    rule: str,
    var: str,
    value: Value,
    g: RuleGraph,
    above: dict[frozenset[str], frozenset[str]] | None = None,
) -> Rewrite | None:
    """``rule`` applied to ``var=value`` in ``p`` (whose shape fits), if its condition holds; ``above`` keeps
    rule 3's ancestors of ``p``'s observations per set of cut actions across calls on the same ``p``."""
    ys, xs, ws = roles
    above = {} if above is None else above
    if rule == "rule 1: delete observation":
        cond = _separation(g, {var}, ys, xs | (ws - {var}), cut_in=xs)
    elif rule == "rule 2: action to observation":
        cond = _separation(g, {var}, ys, (xs - {var}) | ws, cut_in=xs - {var}, cut_out={var})
    elif rule == "rule 2: observation to action":
        cond = _separation(g, {var}, ys, xs | (ws - {var}), cut_in=xs, cut_out={var})
    elif rule == "rule 3: delete action":
        cond = _rule3_condition(g, var, ys, xs - {var}, ws, above)
    elif rule == "rule 1: insert observation":
        cond = _separation(g, {var}, ys, xs | ws, cut_in=xs)
    else:
        cond = _rule3_condition(g, var, ys, xs, ws, above)
    return Rewrite(_do_result(p, rule, var, value), rule, cond) if cond else None


def _do_result(p: Prob, rule: str, var: str, value: Value) -> Prob:
    if rule in _ON_OBSERVATIONS or rule in _ON_ACTIONS:  # the variable leaves its place
        do, given = tuple(a for a in p.do if a[0] != var), tuple(a for a in p.given if a.var != var)
    else:
        do, given = p.do, p.given
    if rule.endswith("to observation") or rule == "rule 1: insert observation":
        given += (Atom(var, value),)
    elif rule.endswith("to action") or rule == "rule 3: insert action":
        do += ((var, value),)
    return Prob(p.event, do, given)


def _rule3_condition(
    g: RuleGraph,
    var: str,
    ys: frozenset[str],
    xs: frozenset[str],
    ws: frozenset[str],
    above: dict[frozenset[str], frozenset[str]],
) -> str | None:
    """P(y | do(x), do(var), w) = P(y | do(x), w) iff (y ⊥ var | x, w) in G[bar(x), bar(var(W))],
    where var(W) is var unless var is an ancestor of some w in G[bar(x)] (``above[xs]``, filled here)."""
    if xs not in above:
        above[xs] = g.ancestors(ws, cut_in=xs)
    z_of_w: set[str] = set() if var in above[xs] else {var}
    return _separation(g, {var}, ys, xs | ws, cut_in=xs | z_of_w)


# ---- probability rules on single terms ----------------------------------------------------------


def expectation_rules(e: Expect, ctx: RuleContext) -> Iterator[Rewrite]:
    if len(e.body) > 1:
        parts = [Expect(((coef, atom),), e.do, e.given) for coef, atom in e.body]
        yield Rewrite(add(*parts), "linearity of expectation")
        return
    coef, atom = e.body[0]
    if atom.value is None:
        if ctx.graph.domain(atom.var) != 2:
            return
        term = Prob((Atom(atom.var, 1, atom.cf),), e.do, e.given)
        rule = "expectation of a binary variable"
    else:
        term = Prob((atom,), e.do, e.given)
        rule = "expectation of an indicator"
    scaled = term if abs(coef) == 1 else mul(Num(Fraction(abs(coef))), term)
    yield Rewrite(scaled if coef > 0 else negate(scaled), rule)


def probability_to_expectation(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    if len(p.event) == 1 and p.event[0].value == 1 and ctx.graph.domain(p.event[0].var) == 2:
        atom = p.event[0]
        yield Rewrite(
            Expect(((1, Atom(atom.var, None, atom.cf)),), p.do, p.given),
            "probability of a binary variable as expectation",
        )


def counterfactual_rules(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    atoms = p.event + p.given
    subscripts = {a.cf for a in atoms}
    actions = _actions(atoms[0].cf)
    if not p.do and len(subscripts) == 1 and atoms[0].cf and actions is not None:
        plain = Prob(
            tuple(Atom(a.var, a.value) for a in p.event), actions, tuple(Atom(a.var, a.value) for a in p.given)
        )
        yield Rewrite(
            plain, "counterfactual with one common intervention is an interventional term", "definition of do"
        )
    factual = {(a.var, a.value) for a in p.given if not a.cf}
    for atom in p.event:
        if len(atom.cf) == 1 and atom.cf[0] in factual:
            event = tuple(Atom(a.var, a.value) if a == atom else a for a in p.event)
            treatment, setting = atom.cf[0]
            yield Rewrite(
                Prob(event, p.do, p.given),
                "consistency",
                f"{treatment}={setting} is observed, so {atom.var}_{{{treatment}={setting}}} = {atom.var}",
            )
    for atom in atoms:
        for entry in atom.cf:
            var, value = entry
            rest = tuple(a for a in atom.cf if a != entry)
            if isinstance(value, Potential) and value.var == var and value.cf == rest:
                simpler = Atom(atom.var, atom.value, rest)
                event = tuple(simpler if a == atom else a for a in p.event)
                given = tuple(simpler if a == atom else a for a in p.given)
                yield Rewrite(
                    Prob(event, p.do, given),
                    "composition",
                    f"{var} set to its own value under the same intervention changes nothing",
                )


def _nested(cf: Subscript) -> bool:
    return any(isinstance(value, Potential) for _, value in cf)


def _actions(cf: Subscript) -> tuple[Assign, ...] | None:
    """The subscript as interventions, or None if a value in it is a nested counterfactual."""
    plain = tuple((var, value) for var, value in cf if not isinstance(value, Potential))
    return plain if len(plain) == len(cf) else None


def backdoor_exchange(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    """``P(Y_{X=x} | X=x', Z) = P(Y_{X=x} | X=x'', Z)`` when Z is back-door admissible for (X, Y).

    No descendant of X in Z and Z blocking every path into X, i.e. ``(Y ⊥ X | Z)`` in
    G[underline(X)], give ``Y_x ⊥ X | Z`` (Pearl, the back-door criterion read counterfactually);
    so the observed value of X may change — to the subscript's value, where consistency then
    removes the subscript, or to another value of X in the vocabulary."""
    subscripts = {a.cf for a in p.event}
    if p.do or len(subscripts) != 1 or any(a.cf for a in p.given):
        return
    (cf,) = subscripts
    actions = _actions(cf)
    if len(cf) != 1 or actions is None:
        return
    treatment, subscript_value = actions[0]
    observed = [a for a in p.given if a.var == treatment]
    ys = frozenset(a.var for a in p.event)
    zs = frozenset(a.var for a in p.given) - {treatment}
    if len(observed) != 1 or treatment in ys or ys & zs:
        return
    g = ctx.graph
    if zs & g.descendants({treatment}) or not g.d_separated(ys, {treatment}, zs, cut_out={treatment}):
        return
    condition = (
        f"({_names(ys)} ⊥ {treatment} | {_names(zs)}) in G[underline({treatment})] and no descendant of "
        f"{treatment} among {{{_names(zs)}}}: back-door admissible, so the counterfactual is independent of {treatment}"
    )
    rest = tuple(a for a in p.given if a.var != treatment)
    values = {subscript_value} | {x for var, x in ctx.vocabulary if var == treatment}
    for value in sorted(values - {observed[0].value}, key=str):
        yield Rewrite(Prob(p.event, (), rest + (Atom(treatment, value),)), "counterfactual back-door", condition)


def total_probability(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    """P(y|c) = Σ_z P(y|z,c) P(z|c) and P(y|c) = Σ_z P(y,z|c) for z not in the term."""
    used = {a.var for a in p.event + p.given} | {v for v, _ in p.do} | {v for a in p.event + p.given for v, _ in a.cf}
    indices = free_indices(p)
    for var, value in ctx.vocabulary:
        if var in used or value != var or var in indices:
            continue
        z = Atom(var, var)
        expanded = mul(Prob(p.event, p.do, p.given + (z,)), Prob((z,), p.do, p.given))
        yield Rewrite(Sum(var, var, expanded), "law of total probability", f"sum over {var}")
        yield Rewrite(Sum(var, var, Prob(p.event + (z,), p.do, p.given)), "marginalization", f"sum over {var}")


def product_rule(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    if len(p.event) < 2:
        return
    for atom in p.event:
        rest = tuple(a for a in p.event if a != atom)
        yield Rewrite(mul(Prob(rest, p.do, p.given + (atom,)), Prob((atom,), p.do, p.given)), "product rule")


def conditional_definition(p: Prob, ctx: RuleContext) -> Iterator[Rewrite]:
    for atom in p.given:
        rest = tuple(a for a in p.given if a != atom)
        yield Rewrite(
            div(Prob(p.event + (atom,), p.do, rest), Prob((atom,), p.do, rest)), "definition of conditional probability"
        )


# ---- rules on composite nodes ------------------------------------------------------------------


def _as_conditional_pair(first: Expr, second: Expr) -> Prob | None:
    """If first = P(A | B, c) and second = P(B | c), the joint P(A, B | c)."""
    if not (isinstance(first, Prob) and isinstance(second, Prob)) or first.do != second.do:
        return None
    rest = set(first.given) - set(second.event)
    if set(second.event) <= set(first.given) and tuple(sorted(rest, key=Atom.sort_key)) == second.given:
        return Prob(first.event + second.event, first.do, second.given)
    return None


def product_rules(e: Mul, ctx: RuleContext) -> Iterator[Rewrite]:
    factors = e.factors
    for i, f in enumerate(factors):
        if isinstance(f, Add):
            others = factors[:i] + factors[i + 1 :]
            yield Rewrite(add(*(mul(*others, t) for t in f.terms)), "distributivity")
            break
    for i, first in enumerate(factors):
        for j, second in enumerate(factors):
            joint = _as_conditional_pair(first, second) if i != j else None
            if joint is not None:
                remaining = [f for k, f in enumerate(factors) if k not in (i, j)]
                yield Rewrite(mul(*remaining, joint) if remaining else joint, "product rule")
    for i, f in enumerate(factors):
        if isinstance(f, Sum):
            others = factors[:i] + factors[i + 1 :]
            if f.index not in set().union(*(free_indices(o) for o in others)):
                yield Rewrite(
                    Sum(f.var, f.index, mul(*others, f.body)), "factor into the sum", f"no factor depends on {f.index}"
                )


def division_rules(e: Div, ctx: RuleContext) -> Iterator[Rewrite]:
    num, den = e.num, e.den
    if isinstance(num, Prob) and isinstance(den, Prob) and num.do == den.do:
        moved = set(den.event)
        if moved <= set(num.event) and num.given == den.given:
            rest = tuple(a for a in num.event if a not in moved)
            if rest:
                yield Rewrite(Prob(rest, num.do, den.given + den.event), "definition of conditional probability")


def sum_rules(e: Sum, ctx: RuleContext) -> Iterator[Rewrite]:
    body = e.body
    if isinstance(body, Add):
        yield Rewrite(add(*(Sum(e.var, e.index, t) for t in body.terms)), "sum of a sum")
        return
    if isinstance(body, Neg):
        yield Rewrite(negate(Sum(e.var, e.index, body.arg)), "sum of a negation")
        return
    if isinstance(body, Mul):
        constant = [f for f in body.factors if e.index not in free_indices(f)]
        varying = [f for f in body.factors if e.index in free_indices(f)]
        if constant and varying:
            yield Rewrite(
                mul(*constant, Sum(e.var, e.index, mul(*varying))),
                "factor out of the sum",
                f"factors free of {e.index}",
            )
        if len(body.factors) == 2:
            first, second = body.factors
            for a, b in ((first, second), (second, first)):
                joint = _as_conditional_pair(a, b)
                if joint is not None:
                    reduced = _sum_out(joint, e.var, e.index)
                    if reduced is not None:
                        yield Rewrite(reduced, "law of total probability", f"sum over {e.var}")
    if isinstance(body, Prob):
        reduced = _sum_out(body, e.var, e.index)
        if reduced is not None:
            yield Rewrite(reduced, "marginalization", f"sum over {e.var}")


def _sum_out(p: Prob, var: str, index: str) -> Prob | None:
    """P(y, var=index | c) summed over the index (used nowhere else): P(y | c)."""
    matches = [a for a in p.event if a.var == var and a.value == index and not a.cf]
    if len(matches) != 1 or len(p.event) < 2:
        return None
    rest = tuple(a for a in p.event if a != matches[0])
    reduced = Prob(rest, p.do, p.given)
    return reduced if index not in free_indices(reduced) else None


def collect_sum(e: Add, ctx: RuleContext) -> Iterator[Rewrite]:
    """t(V=0) + t(V=1) + ... over every value of V, all with one sign, is Σ_V t(V)."""
    signed = [(-1, t.arg) if isinstance(t, Neg) else (1, t) for t in e.terms]
    present = set(signed)
    for sign, term in signed:
        for var, value in leaf_values(term):
            if not isinstance(value, int) or var in free_indices(term):
                continue
            body = _abstract(term, var, value)
            group = [(sign, substitute(body, {var: v})) for v in range(ctx.graph.domain(var))]
            if all(member in present for member in group):
                rest = list(signed)
                for member in group:  # one occurrence each: a repeated term stays in the rest
                    rest.remove(member)
                collected = Sum(var, var, body)
                parts = [collected if sign > 0 else negate(collected)] + [t if s > 0 else negate(t) for s, t in rest]
                yield Rewrite(add(*parts), "sum over all values", f"terms for {var} = 0..{ctx.graph.domain(var) - 1}")
                return


def _abstract(e: Expr, var: str, value: int) -> Expr:
    """``e`` with every occurrence ``var=value`` replaced by the index ``var``."""
    if isinstance(e, (Prob, Expect)):

        def atom(a: Atom) -> Atom:
            return Atom(a.var, var if (a.var == var and a.value == value) else a.value, _assigns(a.cf))

        def _assigns(assigns: Subscript) -> Subscript:
            return tuple((v, _value(v, x)) for v, x in assigns)

        def _value(v: str, x: Value | Potential) -> Value | Potential:
            if isinstance(x, Potential):
                return Potential(x.var, _assigns(x.cf))
            return var if (v == var and x == value) else x

        def do(assigns: tuple[Assign, ...]) -> tuple[Assign, ...]:
            return tuple((v, var if (v == var and x == value) else x) for v, x in assigns)

        if isinstance(e, Prob):
            return Prob(tuple(atom(a) for a in e.event), do(e.do), tuple(atom(a) for a in e.given))
        return Expect(tuple((c, atom(a)) for c, a in e.body), do(e.do), tuple(atom(a) for a in e.given))
    return rebuild(e, tuple(_abstract(c, var, value) for c in children(e)))


# ---- application at every position ------------------------------------------------------------


def node_rewrites(e: Expr, ctx: RuleContext) -> Iterator[Rewrite]:
    if isinstance(e, Prob):
        yield from do_calculus(e, ctx)
        yield from counterfactual_rules(e, ctx)
        yield from backdoor_exchange(e, ctx)
        yield from probability_to_expectation(e, ctx)
        yield from total_probability(e, ctx)
        yield from product_rule(e, ctx)
        yield from conditional_definition(e, ctx)
    elif isinstance(e, Expect):
        yield from expectation_rules(e, ctx)
    elif isinstance(e, Mul):
        yield from product_rules(e, ctx)
    elif isinstance(e, Div):
        yield from division_rules(e, ctx)
    elif isinstance(e, Sum):
        yield from sum_rules(e, ctx)
    elif isinstance(e, Add):
        yield from collect_sum(e, ctx)


def neighbours(e: Expr, ctx: RuleContext) -> Iterator[tuple[Expr, Rewrite, Expr]]:
    """Every single-rule rewrite of ``e``: (new whole expression, rewrite, the subterm rewritten)."""
    for rewrite in node_rewrites(e, ctx):
        yield rewrite.result, rewrite, e
    kids = children(e)
    for i, child in enumerate(kids):
        for new_child, rewrite, sub in neighbours(child, ctx):
            yield rebuild(e, kids[:i] + (new_child,) + kids[i + 1 :]), rewrite, sub
