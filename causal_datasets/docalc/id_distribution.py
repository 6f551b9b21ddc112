"""The distribution of one call of ID, ``P(V | do(z))``, written in observed probabilities.

Each recursive call of :mod:`.identification`'s ID works in the distribution of the variables left
after earlier lines set treatments aside: the observational joint at the top, a product of
conditionals after line 7 (:meth:`Distribution.component`), a marginal of either after line 2. Its
marginals and conditionals become expressions with the summed variables pushed inwards
(:func:`sum_out`) and common factors of a quotient cancelled (:func:`divide`). A distribution keeps the
lines that built it as ``claims`` (:class:`Margin`, :class:`Component`), which :mod:`.subproblem` checks
against the graph and replays.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from causal_datasets.docalc.admg import TopologicalOrder
from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.expr import Expr, Prob, Sum, div, free_indices, mul


def symbolic_term(event: Iterable[str], do: Iterable[str] = (), given: Iterable[str] = ()) -> Prob:
    """``P(event | do(do), given)`` with every value the variable's own index."""
    return Prob(tuple(Atom(v, v) for v in event), tuple((v, v) for v in do), tuple(Atom(v, v) for v in given))


@dataclass(frozen=True)
class Margin:
    """Line 2: the distribution's marginal over ``kept``."""

    kept: frozenset[str]


@dataclass(frozen=True)
class Component:
    """Line 7: ``P(part | do(z, rest))`` for the district ``part`` of the distribution's variables."""

    part: frozenset[str]


Claim = Margin | Component


class Factor(NamedTuple):
    """A factor of a product distribution: a conditional distribution of ``head`` given the rest."""

    expr: Expr
    head: str


@dataclass(frozen=True)
class Distribution:
    """``P(variables | do(z))`` in observed probabilities: the observational marginal ``P(variables)``
    when ``factors`` is None, else ``Σ_{hidden} Π factors`` (a product of conditionals in the
    topological order, from line 7, with ``hidden`` summed out by line 2). ``origin`` says how it was built,
    ``claims`` the lines that built it from the observational joint."""

    variables: frozenset[str]
    factors: tuple[Factor, ...] | None = None
    hidden: frozenset[str] = frozenset()
    origin: tuple[str, ...] = ()
    claims: tuple[Claim, ...] = ()

    def restricted(self, keep: frozenset[str], line: str) -> Distribution:
        """The marginal over ``keep`` (line 2)."""
        claims = self.claims + (Margin(keep),)
        if self.factors is None:
            return Distribution(keep, claims=claims)
        note = f"summed over {', '.join(sorted(self.variables - keep))} ({line})"
        return Distribution(keep, self.factors, self.hidden | (self.variables - keep), self.origin + (note,), claims)

    def component(
        self, part: frozenset[str], order: TopologicalOrder, line: str, context: frozenset[str]
    ) -> Distribution:
        """``P(part | do(z, rest))`` for a c-component ``part``: Π_{V_i ∈ part} P(v_i | v_π^(i-1)) (line 7)."""
        factors = tuple(
            Factor(self.conditional(v, order.before(v, self.variables), order), v) for v in order.sorted(part)
        )
        target = symbolic_term(order.sorted(part), context | (self.variables - part))
        note = f"{target.text} = {mul(*(f.expr for f in factors)).text} ({line})"
        return Distribution(part, factors, frozenset(), self.origin + (note,), self.claims + (Component(part),))

    def marginal(self, names: frozenset[str], order: TopologicalOrder) -> Expr:
        if self.factors is None:
            return symbolic_term(order.sorted(names))
        return mul(*sum_out(self.factors, (self.variables | self.hidden) - names, order))

    def conditional(self, var: str, given: frozenset[str], order: TopologicalOrder) -> Expr:
        """``P(var | given)`` under this distribution."""
        if self.factors is None:
            return symbolic_term((var,), (), given)
        every = self.variables | self.hidden
        return divide(sum_out(self.factors, every - given - {var}, order), sum_out(self.factors, every - given, order))


def sum_out(factors: tuple[Factor, ...], names: frozenset[str], order: TopologicalOrder) -> list[Expr]:
    """``Σ_{names} Π factors`` as a list of factors: a variable that only its own conditional mentions
    sums to one and goes; the factors free of the rest stand outside the sums; the others are grouped
    by the summed variables they share, one (nested) sum per group."""
    kept, left = list(factors), set(names)
    dropped = True
    while dropped:
        dropped = False
        for name in reversed(order.sorted(left)):
            users = [f for f in kept if name in free_indices(f.expr)]
            if len(users) == 1 and users[0].head == name:
                kept.remove(users[0])
                left.discard(name)
                dropped = True
    used = set().union(*(free_indices(f.expr) for f in kept)) if kept else set()
    if left - used:
        raise AssertionError(f"summing over {sorted(left - used)}, which no factor mentions")
    outside = [f.expr for f in kept if not free_indices(f.expr) & left]
    groups: list[tuple[frozenset[str], list[Expr]]] = []
    for f in (f for f in kept if free_indices(f.expr) & left):
        shared = free_indices(f.expr) & left
        joined = [g for g in groups if g[0] & shared]
        merged = (shared.union(*(g[0] for g in joined)), [e for g in joined for e in g[1]] + [f.expr])
        groups = [g for g in groups if not g[0] & shared] + [merged]
    for summed, exprs in groups:
        body = mul(*exprs)
        for name in reversed(order.sorted(summed)):
            body = Sum(name, name, body)
        outside.append(body)
    return outside


def divide(numerator: list[Expr], denominator: list[Expr]) -> Expr:
    """The quotient with common factors cancelled; ``P(a, b | c) / P(b | c)`` becomes ``P(a | b, c)``."""
    rest, kept = list(denominator), []
    for f in numerator:
        if f in rest:
            rest.remove(f)
        else:
            kept.append(f)
    num = mul(*kept)
    if not rest:
        return num
    den = mul(*rest)
    if (
        isinstance(num, Prob)
        and isinstance(den, Prob)
        and num.do == den.do
        and num.given == den.given
        and set(den.event) < set(num.event)
    ):
        return Prob(tuple(a for a in num.event if a not in den.event), num.do, num.given + den.event)
    return div(num, den)
