"""The leaves of causal expressions: variables with a value and an optional counterfactual subscript.

:class:`Atom` is one variable occurrence (``Y=1``, ``Y_{X=1}``), :class:`Potential` a nested
counterfactual used as a subscript value (``M_{X=0}`` in ``Y_{X=1, M_{X=0}}``). Both sort their
subscripts on construction, so their order never depends on how they were written. Their printing
in both notations (the canonical text and LaTeX) lives here too: :mod:`.expr` prints whole
expressions around these parts.

Values: an ``int`` is a constant; a ``str`` is a symbolic index (``Y=y``). A bare variable ``Y``
inside ``P(...)`` carries the index named after itself; inside ``E[...]`` a bare variable (value
``None``) is the random variable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

Value = int | str
Assign = tuple[str, Value]
#: a sort key of a value: its kind (none, constant, symbol, nested counterfactual), then the value
ValueKey = tuple[int, int | str]
#: the coefficients and atoms of an expectation's body
Body = tuple[tuple[int, "Atom"], ...]

_Set = TypeVar("_Set", bound="Value | Potential")


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


#: a counterfactual subscript: each variable set to a value or to a nested counterfactual
Subscript = tuple[tuple[str, Value | Potential], ...]


def value_key(value: Value | Potential | None) -> ValueKey:
    """Sort key that orders constants before symbols before nested counterfactuals (values of
    different kinds never compare directly)."""
    if value is None:
        return (0, 0)
    if isinstance(value, Potential):
        return (3, value.text)
    return (1, value) if isinstance(value, int) else (2, value)


def sorted_assigns(assigns: Iterable[tuple[str, _Set]]) -> tuple[tuple[str, _Set], ...]:
    """Assignments sorted by variable name then value; duplicates removed."""
    if type(assigns) is tuple and len(assigns) < 2:  # the common case, already in order
        return assigns
    return tuple(sorted(dict.fromkeys(assigns), key=lambda a: (a[0], value_key(a[1]))))


@dataclass(frozen=True)
class Atom:
    """A variable, optionally counterfactual (``Y_{X=1}``), with a value (``None`` = the variable itself in E[...])."""

    var: str
    value: Value | None
    cf: Subscript = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "cf", sorted_assigns(self.cf))

    def sort_key(self) -> tuple[str, tuple[tuple[str, ValueKey], ...], ValueKey]:
        found: tuple[str, tuple[tuple[str, ValueKey], ...], ValueKey] | None = self.__dict__.get("_sort_key")
        if found is None:  # memoized like Expr.text: atoms are shared by many terms
            found = self.__dict__["_sort_key"] = (
                self.var,
                tuple((v, value_key(x)) for v, x in self.cf),
                value_key(self.value),
            )
        return found


def sorted_atoms(atoms: Iterable[Atom]) -> tuple[Atom, ...]:
    if type(atoms) is tuple and len(atoms) < 2:  # the common case, already in order
        return atoms
    return tuple(sorted(dict.fromkeys(atoms), key=Atom.sort_key))


# ---- the canonical text ---------------------------------------------------------------------


def _value(var: str, value: Value | Potential) -> str:
    if isinstance(value, Potential):  # M_{X=0} sets M to its own counterfactual value: no "M=" needed
        return potential_text(value) if value.var == var else f"{var}={potential_text(value)}"
    return var if value == var else f"{var}={value}"


def potential_text(p: Potential) -> str:
    return f"{p.var}_{{{_assigns(p.cf)}}}"


def _assigns(assigns: Iterable[tuple[str, Value | Potential]]) -> str:
    return ", ".join(_value(v, x) for v, x in assigns)


def _subscripted(a: Atom) -> str:
    return a.var + (f"_{{{_assigns(a.cf)}}}" if a.cf else "")


def atom_text(a: Atom) -> str:
    """An atom in a probability: ``Y``, ``Y=1``, ``Y_{X=1}=y``."""
    name = _subscripted(a)
    return name if a.value == a.var else f"{name}={a.value}"


def _random_variable(a: Atom) -> str:
    name = _subscripted(a)
    return name if a.value is None else f"{name}={a.value}"


def _signed_terms(body: Body, atom: Callable[[Atom], str], times: str) -> str:
    """The terms of an expectation's body in either notation: ``atom`` prints one, ``times`` follows a
    coefficient other than 1."""
    parts = []
    for i, (coef, a) in enumerate(body):
        magnitude = "" if abs(coef) == 1 else f"{abs(coef)}{times}"
        sign = ("-" if coef < 0 else "") if i == 0 else (" - " if coef < 0 else " + ")
        parts.append(f"{sign}{magnitude}{atom(a)}")
    return "".join(parts)


def body_text(body: Body) -> str:
    """An expectation's body: ``Y - 2*Z=1``."""
    return _signed_terms(body, _random_variable, "*")


def conditions_text(do: tuple[Assign, ...], given: tuple[Atom, ...]) -> str:
    """`` | do(X=1), Z``, or nothing without conditions."""
    parts = ([f"do({_assigns(do)})"] if do else []) + [atom_text(a) for a in given]
    return f" | {', '.join(parts)}" if parts else ""


# ---- LaTeX --------------------------------------------------------------------------------------

_NUMBERED = re.compile(r"([A-Za-z])(\d+)('*)")


def latex_name(name: str) -> str:
    """A variable's name in LaTeX: ``X`` as it is, ``V2`` as ``V_{2}``, ``Smoking`` as ``\\mathit{Smoking}``
    (primes stay outside)."""
    if numbered := _NUMBERED.fullmatch(name):
        letter, digits, primes = numbered.groups()
        return f"{letter}_{{{digits}}}{primes}"
    stem = name.rstrip("'")
    return name if len(stem) == 1 else rf"\mathit{{{stem}}}{name[len(stem) :]}"


def _latex_subscripted(var: str, assigns: Subscript) -> str:
    name = latex_name(var)
    if not assigns:
        return name
    return f"{{{name}}}_{{{_latex_assigns(assigns)}}}" if "_" in name else f"{name}_{{{_latex_assigns(assigns)}}}"


def _latex_value(var: str, value: Value | Potential) -> str:
    if isinstance(value, Potential):
        shown = _latex_subscripted(value.var, value.cf)
        return shown if value.var == var else f"{latex_name(var)} = {shown}"
    if value == var:
        return latex_name(var)
    return f"{latex_name(var)} = {value if isinstance(value, int) else latex_name(value)}"


def _latex_assigns(assigns: Iterable[tuple[str, Value | Potential]]) -> str:
    return ", ".join(_latex_value(v, x) for v, x in assigns)


def latex_atom(a: Atom) -> str:
    """An atom in LaTeX: ``Y = 1``, ``Y_{X = 1}``."""
    name = _latex_subscripted(a.var, a.cf)
    if a.value is None or a.value == a.var:
        return name
    return f"{name} = {a.value if isinstance(a.value, int) else latex_name(a.value)}"


def latex_body(body: Body) -> str:
    """An expectation's body in LaTeX: ``Y - 2 Z = 1``."""
    return _signed_terms(body, latex_atom, " ")


def latex_conditions(do: tuple[Assign, ...], given: tuple[Atom, ...]) -> str:
    r"""`` \mid \mathrm{do}(X = 1), Z``, or nothing without conditions."""
    parts = ([rf"\mathrm{{do}}({_latex_assigns(do)})"] if do else []) + [latex_atom(a) for a in given]
    return rf" \mid {', '.join(parts)}" if parts else ""
