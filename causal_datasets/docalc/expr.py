"""Causal expressions as frozen, hashable, canonically ordered values, and their two notations.

Every node normalizes itself on construction (sorted variable lists, flattened and sorted sums
and products, bound summation indices renamed to their variable), so two expressions that differ
only in the order of commutative parts are equal objects, and ``parse(to_text(e)) == e``. The
leaves' variables, values and counterfactual subscripts are :mod:`.atoms`.

The printers live here, as the base class's methods over one function per notation: the canonical
text (:func:`to_text`, ``e.text``) orders the factors and terms of the nodes being built, so it
belongs with them; LaTeX (:func:`to_latex`, ``e.to_latex()``, and ``_repr_latex_``, which notebooks
render) sits beside it. y0's DSL is a conversion (:mod:`.y0_dsl`), not a notation of these nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import wraps
from typing import TypeVar, cast

from causal_datasets.docalc.atoms import (
    Assign,
    Atom,
    Body,
    Potential,
    Subscript,
    Value,
    atom_text,
    body_text,
    conditions_text,
    latex_atom,
    latex_body,
    latex_conditions,
    latex_name,
    sorted_assigns,
    sorted_atoms,
)

_T = TypeVar("_T")


class Expr:
    """Base class of expression nodes: ``text`` is the canonical string (:func:`to_text`), ``to_latex()`` the
    LaTeX (:func:`to_latex`), which a notebook shows."""

    @property
    def text(self) -> str:
        found: str | None = self.__dict__.get("_text")  # memoized by hand: 3.11's cached_property takes a lock
        if found is None:
            found = self.__dict__["_text"] = to_text(self)
        return found

    def to_latex(self) -> str:
        return to_latex(self)

    def _repr_latex_(self) -> str:
        return f"${to_latex(self)}$"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, eq=True)
class Num(Expr):
    """A numeric constant (exact decimal)."""

    value: Fraction


@dataclass(frozen=True, eq=True)
class Prob(Expr):
    """``P(event | do(interventions), given)``; atoms of ``event``/``given`` may be counterfactual."""

    event: tuple[Atom, ...]
    do: tuple[Assign, ...] = ()
    given: tuple[Atom, ...] = ()

    def __post_init__(self) -> None:
        if not self.event:
            raise ValueError("a probability needs at least one event variable")
        object.__setattr__(self, "event", sorted_atoms(self.event))
        object.__setattr__(self, "do", sorted_assigns(self.do))
        object.__setattr__(self, "given", sorted_atoms(self.given))

    @property
    def is_interventional(self) -> bool:
        """True when no atom carries a counterfactual subscript (do-calculus applies)."""
        return not any(a.cf for a in self.event + self.given)


@dataclass(frozen=True, eq=True)
class Expect(Expr):
    """``E[c1*A1 + c2*A2 ... | do(...), given]``: A is a variable (value None) or an indicator ``Y=1``.

    Body terms are merged per atom and ordered positive first, then by atom.
    """

    body: Body
    do: tuple[Assign, ...] = ()
    given: tuple[Atom, ...] = ()

    def __post_init__(self) -> None:
        coefficients: dict[Atom, int] = {}
        for coef, atom in self.body:
            coefficients[atom] = coefficients.get(atom, 0) + coef
        ordered = sorted(coefficients.items(), key=lambda ac: (ac[1] < 0, ac[0].sort_key()))
        body = tuple((c, a) for a, c in ordered if c)
        if not body:
            raise ValueError("an expectation needs a non-zero body")
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "do", sorted_assigns(self.do))
        object.__setattr__(self, "given", sorted_atoms(self.given))


@dataclass(frozen=True, eq=True)
class Neg(Expr):
    arg: Expr


@dataclass(frozen=True, eq=True)
class Add(Expr):
    """n-ary sum, flattened; terms sorted with positive terms first."""

    terms: tuple[Expr, ...]

    def __post_init__(self) -> None:
        flat: list[Expr] = []
        for term in self.terms:
            if isinstance(term, Add):
                flat.extend(term.terms)
            elif isinstance(term, Neg) and isinstance(term.arg, Add):
                flat.extend(negate(t) for t in term.arg.terms)
            else:
                flat.append(term)
        if len(flat) < 2:
            raise ValueError("Add needs at least two terms; use add() to build sums")
        object.__setattr__(self, "terms", tuple(sorted(flat, key=_term_key)))


@dataclass(frozen=True, eq=True)
class Mul(Expr):
    """n-ary product, flattened and sorted; never contains a Neg (pulled out by :func:`mul`)."""

    factors: tuple[Expr, ...]

    def __post_init__(self) -> None:
        flat: list[Expr] = []
        for factor in self.factors:
            flat.extend(factor.factors if isinstance(factor, Mul) else (factor,))
        if len(flat) < 2:
            raise ValueError("Mul needs at least two factors; use mul() to build products")
        if any(isinstance(f, Neg) for f in flat):
            raise ValueError("Mul cannot hold a Neg; use mul()")
        object.__setattr__(self, "factors", tuple(sorted(flat, key=lambda f: f.text)))


@dataclass(frozen=True, eq=True)
class Div(Expr):
    num: Expr
    den: Expr


@dataclass(frozen=True, eq=True)
class Sum(Expr):
    """``\\sum_{var=index} body``: the index ranges over the values of ``var``.

    The index is renamed to the variable's own name whenever that captures nothing, so
    ``\\sum_{V1=v} P(V1=v)`` and ``\\sum_{V1} P(V1)`` are the same object.
    """

    var: str
    index: str
    body: Expr
    canonical: bool = field(default=True, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.canonical and self.index != self.var and self.var not in free_indices(self.body):
            object.__setattr__(self, "body", substitute(self.body, {self.index: self.var}))
            object.__setattr__(self, "index", self.var)


def _term_key(term: Expr) -> tuple[int, str]:
    return (1, term.arg.text) if isinstance(term, Neg) else (0, term.text)


# ---- smart constructors -------------------------------------------------------------------


def negate(e: Expr) -> Expr:
    if isinstance(e, Neg):
        return e.arg
    if isinstance(e, Add):
        return Add(tuple(negate(t) for t in e.terms))
    return Neg(e)


def add(*terms: Expr) -> Expr:
    """Sum of terms (a single term is returned as is)."""
    flat = [t for t in terms]
    return flat[0] if len(flat) == 1 else Add(tuple(flat))


def sub(a: Expr, b: Expr) -> Expr:
    return add(a, negate(b))


def mul(*factors: Expr) -> Expr:
    """Product with signs pulled out front: ``mul(-a, b) == -(a*b)``."""
    sign = 1
    plain: list[Expr] = []
    for f in factors:
        while isinstance(f, Neg):
            sign, f = -sign, f.arg
        plain.append(f)
    product = plain[0] if len(plain) == 1 else Mul(tuple(plain))
    return product if sign == 1 else Neg(product)


def div(num: Expr, den: Expr) -> Expr:
    sign = 1
    while isinstance(num, Neg):
        sign, num = -sign, num.arg
    while isinstance(den, Neg):
        sign, den = -sign, den.arg
    quotient = Div(num, den)
    return quotient if sign == 1 else Neg(quotient)


# ---- traversal helpers --------------------------------------------------------------------


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Neg):
        return (e.arg,)
    if isinstance(e, Add):
        return e.terms
    if isinstance(e, Mul):
        return e.factors
    if isinstance(e, Div):
        return (e.num, e.den)
    if isinstance(e, Sum):
        return (e.body,)
    return ()


def rebuild(e: Expr, new_children: tuple[Expr, ...]) -> Expr:
    """The node ``e`` with its children replaced (normalizing through the smart constructors)."""
    if isinstance(e, Neg):
        return negate(new_children[0])
    if isinstance(e, Add):
        return add(*new_children)
    if isinstance(e, Mul):
        return mul(*new_children)
    if isinstance(e, Div):
        return div(*new_children)
    if isinstance(e, Sum):
        return Sum(e.var, e.index, new_children[0])
    return e


def term_atoms(e: Prob | Expect) -> tuple[Atom, ...]:
    """Every atom of a leaf term, including the do-assignments as atoms."""
    body = e.event if isinstance(e, Prob) else tuple(a for _, a in e.body)
    return body + e.given + tuple(Atom(v, x) for v, x in e.do)


def _memoized(function: Callable[[Expr], _T]) -> Callable[[Expr], _T]:
    """Memoize a function of one expression on the expression itself (expressions are immutable;
    the value lives next to the cached ``text``, outside the compared fields)."""
    key = f"_memo_{function.__name__}"

    @wraps(function)
    def memoized(e: Expr) -> _T:
        found: _T | object = e.__dict__.get(key, _MISSING)
        if found is _MISSING:
            found = e.__dict__[key] = function(e)
        return cast(_T, found)  # what the key holds was stored by this wrapper

    return memoized


_MISSING = object()


@_memoized
def leaf_values(e: Expr) -> tuple[tuple[str, Value | None], ...]:
    """``(variable, value)`` for every variable occurrence, counterfactual subscripts included;
    a variable set to a nested counterfactual appears with the value None, followed by the
    nested subscript's own pairs."""
    if isinstance(e, (Prob, Expect)):
        return tuple(pair for atom in term_atoms(e) for pair in ((atom.var, atom.value), *_subscript_pairs(atom.cf)))
    return tuple(pair for child in children(e) for pair in leaf_values(child))


def _subscript_pairs(cf: Subscript) -> list[tuple[str, Value | None]]:
    pairs: list[tuple[str, Value | None]] = []
    for var, value in cf:
        if isinstance(value, Potential):
            pairs += [(var, None), (value.var, None), *_subscript_pairs(value.cf)]
        else:
            pairs.append((var, value))
    return pairs


@_memoized
def variables(e: Expr) -> frozenset[str]:
    """Names of all variables mentioned (summation variables included)."""
    names = {var for var, _ in leaf_values(e)}
    if isinstance(e, Sum):
        names.add(e.var)
    for child in children(e):
        names |= variables(child)
    return frozenset(names)


@_memoized
def free_indices(e: Expr) -> frozenset[str]:
    """Symbolic indices not bound by an enclosing sum."""
    if isinstance(e, Sum):
        return free_indices(e.body) - {e.index}
    if isinstance(e, (Prob, Expect)):
        return frozenset(x for _, x in leaf_values(e) if isinstance(x, str))
    return frozenset().union(*(free_indices(child) for child in children(e)))


def substitute(e: Expr, mapping: dict[str, Value]) -> Expr:
    """Replace free symbolic indices by other indices or constants."""
    if not mapping:
        return e
    if isinstance(e, (Prob, Expect)):

        def value(x: Value) -> Value:
            return mapping.get(x, x) if isinstance(x, str) else x

        def setting(x: Value | Potential) -> Value | Potential:
            return Potential(x.var, tuple((v, setting(y)) for v, y in x.cf)) if isinstance(x, Potential) else value(x)

        def atom(a: Atom) -> Atom:
            return Atom(a.var, None if a.value is None else value(a.value), tuple((v, setting(x)) for v, x in a.cf))

        do = tuple((v, value(x)) for v, x in e.do)
        given = tuple(atom(a) for a in e.given)
        if isinstance(e, Prob):
            return Prob(tuple(atom(a) for a in e.event), do, given)
        return Expect(tuple((c, atom(a)) for c, a in e.body), do, given)
    if isinstance(e, Sum):
        inner = {k: v for k, v in mapping.items() if k != e.index}
        return Sum(e.var, e.index, substitute(e.body, inner))
    return rebuild(e, tuple(substitute(c, mapping) for c in children(e)))


def bound_apart(e: Expr) -> Expr:
    """``e`` with every summation index that is also used outside its sum (free in ``e``, or bound by an
    enclosing sum) renamed with primes (``\\sum_{X=X'} P(X=X') ...`` in the front-door formula, whose ``X`` is
    free too): the same value, and the same object once parsed again, but no name means two things in print."""
    return _bound_apart(e, free_indices(e), variables(e) | free_indices(e))


def _bound_apart(e: Expr, taken: frozenset[str], used: frozenset[str]) -> Expr:
    if isinstance(e, Sum):
        index, body = e.index, e.body
        if index in taken:
            fresh = index + "'"
            while fresh in taken or fresh in used:
                fresh += "'"
            index, body = fresh, substitute(body, {index: fresh})
        return Sum(e.var, index, _bound_apart(body, taken | {index}, used | {index}), canonical=False)
    if not children(e):
        return e
    return rebuild(e, tuple(_bound_apart(child, taken, used) for child in children(e)))


def map_atoms(e: Expr, change: Callable[[Atom], Atom]) -> Expr:
    """``e`` with ``change(atom)`` in place of every event, condition and expectation atom."""
    if isinstance(e, Prob):
        return Prob(tuple(map(change, e.event)), e.do, tuple(map(change, e.given)))
    if isinstance(e, Expect):
        return Expect(tuple((c, change(a)) for c, a in e.body), e.do, tuple(map(change, e.given)))
    return rebuild(e, tuple(map_atoms(c, change) for c in children(e)))


@_memoized
def contains_counterfactual(e: Expr) -> bool:
    if isinstance(e, (Prob, Expect)):
        return any(a.cf for a in term_atoms(e))
    return any(contains_counterfactual(c) for c in children(e))


def is_observational(e: Expr) -> bool:
    """No ``do()`` and no counterfactual subscript anywhere in ``e``: a formula in observed probabilities."""
    if isinstance(e, (Prob, Expect)):
        return not e.do and not any(atom.cf for atom in term_atoms(e))
    return all(is_observational(child) for child in children(e))


# ---- the canonical text ---------------------------------------------------------------------

_ADD, _MUL, _UNARY = 1, 2, 3


def to_text(e: Expr) -> str:
    """The canonical text of ``e`` (no outer parentheses); operands reuse their cached ``text``,
    so printing a whole tree is linear in its size."""
    if isinstance(e, Num):
        return _number(e.value)
    if isinstance(e, Prob):
        return f"P({', '.join(atom_text(a) for a in e.event)}{conditions_text(e.do, e.given)})"
    if isinstance(e, Expect):
        return f"E[{body_text(e.body)}{conditions_text(e.do, e.given)}]"
    if isinstance(e, Neg):
        return f"-{_operand(e.arg, _UNARY)}"
    if isinstance(e, Add):
        return _terms(e, _operand)
    if isinstance(e, Mul):
        return " * ".join(_factor(f) for f in e.factors)
    if isinstance(e, Div):
        num = f"({e.num.text})" if isinstance(e.num, (Sum, Add)) else _operand(e.num, _MUL)
        den = e.den.text if isinstance(e.den, (Prob, Expect, Num)) else f"({e.den.text})"
        return f"{num} / {den}"
    if isinstance(e, Sum):
        binding = e.var if e.index == e.var else f"{e.var}={e.index}"
        body = f"({e.body.text})" if isinstance(e.body, Add) else _operand(e.body, _MUL)
        return f"\\sum_{{{binding}}} {body}"
    raise TypeError(f"cannot print {type(e).__name__}")


#: how tightly each operator binds; leaves (numbers, P(...), E[...]) are never bracketed
_LEVEL: dict[type[Expr], int] = {Add: _ADD, Mul: _MUL, Div: _MUL, Neg: _UNARY, Sum: _UNARY}


def _operand(e: Expr, context: int) -> str:
    """``e`` as an operand in a position binding at ``context``: bracketed if it binds more loosely."""
    return f"({e.text})" if _LEVEL.get(type(e), context) < context else e.text


def _terms(e: Add, operand: Callable[[Expr, int], str]) -> str:
    """The terms of a sum in either notation (``operand`` prints one): a negated term after a minus sign."""
    parts = [operand(e.terms[0], _ADD)]
    for term in e.terms[1:]:
        parts.append(f" - {operand(term.arg, _MUL)}" if isinstance(term, Neg) else f" + {operand(term, _ADD)}")
    return "".join(parts)


def _factor(f: Expr) -> str:
    return f"({f.text})" if isinstance(f, (Sum, Div)) else _operand(f, _MUL)


def _number(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    digits = 0
    scaled = value
    while scaled.denominator != 1:
        scaled *= 10
        digits += 1
        if digits > 64:  # the parser reads at most 60 digits: every parsed number prints
            raise ValueError(f"{value} has no finite decimal expansion")
    sign = "-" if scaled < 0 else ""
    magnitude = str(abs(scaled.numerator)).rjust(digits + 1, "0")
    return f"{sign}{magnitude[:-digits]}.{magnitude[-digits:]}"


# ---- LaTeX --------------------------------------------------------------------------------------


def to_latex(e: Expr) -> str:
    r"""``e`` in LaTeX math (no ``$``): ``P(Y = 1 \mid \mathrm{do}(X = 0))``, ``\sum_{Z}``, ``\frac{..}{..}``,
    ``\mathbb{E}[..]``; a name with a number is subscripted (``V2`` → ``V_{2}``), a longer one italic. Read
    only by people: the canonical text is what parses back."""
    if isinstance(e, Num):
        return _number(e.value)
    if isinstance(e, Prob):
        return rf"P({', '.join(latex_atom(a) for a in e.event)}{latex_conditions(e.do, e.given)})"
    if isinstance(e, Expect):
        return rf"\mathbb{{E}}[{latex_body(e.body)}{latex_conditions(e.do, e.given)}]"
    if isinstance(e, Neg):
        return f"-{_latex_operand(e.arg, _UNARY)}"
    if isinstance(e, Add):
        return _terms(e, _latex_operand)
    if isinstance(e, Mul):  # juxtaposed, a dot before a number; a sum is bracketed so its scope is clear
        factors = [rf"\left({to_latex(f)}\right)" if isinstance(f, Sum) else _latex_operand(f, _MUL) for f in e.factors]
        return "".join(
            f if i == 0 else (rf" \cdot {f}" if isinstance(e.factors[i], Num) else f" {f}")
            for i, f in enumerate(factors)
        )
    if isinstance(e, Div):
        return rf"\frac{{{to_latex(e.num)}}}{{{to_latex(e.den)}}}"
    if isinstance(e, Sum):
        binding = latex_name(e.var) if e.index == e.var else f"{latex_name(e.var)} = {latex_name(e.index)}"
        body = rf"\left({to_latex(e.body)}\right)" if isinstance(e.body, Add) else _latex_operand(e.body, _MUL)
        return rf"\sum_{{{binding}}} {body}"
    raise TypeError(f"cannot print {type(e).__name__}")


def _latex_operand(e: Expr, context: int) -> str:
    latex = to_latex(e)
    return rf"\left({latex}\right)" if _LEVEL.get(type(e), context) < context else latex
