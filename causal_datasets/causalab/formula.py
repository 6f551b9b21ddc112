"""Read a hypothesis' frequency mechanism: coefficient names and a safe evaluator of ``freq_equation``.

Coefficient names: ``base`` (intercept), ``c_<P>`` (linear); in the hard-quadratic family, as the
authors' step prompt names them, ``c_<P>_1`` the coefficient of ``P^2`` and ``c_<P>_2`` that of ``P``
(their task text's ``c2_<P>`` / ``c1_<P>`` mean the same two and are read too). ``coeff_``, ``k_`` and
``w_`` prefixes are accepted as well.
The equation is evaluated with :mod:`ast` (numbers, names, ``+ - * / ^ **`` and parentheses only);
names resolve to coefficients first, then to (normalized) property values.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping
from typing import Literal

from causal_datasets.causalab.dsl import Hypothesis
from causal_datasets.causalab.properties import normalize_name

TermKind = Literal["linear", "quadratic"]
_COEFFICIENT = re.compile(r"^(?:c|coeff|k|w)_(?P<prop>.+?)(?:_(?P<order>[12]))?$", re.IGNORECASE)
_POWER_PREFIXED = re.compile(r"^c(?P<power>[12])_(?P<prop>.+)$", re.IGNORECASE)
#: the order suffix of ``c_<P>_<order>``: 1 names the squared term, 2 the linear one (the authors' step prompt)
_ORDER_KIND: dict[str, TermKind] = {"1": "quadratic", "2": "linear"}
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}


class FormulaError(ValueError):
    """The equation cannot be evaluated (syntax, unknown name, disallowed construct)."""


def coefficient_terms(coefficients: Mapping[str, float]) -> dict[tuple[str, TermKind], float]:
    """``{(property, kind): value}`` for every readable, non-zero term coefficient (``base`` excluded)."""
    terms: dict[tuple[str, TermKind], float] = {}
    for name, value in coefficients.items():
        if value == 0:
            continue
        if powered := _POWER_PREFIXED.match(name.strip()):
            kind: TermKind = "quadratic" if powered["power"] == "2" else "linear"
            terms[(normalize_name(powered["prop"]), kind)] = value
        elif match := _COEFFICIENT.match(name.strip()):
            terms[(normalize_name(match["prop"]), _ORDER_KIND.get(match["order"] or "", "linear"))] = value
    return terms


def predict_frequency(hypothesis: Hypothesis, properties: Mapping[str, float]) -> float:
    """The hypothesis' frequency for a crystal: its equation if it has one, else the coefficient form."""
    if hypothesis.freq_equation.strip():
        return evaluate_equation(hypothesis.freq_equation, hypothesis.coefficients, properties)
    base = hypothesis.coefficients.get("base", 0.0)
    total = base
    for (prop, kind), value in coefficient_terms(hypothesis.coefficients).items():
        if prop not in properties:
            raise FormulaError(f"coefficient for unknown property {prop!r}")
        total += value * (properties[prop] ** 2 if kind == "quadratic" else properties[prop])
    return total


#: longest equation evaluated (a CausaLab mechanism has a handful of terms); longer is a FormulaError
MAX_EQUATION_CHARS = 2_000


def evaluate_equation(equation: str, coefficients: Mapping[str, float], properties: Mapping[str, float]) -> float:
    """Evaluate ``[lhs =] rhs`` with the given coefficients and property values."""
    if len(equation) > MAX_EQUATION_CHARS:
        raise FormulaError(f"the equation has {len(equation)} characters, more than {MAX_EQUATION_CHARS}")
    rhs = equation.split("=", 1)[1] if "=" in equation else equation
    try:
        tree = ast.parse(rhs.strip().replace("^", "**").replace("×", "*").replace("·", "*"), mode="eval")
        value = _eval(tree.body, coefficients, {normalize_name(k): v for k, v in properties.items()})
    except (SyntaxError, ValueError) as error:  # ValueError: e.g. a NUL character
        if isinstance(error, FormulaError):
            raise
        raise FormulaError(f"cannot parse {rhs.strip()[:80]!r}: {getattr(error, 'msg', error)}") from None
    except (RecursionError, MemoryError):
        raise FormulaError("the equation is nested too deeply") from None
    if not math.isfinite(value):
        raise FormulaError("the equation does not give a finite number")
    return value


def _eval(node: ast.AST, coefficients: Mapping[str, float], properties: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        try:
            return float(node.value)
        except OverflowError:
            raise FormulaError("a number too large for a float") from None
    if isinstance(node, ast.Name):
        if node.id in coefficients:
            return coefficients[node.id]
        name = normalize_name(node.id)
        if name in properties:
            return properties[name]
        raise FormulaError(f"unknown name {node.id!r} in the equation")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, coefficients, properties), _eval(node.right, coefficients, properties)
        try:
            result = _BINARY[type(node.op)](left, right)
        except (ZeroDivisionError, OverflowError) as error:
            raise FormulaError(str(error)) from None
        if isinstance(result, complex):  # e.g. (-8) ** 0.5
            raise FormulaError("the equation gives a complex number")
        return result
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand, coefficients, properties))
    raise FormulaError(f"construct not allowed in an equation: {ast.dump(node)[:60]}")
