"""Causal expressions as frozen, hashable, canonically ordered values.

Every node normalizes itself on construction (sorted variable lists, flattened and sorted sums
and products, bound summation indices renamed to their variable), so two expressions that differ
only in the order of commutative parts are equal objects, and ``parse(to_text(e)) == e``.

Values: an ``int`` is a constant; a ``str`` is a symbolic index (``Y=y``). A bare variable ``Y``
inside ``P(...)`` carries the index named after itself, so ``P(Y | X)`` is a function of the
values of Y and X. Inside ``E[...]`` a bare variable (value ``None``) is the random variable.
In a counterfactual subscript a value may also be a :class:`Potential`, a nested counterfactual:
``Y_{X=1, M_{X=0}}`` sets M to the value it would take under ``X=0``.
"""

from __future__ import annotations

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
        from causal_datasets.docalc.printer import potential_text

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
    """Base class of expression nodes; ``text`` is the canonical string (see :mod:`.printer`)."""

    @property
    def text(self) -> str:
        found = self.__dict__.get("_text")  # memoized by hand: 3.11's cached_property takes a lock
        if found is None:
            from causal_datasets.docalc.printer import to_text

            found = self.__dict__["_text"] = to_text(self)
        return found

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
