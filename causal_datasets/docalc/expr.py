"""Causal expressions as frozen, hashable, canonically ordered values, and their two notations.

Every node normalizes itself on construction (sorted variable lists, flattened and sorted sums
and products, bound summation indices renamed to their variable), so two expressions that differ
only in the order of commutative parts are equal objects, and ``parse(to_text(e)) == e``.

The printers live here, as the base class's methods over one function per notation: the canonical
text (:func:`to_text`, ``e.text``) orders the factors and terms of the nodes being built, so it
belongs with them; LaTeX (:func:`to_latex`, ``e.to_latex()``, and ``_repr_latex_``, which notebooks
render) sits beside it. y0's DSL is a conversion (:mod:`.y0_dsl`), not a notation of these nodes.

Values: an ``int`` is a constant; a ``str`` is a symbolic index (``Y=y``). A bare variable ``Y``
inside ``P(...)`` carries the index named after itself, so ``P(Y | X)`` is a function of the
values of Y and X. Inside ``E[...]`` a bare variable (value ``None``) is the random variable.
In a counterfactual subscript a value may also be a :class:`Potential`, a nested counterfactual:
``Y_{X=1, M_{X=0}}`` sets M to the value it would take under ``X=0``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import wraps

Value = int | str
Assign = tuple[str, Value]


@dataclass(frozen=True)
class Potential:
    """A nested counterfactual used as a subscript value: the value ``var`` takes under ``cf``
    (``M_{X=0}`` in ``Y_{X=1, M_{X=0}}``, the natural direct effect's world). Within a term the
    term's own ``do(...)`` applies to it as well."""

    var: str
    cf: tuple[tuple[str, Value | Potential], ...]

    def __post_init__(self) -> None:
        if not self.cf:
            raise ValueError("a nested counterfactual needs a subscript")
        object.__setattr__(self, "cf", sorted_assigns(self.cf))

    @property
    def text(self) -> str:
        return potential_text(self)


def value_key(value: Value | Potential | None) -> tuple[int, int | str]:
    """Sort key that orders constants before symbols before nested counterfactuals (values of
    different kinds never compare directly)."""
    if value is None:
        return (0, 0)
    if isinstance(value, Potential):
        return (3, value.text)
    return (1, value) if isinstance(value, int) else (2, value)


def sorted_assigns(assigns) -> tuple[Assign, ...]:
    """Assignments sorted by variable name then value; duplicates removed."""
    if type(assigns) is tuple and len(assigns) < 2:  # the common case, already in order
        return assigns
    return tuple(sorted(dict.fromkeys(assigns), key=lambda a: (a[0], value_key(a[1]))))


@dataclass(frozen=True)
class Atom:
    """A variable, optionally counterfactual (``Y_{X=1}``), with a value (``None`` = the variable itself in E[...])."""

    var: str
    value: Value | None
    cf: tuple[tuple[str, Value | Potential], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "cf", sorted_assigns(self.cf))

    def sort_key(self) -> tuple:
        found = self.__dict__.get("_sort_key")  # memoized like Expr.text: atoms are shared by many terms
        if found is None:
            found = self.__dict__["_sort_key"] = (
                self.var,
                tuple((v, value_key(x)) for v, x in self.cf),
                value_key(self.value),
            )
        return found


def sorted_atoms(atoms) -> tuple[Atom, ...]:
    if type(atoms) is tuple and len(atoms) < 2:  # the common case, already in order
        return atoms
    return tuple(sorted(dict.fromkeys(atoms), key=Atom.sort_key))


class Expr:
    """Base class of expression nodes: ``text`` is the canonical string (:func:`to_text`), ``to_latex()`` the
    LaTeX (:func:`to_latex`), which a notebook shows."""

    @property
    def text(self) -> str:
        found = self.__dict__.get("_text")  # memoized by hand: 3.11's cached_property takes a lock
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

    body: tuple[tuple[int, Atom], ...]
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


def constant_value(e: Expr) -> Fraction | None:
    """The exact value of an expression made of numbers only; None if it holds a term or a
    summation, or divides by zero."""
    if isinstance(e, Num):
        return e.value
    if not isinstance(e, (Neg, Add, Mul, Div)):
        return None
    parts = [constant_value(child) for child in children(e)]
    if any(part is None for part in parts):
        return None
    if isinstance(e, Neg):
        return -parts[0]
    if isinstance(e, Add):
        return sum(parts, Fraction(0))
    if isinstance(e, Mul):
        product = Fraction(1)
        for part in parts:
            product *= part
        return product
    numerator, denominator = parts
    return None if denominator == 0 else numerator / denominator


def term_atoms(e: Prob | Expect) -> tuple[Atom, ...]:
    """Every atom of a leaf term, including the do-assignments as atoms."""
    body = e.event if isinstance(e, Prob) else tuple(a for _, a in e.body)
    return body + e.given + tuple(Atom(v, x) for v, x in e.do)


def _memoized(function):
    """Memoize a function of one expression on the expression itself (expressions are immutable;
    the value lives next to the cached ``text``, outside the compared fields)."""
    key = f"_memo_{function.__name__}"

    @wraps(function)
    def memoized(e: Expr):
        found = e.__dict__.get(key, _MISSING)
        if found is _MISSING:
            found = e.__dict__[key] = function(e)
        return found

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


def _subscript_pairs(cf) -> list[tuple[str, Value | None]]:
    pairs = []
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

        def value(x):
            if isinstance(x, Potential):
                return Potential(x.var, tuple((v, value(y)) for v, y in x.cf))
            return mapping.get(x, x) if isinstance(x, str) else x

        def atom(a: Atom) -> Atom:
            return Atom(a.var, value(a.value), tuple((v, value(x)) for v, x in a.cf))

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


def map_atoms(e: Expr, change) -> Expr:
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
        return f"P({', '.join(_atom(a) for a in e.event)}{_conditions(e.do, e.given)})"
    if isinstance(e, Expect):
        return f"E[{_body(e.body)}{_conditions(e.do, e.given)}]"
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
_LEVEL = {Add: _ADD, Mul: _MUL, Div: _MUL, Neg: _UNARY, Sum: _UNARY}


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


def _value(var: str, value) -> str:
    if isinstance(value, Potential):  # M_{X=0} sets M to its own counterfactual value: no "M=" needed
        return potential_text(value) if value.var == var else f"{var}={potential_text(value)}"
    return var if value == var else f"{var}={value}"


def potential_text(p: Potential) -> str:
    return f"{p.var}_{{{_assigns(p.cf)}}}"


def _assigns(assigns: tuple[Assign, ...]) -> str:
    return ", ".join(_value(v, x) for v, x in assigns)


def _atom(a: Atom) -> str:
    name = a.var + (f"_{{{_assigns(a.cf)}}}" if a.cf else "")
    return name if a.value == a.var else f"{name}={a.value}"


def _body(body: tuple[tuple[int, Atom], ...]) -> str:
    parts = []
    for i, (coef, atom) in enumerate(body):
        name = atom.var + (f"_{{{_assigns(atom.cf)}}}" if atom.cf else "")
        rv = name if atom.value is None else f"{name}={atom.value}"
        magnitude = "" if abs(coef) == 1 else f"{abs(coef)}*"
        sign = ("-" if coef < 0 else "") if i == 0 else (" - " if coef < 0 else " + ")
        parts.append(f"{sign}{magnitude}{rv}")
    return "".join(parts)


def _conditions(do: tuple[Assign, ...], given: tuple[Atom, ...]) -> str:
    parts = ([f"do({_assigns(do)})"] if do else []) + [_atom(a) for a in given]
    return f" | {', '.join(parts)}" if parts else ""


# ---- LaTeX --------------------------------------------------------------------------------------


def to_latex(e: Expr) -> str:
    r"""``e`` in LaTeX math (no ``$``): ``P(Y = 1 \mid \mathrm{do}(X = 0))``, ``\sum_{Z}``, ``\frac{..}{..}``,
    ``\mathbb{E}[..]``; a name with a number is subscripted (``V2`` → ``V_{2}``), a longer one italic. Read
    only by people: the canonical text is what parses back."""
    if isinstance(e, Num):
        return _number(e.value)
    if isinstance(e, Prob):
        return rf"P({', '.join(_latex_atom(a) for a in e.event)}{_latex_conditions(e.do, e.given)})"
    if isinstance(e, Expect):
        return rf"\mathbb{{E}}[{_latex_body(e.body)}{_latex_conditions(e.do, e.given)}]"
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


_NUMBERED = re.compile(r"([A-Za-z])(\d+)('*)")


def latex_name(name: str) -> str:
    """A variable's name in LaTeX: ``X`` as it is, ``V2`` as ``V_{2}``, ``Smoking`` as ``\\mathit{Smoking}``
    (primes stay outside)."""
    if numbered := _NUMBERED.fullmatch(name):
        letter, digits, primes = numbered.groups()
        return f"{letter}_{{{digits}}}{primes}"
    stem = name.rstrip("'")
    return name if len(stem) == 1 else rf"\mathit{{{stem}}}{name[len(stem) :]}"


def _latex_operand(e: Expr, context: int) -> str:
    latex = to_latex(e)
    return rf"\left({latex}\right)" if _LEVEL.get(type(e), context) < context else latex


def _latex_subscripted(var: str, assigns: tuple[Assign, ...]) -> str:
    name = latex_name(var)
    if not assigns:
        return name
    return f"{{{name}}}_{{{_latex_assigns(assigns)}}}" if "_" in name else f"{name}_{{{_latex_assigns(assigns)}}}"


def _latex_value(var: str, value) -> str:
    if isinstance(value, Potential):
        shown = _latex_subscripted(value.var, value.cf)
        return shown if value.var == var else f"{latex_name(var)} = {shown}"
    if value == var:
        return latex_name(var)
    return f"{latex_name(var)} = {value if isinstance(value, int) else latex_name(value)}"


def _latex_assigns(assigns: tuple[Assign, ...]) -> str:
    return ", ".join(_latex_value(v, x) for v, x in assigns)


def _latex_atom(a: Atom) -> str:
    name = _latex_subscripted(a.var, a.cf)
    if a.value is None or a.value == a.var:
        return name
    return f"{name} = {a.value if isinstance(a.value, int) else latex_name(a.value)}"


def _latex_body(body: tuple[tuple[int, Atom], ...]) -> str:
    parts = []
    for i, (coef, atom) in enumerate(body):
        magnitude = "" if abs(coef) == 1 else f"{abs(coef)} "
        sign = ("-" if coef < 0 else "") if i == 0 else (" - " if coef < 0 else " + ")
        parts.append(f"{sign}{magnitude}{_latex_atom(atom)}")
    return "".join(parts)


def _latex_conditions(do: tuple[Assign, ...], given: tuple[Atom, ...]) -> str:
    parts = ([rf"\mathrm{{do}}({_latex_assigns(do)})"] if do else []) + [_latex_atom(a) for a in given]
    return rf" \mid {', '.join(parts)}" if parts else ""


_TEXT_SPECIALS = re.compile(r"[\\{}$&#%^_~]")


def latex_chain(start: Expr, steps: Iterable[tuple[Expr, str]]) -> str:
    r"""A chain of equal expressions (a proof, a derivation) as one LaTeX ``aligned`` block: ``start``, then
    one ``= expression`` per step with its reason as text (characters that text mode reads as commands
    left out)."""
    lines = [f"& {to_latex(start)}"]
    lines += [rf"&= {to_latex(e)} && \text{{{_TEXT_SPECIALS.sub(' ', reason)}}}" for e, reason in steps]
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"
