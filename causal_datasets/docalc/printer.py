"""Canonical text of an expression: one string per equal object, read back by :mod:`.parser`."""

from __future__ import annotations

from fractions import Fraction

from causal_datasets.docalc.expr import Add, Assign, Atom, Div, Expect, Expr, Mul, Neg, Num, Potential, Prob, Sum

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
        parts = [_operand(e.terms[0], _ADD)]
        for term in e.terms[1:]:
            if isinstance(term, Neg):
                parts.append(f" - {_operand(term.arg, _MUL)}")
            else:
                parts.append(f" + {_operand(term, _ADD)}")
        return "".join(parts)
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
