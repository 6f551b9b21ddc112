"""y0's DSL and this package's expressions, both ways: y0's text without y0, its objects where y0 is installed.

y0 (https://github.com/y0-causal-inference/y0, the ``y0`` extra) writes an estimand in its Python DSL,
the text its ``to_y0()`` prints: ``P(Y | X)``, ``P[X](Y | Z)`` (``P(Y | do(X), Z)``), ``P(Y @ -X | Z)``
(a counterfactual ``Y_{X}`` beside a factual Z), ``Sum[Z, W](...)``, ``*``, ``/``, ``One()``, ``Zero()``.

* :func:`to_y0_text` prints an expression in it; :func:`from_y0_text` reads it with this module's own
  parser, linear in the text and without ``eval`` (y0's ``parse_y0`` evaluates the string as Python), so
  it needs no y0 and is safe on any string.
* :func:`to_y0` and :func:`from_y0` convert to and from y0's objects (the ``y0`` extra).

Values. y0 names a variable's value by the variable (``Y`` or ``-Y``: its value y; ``+Y``: another value
y*); here that is the symbolic index of the variable's own name (``Y``, as ``P(Y | X)`` writes it) and
the index ``Y'``. Constants, other indices, nested counterfactuals, sums of terms (``+``, ``-``),
expectations and numbers other than 0 and 1 have no y0 counterpart: converting them raises
:class:`Y0ConversionError`, as do y0's Q factors and population probabilities. Reading y0, ``-Y``
and ``Y`` are the same value, and a term whose every variable carries the same interventions is
read as an interventional term (y0 prints both as ``P[X](...)``): ``P(Y_{X})`` and ``P(Y | do(X))``
are one y0 expression.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType
from typing import Any, Generic, NamedTuple, Protocol, TypeVar, cast

from causal_datasets.docalc.atoms import Atom, Potential, Subscript, Value
from causal_datasets.docalc.expr import Div, Expr, Mul, Num, Prob, Sum, div, mul
from causal_datasets.docalc.parser import MAX_DEPTH, MAX_LENGTH, ExprParseError
from causal_datasets.errors import MissingExtra


class Y0ConversionError(ValueError):
    """The expression (or y0's) uses something the other side cannot write."""


#: y0's DSL names that are not variables
Y0_KEYWORDS = frozenset(
    {"P", "PROB", "Prob", "PROBABILITY", "Probability", "Sum", "SUM", "Q", "QFactor", "PP", "One", "Zero"}
)
_PROBABILITY = frozenset({"P", "PROB", "Prob", "PROBABILITY", "Probability"})
_SUM = frozenset({"Sum", "SUM"})
_OUR_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")


# ---- this package → y0's text -------------------------------------------------------------------


def to_y0_text(e: Expr) -> str:
    """``e`` in y0's DSL (what y0's ``to_y0()`` prints for the same expression, up to spacing and brackets)."""
    if isinstance(e, Div):
        return f"{_y0_operand(e.num)} / {_y0_operand(e.den)}"
    if isinstance(e, Mul):
        return " * ".join(_y0_operand(f) for f in e.factors)
    return _y0_operand(e)


def _y0_operand(e: Expr) -> str:
    if isinstance(e, (Div, Mul)):
        return f"({to_y0_text(e)})"
    if isinstance(e, Num) and e.value in (0, 1):
        return "One()" if e.value == 1 else "Zero()"
    if isinstance(e, Sum):
        if e.index != e.var:
            raise Y0ConversionError(f"y0 sums over a variable's own values, not over the index {e.index!r}: {e.text}")
        ranges, body = [e.var], e.body
        # one Sum[...] over the inner sums whose variables come later in y0's (sorted) order, so that the
        # text reads back as the same nesting
        while isinstance(body, Sum) and body.index == body.var and body.var > ranges[-1]:
            ranges.append(body.var)
            body = body.body
        return f"Sum[{', '.join(map(_y0_name, ranges))}]({to_y0_text(body)})"
    if isinstance(e, Prob):
        return _y0_probability(e)
    raise Y0ConversionError(
        f"y0's DSL has no {type(e).__name__} (it writes products, quotients and sums of "
        f"probabilities, One() and Zero()): {e.text}"
    )


def _y0_probability(p: Prob) -> str:
    if p.do and not any(a.cf for a in p.event + p.given):  # every variable in the same world: P[X](...)
        interventions = ",".join(_y0_intervention(var, value, plain=True) for var, value in p.do)
        return f"P[{interventions}]({_y0_distribution(p.event, p.given, ())})"
    return f"P({_y0_distribution(p.event, p.given, p.do)})"


def _y0_distribution(event: tuple[Atom, ...], given: tuple[Atom, ...], do: Subscript) -> str:
    children = ", ".join(_y0_variable(a, do) for a in event)
    return children + (f" | {', '.join(_y0_variable(a, do) for a in given)}" if given else "")


def _y0_variable(atom: Atom, do: Subscript) -> str:
    """A variable of a term; the term's ``do(...)`` applies to it (y0 writes it on each counterfactual variable)."""
    name = _y0_name(atom.var) if atom.value == atom.var else _y0_value(atom.var, atom.value)
    subscript = {**dict(do), **dict(atom.cf)}  # the atom's own subscript wins where both set a variable
    if not subscript:
        return name
    interventions = [_y0_intervention(var, subscript[var]) for var in sorted(subscript)]
    return f"{name} @ {interventions[0]}" if len(interventions) == 1 else f"{name} @ ({', '.join(interventions)})"


def _y0_intervention(var: str, value: Value | Potential, plain: bool = False) -> str:
    """``-X`` (X's own value; plain ``X`` inside ``P[...]``, as y0 prints it) or ``+X`` (the value ``X'``)."""
    if value == var:
        return _y0_name(var) if plain else f"-{_y0_name(var)}"
    if value == f"{var}'":
        return f"+{_y0_name(var)}"
    raise Y0ConversionError(f"y0 sets {var} to its value or another (X or X'), not to {value!r}")


def _y0_value(var: str, value: Value | None) -> str:
    if value == f"{var}'":
        return f"+{_y0_name(var)}"
    raise Y0ConversionError(f"y0 writes a variable's value symbolically ({var} or {var}'), not {var}={value}")


def _y0_name(name: str) -> str:
    if not _OUR_NAME.fullmatch(name) or name in Y0_KEYWORDS:
        raise Y0ConversionError(f"{name!r} is not a variable name y0's DSL can write")
    return name


# ---- y0's text → anything (this package's expressions, y0's objects) ----------------------------


class _Variable(NamedTuple):
    name: str
    star: bool | None  # None: Y; False: -Y; True: +Y (another value)
    interventions: tuple[tuple[str, bool], ...]  # (name, star), sorted


#: what a builder builds: this package's expressions, or y0's objects
_B = TypeVar("_B")
_T = TypeVar("_T")
#: an object of y0's DSL (y0 has no type information: its objects are arbitrary to a type checker)
Y0Object = Any


class _Builder(Protocol[_B]):
    def probability(
        self, children: list[_Variable], parents: list[_Variable], interventions: tuple[tuple[str, bool], ...]
    ) -> _B: ...
    def sum(self, ranges: list[str], body: _B) -> _B: ...
    def product(self, factors: list[_B]) -> _B: ...  # one factor: the factor itself
    def fraction(self, numerator: _B, denominator: _B) -> _B: ...
    def number(self, one: bool) -> _B: ...


class _Built(NamedTuple, Generic[_B]):
    value: _B
    height: int  # of its tree: the levels of products, quotients and sums above its probabilities


_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>[-+*/()\[\]|,@~]))")


@dataclass
class _Reader(Generic[_B]):
    """Recursive descent over y0's text (the grammar of what y0 prints), building with ``builder``."""

    text: str
    builder: _Builder[_B]
    tokens: list[tuple[str, str, int]]
    at: int = 0
    depth: int = 0

    def fail(self, message: str) -> ExprParseError:
        return ExprParseError(message, self.text, self.tokens[self.at][2])

    def peek(self) -> str:
        return self.tokens[self.at][1]

    def take(self, expected: str | None = None) -> str:
        kind, token, _ = self.tokens[self.at]
        if expected is not None and token != expected:
            raise self.fail(f"expected {expected!r}, found {token or 'the end'!r}")
        if kind == "end":
            raise self.fail("unexpected end")
        self.at += 1
        return token

    def name(self) -> str:
        if self.tokens[self.at][0] != "name":
            raise self.fail("expected a variable name")
        return self.take()

    def expression(self) -> _Built[_B]:
        """factor (('*' | '/') factor)*, left to right as Python reads it: ``a * b / c * d`` is ``((a * b) / c) * d``;
        the factors of a run of ``*`` are built into one product (linear, not one product per operator)."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"brackets nested more than {MAX_DEPTH} deep")
        factors = [self.factor()]
        while self.peek() in ("*", "/"):
            if self.take() == "*":
                factors.append(self.factor())
            else:
                numerator = self.product(factors)
                denominator = self.factor()
                factors = [
                    self.built(
                        self.builder.fraction(numerator.value, denominator.value),
                        max(numerator.height, denominator.height) + 1,
                    )
                ]
        self.depth -= 1
        return self.product(factors)

    def product(self, factors: list[_Built[_B]]) -> _Built[_B]:
        if len(factors) == 1:
            return factors[0]
        return self.built(self.builder.product([f.value for f in factors]), max(f.height for f in factors) + 1)

    def built(self, value: _B, height: int) -> _Built[_B]:
        """``value``, unless its tree is more than :data:`~.parser.MAX_DEPTH` levels deep (the parser's limit on
        nested brackets and on nested sums: printing, comparing and evaluating recurse along the tree)."""
        if height > MAX_DEPTH:
            raise self.fail(f"quotients and sums nested more than {MAX_DEPTH} levels deep")
        return _Built(value, height)

    def factor(self) -> _Built[_B]:
        if self.peek() == "(":
            self.take("(")
            inner = self.expression()
            self.take(")")
            return inner
        head = self.name()
        if head in _PROBABILITY:
            return _Built(self.probability(), 0)
        if head in _SUM:
            ranges = self.listed(self.name) if self.peek() == "[" else []
            self.take("(")
            body = self.expression()
            self.take(")")
            return self.built(self.builder.sum(ranges, body.value), body.height + len(ranges)) if ranges else body
        if head in ("One", "Zero"):
            self.take("(")
            self.take(")")
            return _Built(self.builder.number(head == "One"), 0)
        if head in Y0_KEYWORDS:  # y0's Q factors and population probabilities
            position = self.tokens[self.at - 1][2]
            raise Y0ConversionError(f"y0's {head}[...] has no counterpart here (at position {position})")
        raise self.fail(f"expected P(...), Sum[...](...), One() or Zero(), found {head!r}")

    def listed(self, item: Callable[[], _T]) -> list[_T]:
        self.take("[")
        items = [item()]
        while self.peek() == ",":
            self.take(",")
            items.append(item())
        self.take("]")
        return items

    def probability(self) -> _B:
        interventions = tuple(sorted(self.listed(self.intervention))) if self.peek() == "[" else ()
        self.take("(")
        children = [self.variable()]
        while self.peek() == ",":
            self.take(",")
            children.append(self.variable())
        parents = []
        if self.peek() == "|":
            self.take("|")
            parents.append(self.variable())
            while self.peek() == ",":
                self.take(",")
                parents.append(self.variable())
        self.take(")")
        return self.builder.probability(children, parents, interventions)

    def intervention(self) -> tuple[str, bool]:
        """``-X``, plain ``X`` (its value) or ``+X`` (another value)."""
        star = self.take() == "+" if self.peek() in ("+", "-") else False
        return self.name(), star

    def variable(self) -> _Variable:
        star = self.take() == "+" if self.peek() in ("+", "-") else None
        name = self.name()
        if self.peek() != "@":
            return _Variable(name, star, ())
        self.take("@")
        if self.peek() == "(":
            self.take("(")
            interventions = [self.intervention()]
            while self.peek() == ",":
                self.take(",")
                interventions.append(self.intervention())
            self.take(")")
        else:
            interventions = [self.intervention()]
        return _Variable(name, star, tuple(sorted(interventions)))


def _read(text: str, builder: _Builder[_B]) -> _B:
    if len(text) > MAX_LENGTH:
        raise ExprParseError(f"longer than {MAX_LENGTH} characters", text[:80], 0)
    tokens: list[tuple[str, str, int]] = []
    position = 0
    while (match := _TOKEN.match(text, position)) is not None:
        kind = cast(str, match.lastgroup)  # every alternative of _TOKEN is a named group
        tokens.append((kind, match.group(kind), match.start(kind)))
        position = match.end()
    if text[position:].strip():
        bad = position + len(text[position:]) - len(text[position:].lstrip())
        raise ExprParseError(f"unexpected character {text[bad]!r}", text, bad)
    tokens.append(("end", "", len(text)))
    reader = _Reader(text, builder, tokens)
    value = reader.expression().value
    if reader.peek():
        raise reader.fail(f"unexpected {reader.peek()!r} after the expression")
    return value


class _ExpressionBuilder:
    """y0's structure as this package's expressions."""

    def probability(
        self, children: list[_Variable], parents: list[_Variable], interventions: tuple[tuple[str, bool], ...]
    ) -> Expr:
        variables = children + parents
        common = interventions or (
            variables[0].interventions
            if all(v.interventions and v.interventions == variables[0].interventions for v in variables)
            else ()
        )
        do = tuple((_our_name(var), _our_value(var, star)) for var, star in common)

        def atom(v: _Variable) -> Atom:
            own = () if not interventions and common else v.interventions
            cf = tuple((_our_name(var), _our_value(var, star)) for var, star in own)
            return Atom(_our_name(v.name), _our_value(v.name, bool(v.star)), cf)

        return Prob(tuple(map(atom, children)), do, tuple(map(atom, parents)))

    def sum(self, ranges: list[str], body: Expr) -> Expr:
        for var in sorted(ranges, reverse=True):  # the first variable outermost, as to_y0_text writes them
            body = Sum(_our_name(var), _our_name(var), body)
        return body

    def product(self, factors: list[Expr]) -> Expr:
        return mul(*factors)

    def fraction(self, numerator: Expr, denominator: Expr) -> Expr:
        return div(numerator, denominator)

    def number(self, one: bool) -> Expr:
        return Num(Fraction(1 if one else 0))


def _our_name(name: str) -> str:
    if not _OUR_NAME.fullmatch(name):
        raise Y0ConversionError(
            f"y0's variable {name!r} is not a name of this package's expressions (a letter, then letters and digits)"
        )
    return name


def _our_value(var: str, star: bool) -> str:
    return f"{var}'" if star else var


def from_y0_text(text: str) -> Expr:
    """The expression y0's DSL text writes. Raises :class:`~.parser.ExprParseError` (with the position) for
    text that is not y0's DSL, :class:`Y0ConversionError` for y0 the package cannot write."""
    return _read(text, _ExpressionBuilder())


# ---- y0's objects -------------------------------------------------------------------------------


def _y0_dsl() -> ModuleType:
    try:
        from y0 import dsl  # type: ignore[import-untyped]
    except ImportError as error:
        raise MissingExtra("y0's objects", "y0", "y0") from error
    module: ModuleType = dsl
    return module


class _ObjectBuilder:
    """y0's structure as y0's own objects."""

    def __init__(self) -> None:
        self.dsl = _y0_dsl()

    def variable(self, v: _Variable) -> Y0Object:
        if not v.interventions:  # y0's own +X and -X are Intervention objects
            return self.dsl.Variable(v.name) if v.star is None else self.dsl.Intervention(v.name, star=v.star)
        interventions = frozenset(self.dsl.Intervention(name, star=star) for name, star in v.interventions)
        return self.dsl.CounterfactualVariable(v.name, star=v.star, interventions=interventions)

    def probability(
        self, children: list[_Variable], parents: list[_Variable], interventions: tuple[tuple[str, bool], ...]
    ) -> Y0Object:
        distribution = self.dsl.Distribution(
            children=tuple(map(self.variable, children)), parents=tuple(map(self.variable, parents))
        )
        if interventions:
            distribution = distribution.intervene([self.dsl.Intervention(n, star=s) for n, s in interventions])
        return self.dsl.Probability(distribution)

    def sum(self, ranges: list[str], body: Y0Object) -> Y0Object:
        return self.dsl.Sum(expression=body, ranges=frozenset(self.dsl.Variable(name) for name in ranges))

    def product(self, factors: list[Y0Object]) -> Y0Object:
        return functools.reduce(operator.mul, factors)  # y0's own operator, as its parse_y0 builds a product

    def fraction(self, numerator: Y0Object, denominator: Y0Object) -> Y0Object:
        return numerator / denominator

    def number(self, one: bool) -> Y0Object:
        return self.dsl.One() if one else self.dsl.Zero()


def to_y0(e: Expr) -> Y0Object:
    """``e`` as y0's expression object, built with y0's own operators as its ``parse_y0`` builds it from
    :func:`to_y0_text` (so in y0's normal form: ``a * (b / c)`` is ``(a * b) / c``, ``One()`` factors are
    dropped). Needs the ``y0`` extra (:class:`~causal_datasets.errors.MissingExtra`)."""
    return _read(to_y0_text(e), _ObjectBuilder())


def from_y0(expression: Y0Object) -> Expr:
    """A y0 expression object (a ``y0.dsl.Expression``) as this package's expression.

    Read from the object, not from its ``to_y0()`` text: y0 0.2.11 prints a quotient whose denominator is a
    product without brackets (``((a * b / c * d))`` for ``(a * b) / (c * d)``), which reads back as another
    expression."""
    return _walk(expression, _ExpressionBuilder(), _y0_dsl())


def _walk(e: Y0Object, builder: _Builder[_B], dsl: ModuleType) -> _B:
    if isinstance(e, dsl.Probability) and type(e) is dsl.Probability:  # not y0's population probabilities
        return builder.probability(
            [_variable(v, dsl) for v in e.distribution.children],
            [_variable(v, dsl) for v in e.distribution.parents],
            (),
        )
    if isinstance(e, dsl.Sum):
        return builder.sum([_variable(v, dsl).name for v in e.ranges], _walk(e.expression, builder, dsl))
    if isinstance(e, dsl.Product):
        return builder.product([_walk(f, builder, dsl) for f in e.expressions])
    if isinstance(e, dsl.Fraction):
        return builder.fraction(_walk(e.numerator, builder, dsl), _walk(e.denominator, builder, dsl))
    if isinstance(e, (dsl.One, dsl.Zero)):
        return builder.number(isinstance(e, dsl.One))
    raise Y0ConversionError(f"y0's {type(e).__name__} has no counterpart here: {e}")


def _variable(v: Y0Object, dsl: ModuleType) -> _Variable:
    interventions = getattr(v, "interventions", ())
    return _Variable(v.name, v.star, tuple(sorted((i.name, bool(i.star)) for i in interventions)))
