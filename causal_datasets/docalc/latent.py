"""Latent causes: the graph the random models are drawn for, and how many values each latent gets.

A latent variable is unobserved, so nothing restricts its number of values: "equal in every model
of the graph" quantifies over every number. Two steps make that finite.

**Model graph** (:func:`model_graph`). Latent nodes are projected out: an observed node's parents
become the observed nodes with a directed path to it through latent nodes only, and each latent
node becomes a *source* — a parentless latent whose children are the observed nodes it reaches
through latent nodes only (substituting the latents' structural equations into their children's
gives the same models, interventional and counterfactual distributions included; Evans 2016,
"Graphs for margins of Bayesian networks", shows it for margins under interventions). A source
whose children all belong to another source is merged into it (one source can carry both values),
and a source of a single observed node is private noise, which its table already has. An
``A<->B`` edge is a source with children A and B.

**Values per source** (:func:`latent_values`). Fix everything of a model but the distribution
``p`` of one source s (its children's tables, one row per value of s, stay). Every probability
an expression mentions — observational, interventional or counterfactual, joint or the two parts
of a conditional — is then linear in ``p``. Written over a common denominator (:class:`_Count`:
the least common multiple of the denominators, probabilities common to numerator and denominator
cancelled), ``a - b = K * R / D`` with ``K`` and ``D`` products of probabilities — positive on
every model — and of divisors kept whole, and ``R`` a polynomial in the probabilities that depend
on s of degree at most ``degree`` (the larger of R's and the kept divisors'). ``a != b`` reads
``R != 0``. Then s needs no more values than the smallest of:

* ``degree``: homogenized with ``sum(p) = 1``, ``R`` is a form of that degree in ``p``, and each of
  its monomials involves at most ``degree`` values of s; if ``R`` vanishes whenever s has that many
  values (on every face of the simplex with ``degree`` vertices), every coefficient vanishes, so it
  vanishes for any number of values.
* ``forms + 1``, ``forms`` being the number of distinct probabilities depending on s that the
  expressions mention (every summation index at every value): they are a point of the convex hull
  of their values given each value of s, in ``forms`` dimensions, which ``forms + 1`` values reach
  (Carathéodory), and keeping them keeps both values.
* ``poles`` (:func:`_pole_bound`), when ``a - b`` written out is a sum of terms (each summation
  value its own) that are products of probabilities over products of probabilities, and no
  term's denominator has two probabilities that depend on s: ``k + e + 1`` for a term with one
  to the power ``e`` there, ``k`` for a term without, ``k`` being the largest numerator-minus-
  denominator degree of a term (every term brought to it with ``sum(p) = 1``). Proof: ``p`` is a
  measure over the rows of s's children, one atom per value, and a bound ``m`` must show that if
  ``a - b`` vanishes on every model with ``m`` values — every measure of ``m`` atoms placed
  anywhere — it vanishes on all. Group the terms whose denominators are proportional as functions
  of the rows: on ``m >= 2`` atoms in general position the groups' denominators ``V`` are coprime
  linear forms, so ``a - b = 0`` forces ``V^E`` (the group's highest power) to divide the group's
  numerator ``Q``, of degree ``E + k``: ``Q`` and its first ``E - 1`` derivatives across ``V = 0``
  vanish on that hyperplane. These are forms of degree at most ``E + k`` on it, in the basis
  ``atom_j - (V(atom_j) / V(atom_1)) * atom_1``, whose monomials involve at most ``E + k + 1``
  atoms: so ``V^E`` divides ``Q`` for any number of atoms, and ``a - b`` is a polynomial of degree
  ``k`` (the first bullet). The atoms anywhere are needed: on one fixed set of rows, ``-p1/C1 -
  p2/C2 + (2*p1 + p2)/C3`` with ``C1, C2, C3 = p1 + p2 + p3, p1 + p2 + 2*p3, 2*p1 + p2 + 2*p3``
  vanishes on every edge of the simplex, not inside (there ``C1`` and ``C2`` are proportional).
* ``prod(n_v)`` over the district of s (the observed nodes joined to its children through
  sources), where ``n_v - 1`` is the dimension of v's table rows — ``(d_v - 1) * configs_v`` for
  interventional expressions, ``d_v ** configs_v - 1`` response types for counterfactual ones
  (``configs_v``: the configurations of v's observed parents): every probability, given s's value
  and everything else fixed, is linear in the expectation of the products of the district's rows
  (each row or a constant 1 for an intervened or summed node), a space of that dimension
  (Carathéodory again).

No bound depends on how many values the other sources have, so they apply to one source after
another: if ``a`` and ``b`` differ on some model, ``R`` is not the zero polynomial on the
models where each source has these many values, hence differs from zero on almost every random one
of them (with at least 2 values each: cheap, and never fewer than the bound). The Carathéodory
step is the classical argument for bounding latent cardinalities (Evans 2018, "Margins of discrete
Bayesian networks", Ann. Statist.; Rosset, Gisin & Wolfe 2018, "Universal bound on the cardinality
of local hidden variables in networks"; Zhang, Tian & Bareinboim 2022, "Partial counterfactual
identification from observational and experimental data", for counterfactual distributions),
applied here to the finitely many probabilities of one pair instead of the whole distribution.
Binary latents (this verifier until 2026-11) satisfy rank identities such as a vanishing 3x3
determinant of ``P(A, B | X1, X2)`` under ``X1->A, X2->B, A<->B``, which three values refute.

Computing the bounds is charged to the call's time budget, if any (:mod:`.budget`), a key of the
cleared identity as :data:`PYTHON_ENTRIES` table entries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.budget import charge
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
    children,
    free_indices,
    leaf_values,
    term_atoms,
)
from causal_datasets.docalc.graph import DoGraph

#: a key the bounds handle in Python costs about as much time as this many table entries (:mod:`.budget`)
PYTHON_ENTRIES = 1000
#: fewest values a source gets (more than the bound is always sound; two keep the confounding visible)
MIN_LATENT_VALUES = 2


@dataclass(frozen=True)
class Projection:
    """The latent-free structure of a graph: observed parents per observed node, children per source."""

    parents: Mapping[str, tuple[str, ...]]
    sources: Mapping[str, tuple[str, ...]]


def projection(graph: DoGraph) -> Projection:
    """The latent projection of ``graph`` (see the module docstring), kept in the graph's cache."""
    found = graph._cache.get("latent projection")
    if found is None:
        observed = (v for v in graph.nodes if v not in graph.latent)
        parents = {v: tuple(sorted(graph.observed_reach(v, graph.parents))) for v in observed}
        reached = sorted(
            ((graph.observed_reach(u, graph.children), u) for u in graph.latent), key=lambda r: (-len(r[0]), r[1])
        )
        sources: dict[str, tuple[str, ...]] = {}
        for children, name in reached:
            if len(children) > 1 and not any(children <= set(kept) for kept in sources.values()):
                sources[name] = tuple(sorted(children))
        found = graph._cache["latent projection"] = Projection(parents, dict(sorted(sources.items())))
    return found


def model_graph(graph: DoGraph, values: Mapping[str, int]) -> DoGraph:
    """The graph the random models are drawn for: observed nodes with their projected parents and
    numbers of values, and each source with ``values[source]`` values (the graph itself when it
    has no latent node). Kept in the graph's cache."""
    if not graph.latent:
        return graph
    key = ("model graph", tuple(sorted(values.items())))
    found = graph._cache.get(key)
    if found is None:
        shape = projection(graph)
        observed = tuple(n for n in graph.nodes if n not in graph.latent)
        edges = [(p, v) for v in observed for p in shape.parents[v]]
        edges += [(s, c) for s, children in shape.sources.items() for c in children]
        domains = {n: graph.domain(n) for n in observed} | {s: values[s] for s in shape.sources}
        found = graph._cache[key] = DoGraph(
            observed + tuple(shape.sources), tuple(edges), frozenset(shape.sources), domains
        )
    return found


def latent_values(graph: DoGraph, a: Expr, b: Expr, counterfactual: bool) -> dict[str, int]:
    """How many values each source of ``graph`` needs so that random models show any difference
    between ``a`` and ``b`` (see the module docstring); at least :data:`MIN_LATENT_VALUES`."""
    shape = projection(graph)
    if not shape.sources:
        return {}
    structure = model_graph(graph, dict.fromkeys(shape.sources, MIN_LATENT_VALUES))
    districts = _district_bounds(structure, counterfactual)
    forms = _Forms(structure, graph, a, b)
    counted: dict[frozenset[int], int] = {}  # sources that change the same probabilities need the same count
    values = {}
    for source in shape.sources:
        charge(f"bounding the values of {source}")
        changed = frozenset(i for i, reach in enumerate(forms.reach) if source in reach)
        if changed not in counted:
            difference = _sum([_Count.of(a, forms, changed), _Count.of(b, forms, changed)])
            poles = _pole_bound(a, b, forms, changed)
            bounds = (difference.degree(), len(difference.forms) + 1) + (() if poles is None else (poles,))
            counted[changed] = min(bounds)
        values[source] = max(MIN_LATENT_VALUES, min(counted[changed], districts[source]))
    return values


class _Forms:
    """The joint probabilities the leaf terms of some expressions use, numbered, with the nodes
    each can depend on: ``terms[term]`` = (the numbers of its numerator's probabilities — one per
    value of an expectation's variable —, the number of its denominator's or None)."""

    def __init__(self, structure: DoGraph, graph: DoGraph, *exprs: Expr) -> None:
        self.number: dict[Prob, int] = {}
        self.reach: list[frozenset[str]] = []
        self.free: list[frozenset[str]] = []
        self.terms: dict[Expr, tuple[tuple[int, ...], int | None]] = {}
        self._structure = structure
        stack = list(exprs)
        while stack:
            e = stack.pop()
            if isinstance(e, (Prob, Expect)):
                self._add_term(e, graph)
            stack.extend(children(e))

    def _add_term(self, term: Prob | Expect, graph: DoGraph) -> None:
        if term in self.terms:
            return
        if isinstance(term, Prob):
            events = [term.event]
        else:  # E[c * Y + ...] sums P(Y = y) over Y's values but 0
            events = [
                (Atom(atom.var, v, atom.cf),)
                for _, atom in term.body
                for v in (range(1, graph.domain(atom.var)) if atom.value is None else (atom.value,))
            ]
        numerators = tuple(self._numbered(Prob(event + term.given, term.do)) for event in events)
        self.terms[term] = (numerators, self._numbered(Prob(term.given, term.do)) if term.given else None)

    def _numbered(self, form: Prob) -> int:
        if form not in self.number:
            self.number[form] = len(self.reach)
            self.reach.append(_ancestors(self._structure, form))
            self.free.append(free_indices(form))
        return self.number[form]


def _ancestors(structure: DoGraph, term: Prob) -> frozenset[str]:
    """The nodes a joint probability can depend on: ancestors of its variables, the actions'
    incoming edges cut unless a counterfactual subscript makes several worlds (then nothing is cut)."""
    atoms = term_atoms(term)
    if any(atom.cf for atom in atoms):
        return structure.ancestors({var for var, _ in leaf_values(term)})
    actions = {var for var, _ in term.do}
    return structure.ancestors({atom.var for atom in atoms} - actions, cut_in=actions)


def _district_bounds(structure: DoGraph, counterfactual: bool) -> dict[str, int]:
    """``prod(n_v)`` over the district (observed nodes joined through sources) of each source."""
    district = {v: {v} for v in structure.nodes if v not in structure.latent}
    for source in sorted(structure.latent):
        merged = set().union(*(district[c] for c in structure.children(source)))
        for v in merged:
            district[v] = merged
    bounds = {}
    for source in structure.latent:
        bound = 1
        for v in district[structure.children(source)[0]]:
            d = structure.domain(v)
            configs = math.prod(structure.domain(p) for p in structure.parents(v) if p not in structure.latent)
            bound *= d**configs if counterfactual else (d - 1) * configs + 1
        bounds[source] = bound
    return bounds


#: most distinct term shapes :func:`_pole_bound` follows before it gives up (products of sums multiply them)
MAX_SHAPES = 256

#: the shape of one term, a product of probabilities over a product of probabilities: (numerator,
#: denominator), each a frozenset of (key, exponent) over the probabilities that depend on the source
Shape = tuple[frozenset[tuple["Key", int]], frozenset[tuple["Key", int]]]
_CONSTANT: Shape = (frozenset(), frozenset())


#: a factor of a numerator or denominator: (a probability's number or a divisor expression, the
#: summation values bound in it, its degree — 1 for a probability)
Key = tuple[int | Expr, tuple[tuple[str, int], ...], int]
#: a product of keys: each key to its power
Monomial = dict[Key, int]


class _GiveUp(Exception):
    """The expression is no sum of such terms (a divisor that is itself a sum), or has too many shapes."""


def _pole_bound(a: Expr, b: Expr, forms: _Forms, changed: frozenset[int]) -> int | None:
    """The ``poles`` bound of the module docstring: the largest ``degree + e + 1`` over the terms
    with a probability that depends on the source to the power ``e`` in their denominator, and
    ``degree`` over the others (at least 2); None (no bound) where ``a - b`` is no sum of products of
    probabilities over products of probabilities, or a term's denominator has two such probabilities."""
    try:
        shapes = _Shapes(forms, changed)
        terms = shapes.of(a)[0] | shapes.of(b)[0]
    except _GiveUp:
        return None
    if any(len(den) > 1 for _, den in terms):  # the proof separates the poles of one probability at a time
        return None
    degree = max(_power(num) - _power(den) for num, den in terms)  # every term brought to it with sum(p) = 1
    return max(MIN_LATENT_VALUES, *(len(den) + _power(den) + degree for _, den in terms))


def _power(part: frozenset[tuple[Key, int]]) -> int:
    return sum(power for _, power in part)


class _Shapes:
    """The shapes of the terms of an expression written out as a sum of products (each summation
    value its own terms, the same shapes with its index bound), probabilities common to a term's
    numerator and denominator cancelled; with whether the expression is a single term (up to a
    factor that does not depend on the source), which a divisor must be."""

    def __init__(self, forms: _Forms, changed: frozenset[int]) -> None:
        self.forms, self.changed = forms, changed
        self.bindings = 0  # each summation binds its index to a value of its own: two sums' terms stay apart

    def of(self, e: Expr) -> tuple[frozenset[Shape], bool]:
        if isinstance(e, (Prob, Expect)):
            numerators, denominator = self.forms.terms[e]
            if numerators[0] not in self.changed:  # the denominator's variables are among the numerator's
                return frozenset({_CONSTANT}), True
            den: frozenset[tuple[Key, int]] = (
                frozenset({((denominator, (), 1), 1)}) if denominator in self.changed else frozenset()
            )
            return frozenset((frozenset({((n, (), 1), 1)}), den) for n in numerators), len(numerators) == 1
        if isinstance(e, Num):
            return frozenset({_CONSTANT}), True
        if isinstance(e, Neg):
            return self.of(e.arg)
        if isinstance(e, Add):
            parts = [self.of(t) for t in e.terms]
            terms = frozenset().union(*(p for p, _ in parts))
            return self._capped(terms), len(terms) == 1 and all(single for _, single in parts)
        if isinstance(e, Mul):
            terms, single = frozenset({_CONSTANT}), True
            for factor in e.factors:
                more, one = self.of(factor)
                terms, single = self._capped(frozenset(_times(s, t) for s in terms for t in more)), single and one
            return terms, single
        if isinstance(e, Div):
            (num, single), (divisor, one) = self.of(e.num), self.of(e.den)
            if not one:
                raise _GiveUp("a divisor that is a sum of terms")
            ((over, under),) = divisor
            return frozenset(_times(s, (under, over)) for s in num), single
        if isinstance(e, Sum):
            body, single = self.of(e.body)
            self.bindings += 1
            terms = frozenset((self._bound(num, e.index), self._bound(den, e.index)) for num, den in body)
            return terms, single and terms == body  # the terms of all values are one term if none mentions it
        raise TypeError(f"no shape for {type(e).__name__}")

    def _bound(self, part: frozenset[tuple[Key, int]], index: str) -> frozenset[tuple[Key, int]]:
        return frozenset((_bind(self.forms, index, key, -self.bindings), power) for key, power in part)

    @staticmethod
    def _capped(terms: frozenset[Shape]) -> frozenset[Shape]:
        if len(terms) > MAX_SHAPES:
            raise _GiveUp(f"more than {MAX_SHAPES} term shapes")
        return terms


def _times(left: Shape, right: Shape) -> Shape:
    """The shape of the product of two terms, common probabilities of numerator and denominator cancelled."""
    num, den = _product(dict(left[0]), dict(right[0])), _product(dict(left[1]), dict(right[1]))
    common = {k: min(p, den[k]) for k, p in num.items() if k in den}
    return frozenset(_quotient(num, common).items()), frozenset(_quotient(den, common).items())


@dataclass(frozen=True)
class _Count:
    """An expression written as ``N / D`` in the probabilities that depend on the source (the
    ``changed`` ones): ``N = factors * R`` with ``factors`` and ``D`` products of keys (key ->
    exponent, common keys cancelled) and ``R`` a polynomial of degree ``rest``; ``forms``: the
    distinct probabilities used."""

    factors: Monomial
    rest: int
    denominator: Monomial
    forms: frozenset[Key]

    def degree(self) -> int:
        """The degree that decides whether the expression vanishes: ``R``'s — the key factors are
        probabilities, positive on every model — and any divisor's kept as a key (it must not
        vanish either)."""
        divisors = [key[2] for key in (*self.factors, *self.denominator) if not isinstance(key[0], int)]
        return max([self.rest, *divisors])

    @staticmethod
    def of(e: Expr, forms: _Forms, changed: frozenset[int]) -> _Count:
        if isinstance(e, (Prob, Expect)):
            return _Count._term(e, forms, changed)
        if isinstance(e, Num):
            return _NOTHING
        if isinstance(e, Neg):
            return _Count.of(e.arg, forms, changed)
        if isinstance(e, Add):
            return _sum([_Count.of(t, forms, changed) for t in e.terms])
        if isinstance(e, Mul):
            parts = [_Count.of(f, forms, changed) for f in e.factors]
            return _reduced(
                _product(*(p.factors for p in parts)),
                sum(p.rest for p in parts),
                _product(*(p.denominator for p in parts)),
                frozenset().union(*(p.forms for p in parts)),
            )
        if isinstance(e, Div):  # (K1 * R1 / D1) / (K2 * R2 / D2) = K1 * D2 * R1 / (D1 * K2 * R2)
            num, den = _Count.of(e.num, forms, changed), _Count.of(e.den, forms, changed)
            divisor: Monomial = {(e.den, (), den.rest): 1} if den.rest else {}
            return _reduced(
                _product(num.factors, den.denominator),
                num.rest,
                _product(num.denominator, den.factors, divisor),
                num.forms | den.forms,
            )
        if isinstance(e, Sum):  # one term per value: the keys that mention the index differ between them
            body = _Count.of(e.body, forms, changed)
            keys = len(body.factors) + len(body.denominator) + len(body.forms)
            charge("bounding the latent values", PYTHON_ENTRIES * keys * forms._structure.domain(e.var))
            bound = [
                _Count(
                    {_bind(forms, e.index, k, j): p for k, p in body.factors.items()},
                    body.rest,
                    {_bind(forms, e.index, k, j): p for k, p in body.denominator.items()},
                    frozenset(_bind(forms, e.index, k, j) for k in body.forms),
                )
                for j in range(forms._structure.domain(e.var))
            ]
            return _sum(bound)
        raise TypeError(f"no degree for {type(e).__name__}")

    @staticmethod
    def _term(e: Prob | Expect, forms: _Forms, changed: frozenset[int]) -> _Count:
        numerators, denominator = forms.terms[e]
        if numerators[0] not in changed:  # the denominator's variables are among the numerator's
            return _NOTHING
        keys: frozenset[Key] = frozenset((n, (), 1) for n in numerators)
        factors: Monomial
        factors, rest = ({next(iter(keys)): 1}, 0) if len(keys) == 1 else ({}, 1)  # an expectation sums its values
        if denominator is None or denominator not in changed:
            return _Count(factors, rest, {}, keys)
        condition: Key = (denominator, (), 1)
        return _Count(factors, rest, {condition: 1}, keys | {condition})


_NOTHING = _Count({}, 0, {}, frozenset())


def _sum(parts: list[_Count]) -> _Count:
    """``sum(N_i / D_i)`` over the least common multiple ``L`` of the ``D_i``: each numerator times
    ``L / D_i``, their common keys kept as factors, the rest of degree at most the largest rest."""
    if len(parts) == 1:
        return parts[0]
    common = _lcm(*(p.denominator for p in parts))
    scaled = [_product(p.factors, _quotient(common, p.denominator)) for p in parts]
    shared = {k: min(s.get(k, 0) for s in scaled) for k in scaled[0]}
    shared = {k: v for k, v in shared.items() if v}
    rest = max(_deg(_quotient(s, shared)) + p.rest for s, p in zip(scaled, parts, strict=True))
    return _reduced(shared, rest, common, frozenset().union(*(p.forms for p in parts)))


def _reduced(factors: Monomial, rest: int, denominator: Monomial, forms: frozenset[Key]) -> _Count:
    """The count with the keys common to numerator factors and denominator cancelled."""
    common = {k: min(p, denominator[k]) for k, p in factors.items() if k in denominator}
    return _Count(_quotient(factors, common), rest, _quotient(denominator, common), forms)


def _product(*monomials: Monomial) -> Monomial:
    result: Monomial = {}
    for monomial in monomials:
        for key, power in monomial.items():
            result[key] = result.get(key, 0) + power
    return result


def _quotient(monomial: Monomial, divisor: Monomial) -> Monomial:
    """``monomial / divisor`` for a divisor that divides it."""
    return {k: p - divisor.get(k, 0) for k, p in monomial.items() if p - divisor.get(k, 0)}


def _deg(monomial: Monomial) -> int:
    return sum(power * key[2] for key, power in monomial.items())


def _lcm(*monomials: Monomial) -> Monomial:
    """The least common multiple of products of keys: each key to its highest power."""
    common: Monomial = {}
    for monomial in monomials:
        for key, power in monomial.items():
            common[key] = max(common.get(key, 0), power)
    return common


def _bind(forms: _Forms, index: str, key: Key, value: int) -> Key:
    """``key`` with the summation index ``index`` at ``value``, if it mentions that index unbound."""
    what, bound, degree = key
    free = forms.free[what] if isinstance(what, int) else free_indices(what)
    if index not in free:
        return key
    for name, _ in bound:
        if name == index:
            return key
    return what, bound + ((index, value),), degree
