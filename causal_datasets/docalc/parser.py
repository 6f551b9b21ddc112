"""Recursive-descent parser for causal expressions (never ``eval``).

Grammar (whitespace free)::

    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '/') unary)*
    unary   := '-' unary | sum | primary
    sum     := ('\\sum' | 'Σ' | '∑' | 'sum') '_' ('{' binding (',' binding)* '}' | binding) term
    primary := NUMBER | 'P' '(' atoms ['|' conds] ')' | 'E' '[' body ['|' conds] ']' | '(' expr ')' | '[' expr ']'
    atoms   := atom (',' atom)*          atom := NAME [subscript] ['=' value]
    conds   := cond (',' cond)*          cond := 'do' '(' assigns ')' | atom
    body    := ['-'] rv (('+'|'-') rv)*  rv := [INT '*'] NAME [subscript] ['=' value]
    subscript := '_' '{' sub (',' sub)* '}'    sub := NAME ['=' value] | NAME subscript | NAME '=' NAME subscript

``M_{X=0}`` inside a subscript is a nested counterfactual (``Y_{X=1, M_{X=0}}``).

A whole string of the form ``atoms | conds`` (CLadder's ``Y_{X=0} = 0 | V2=0``) is read as
``P(atoms | conds)``. Real-data quirks accepted: ``]`` closing ``P(``, Unicode minus and
multiplication signs, ``E(...)``, empty condition lists. Errors carry the character position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple, NoReturn, TypeVar, cast

from causal_datasets.docalc.atoms import Assign, Atom, Potential, Subscript, Value
from causal_datasets.docalc.expr import Expect, Expr, Num, Prob, Sum, add, children, div, mul, negate

#: what is read inside ``P(...)`` (atoms) or ``E[...]`` (coefficient–atom terms)
_Item = TypeVar("_Item")

_TRANSLATE = str.maketrans({"−": "-", "–": "-", "×": "*", "·": "*", "∣": "|", "Σ": "∑"})
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<sum>\\sum|∑)|(?P<name>[A-Za-z][A-Za-z0-9']*)|(?P<op>[-+*/()\[\]{}|,=_]))"
)


class ExprParseError(ValueError):
    """The text is not a causal expression; ``position`` is the 0-based character offset."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.text = text
        self.position = position
        self.reason = message
        start = max(0, position - 40)  # a window around the position: the text may be long
        shown = ("..." if start else "") + text[start : position + 40] + ("..." if position + 40 < len(text) else "")
        pointer = " " * (position - start + (3 if start else 0)) + "^"
        super().__init__(f"{message} at position {position}\n  {shown}\n  {pointer}")


class _Token(NamedTuple):
    kind: str  # num, sum, name, op, end
    text: str
    position: int


def _tokenize(text: str) -> list[_Token]:
    cleaned = text.translate(_TRANSLATE)  # one character for one, so positions are unchanged
    tokens: list[_Token] = []
    position = 0
    # one anchored match per token: a search (finditer) would retry a failing whitespace run from
    # each of its characters, quadratic in the run's length
    while (match := _TOKEN.match(cleaned, position)) is not None:
        kind = cast(str, match.lastgroup)  # every alternative of _TOKEN is a named group
        if kind == "num" and len(match.group(kind)) > MAX_NUMBER_DIGITS:
            raise ExprParseError(f"a number of more than {MAX_NUMBER_DIGITS} digits", text, match.start(kind))
        tokens.append(_Token(kind, match.group(kind), match.start(kind)))
        position = match.end()
    rest = cleaned[position:]
    if rest.strip():
        bad = position + len(rest) - len(rest.lstrip())
        raise ExprParseError(f"unexpected character {cleaned[bad]!r}", text, bad)
    tokens.append(_Token("end", "", len(text)))
    return tokens


#: longest expression and deepest bracket nesting parsed; beyond them the text is refused at once,
#: before any recursion (the longest CLadder estimand has about 200 characters)
MAX_LENGTH = 100_000
MAX_DEPTH = 100
MAX_NUMBER_DIGITS = 60
#: deepest expression tree parsed (a run of quotients ``a / b / c`` nests one level per division, under
#: the brackets around it): printing, comparing and evaluating an expression recurse along its tree
MAX_HEIGHT = 2 * MAX_DEPTH


def parse(text: str) -> Expr:
    """Parse one causal expression; raises :class:`ExprParseError` with the position.

    Results are memoized by text (expressions are immutable values)."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExprParseError(f"longer than {MAX_LENGTH} characters ({len(text)})", text, MAX_LENGTH)
    _check_depth(text)
    return _parse_text(text)


def _check_depth(text: str) -> None:
    depth = 0
    for position, char in enumerate(text):
        if char in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ExprParseError(f"brackets nested deeper than {MAX_DEPTH}", text, position)
        elif char in ")]}":
            depth -= 1


@lru_cache(maxsize=1 << 14)
def _parse_text(text: str) -> Expr:
    return check_height(_Parser(text).parse_top(), text)


def check_height(e: Expr, text: str) -> Expr:
    """``e``, unless its tree has more than :data:`MAX_HEIGHT` levels (counted level by level, without recursion)."""
    level, height = [e], 0
    while level:
        height += 1
        if height > MAX_HEIGHT:
            raise ExprParseError(f"nested more than {MAX_HEIGHT} levels deep (quotients, sums, brackets)", text, 0)
        level = [child for node in level for child in children(node)]
    return e


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.sums = 0  # summations open at this point of the parse

    # -- token helpers --
    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def at(self, *texts: str) -> bool:
        token = self.tokens[self.i]
        return token.kind == "op" and token.text in texts

    def take(self, *texts: str) -> _Token:
        if not self.at(*texts):
            want = " or ".join(repr(t) for t in texts)
            found = "end of input" if self.tok.kind == "end" else repr(self.tok.text)
            self.fail(f"expected {want}, found {found}")
        token = self.tok
        self.i += 1
        return token

    def fail(self, message: str, token: _Token | None = None) -> NoReturn:
        raise ExprParseError(message, self.text, (token or self.tok).position)

    def name(self, what: str) -> str:
        if self.tok.kind != "name":
            self.fail(f"expected {what}")
        token = self.tok
        self.i += 1
        return token.text

    # -- grammar --
    def parse_top(self) -> Expr:
        if self.tok.kind == "end":
            self.fail("empty expression")
        result: Expr
        if self._bare_event_ahead():
            result = self.bare_probability()
        else:
            result = self.expr()
        if self.tok.kind != "end":
            self.fail(f"unexpected {self.tok.text!r} after a complete expression")
        return result

    def _bare_event_ahead(self) -> bool:
        token = self.tok
        return (
            token.kind == "name"
            and token.text not in ("P", "E", "sum")
            or (
                token.kind == "name"
                and token.text in ("P", "E")
                and self.tokens[self.i + 1].text in ("=", "_", "|", ",")
            )
        )

    def bare_probability(self) -> Prob:
        event = self.atoms()
        do: list[Assign] = []
        given: list[Atom] = []
        if self.at("|"):
            self.take("|")
            do, given = self.conditions(closers=())
        return Prob(tuple(event), tuple(do), tuple(given))

    def expr(self) -> Expr:
        terms = [self.term()]  # collected, then built once: a long sum stays linear
        while self.at("+", "-"):
            op = self.take("+", "-").text
            right = self.term()
            terms.append(right if op == "+" else negate(right))
        return add(*terms)

    def term(self) -> Expr:
        factors = [self.unary()]
        while self.at("*", "/"):
            op = self.take("*", "/")
            right = self.unary()
            if op.text == "*":
                factors.append(right)
                continue
            factors = [div(mul(*factors), right)]  # each division nests the quotient a level deeper: check_height
        return mul(*factors)

    def unary(self) -> Expr:
        signs = 0
        while self.at("-"):  # a loop, not recursion: a run of minus signs cannot exhaust the stack
            self.take("-")
            signs += 1
        if self.tok.kind == "sum" or (
            self.tok.kind == "name" and self.tok.text == "sum" and self.tokens[self.i + 1].text == "_"
        ):
            operand = self.summation()
        else:
            operand = self.primary()
        return negate(operand) if signs % 2 else operand

    def summation(self) -> Expr:
        self.sums += 1
        if self.sums > MAX_DEPTH:
            self.fail(f"summations nested deeper than {MAX_DEPTH}")
        self.i += 1
        self.take("_")
        bindings = []
        if self.at("{"):
            self.take("{")
            bindings.append(self.binding())
            while self.at(","):
                self.take(",")
                bindings.append(self.binding())
            self.take("}")
        else:
            bindings.append(self.binding())
        body = self.term()
        for var, index in reversed(bindings):
            body = Sum(var, index, body)
        self.sums -= 1
        return body

    def binding(self) -> tuple[str, str]:
        var = self.name("a summation variable")
        if self.at("="):
            self.take("=")
            start = self.tok
            index = self.name("a summation index name")
            if index[0].isdigit():
                self.fail("a summation index must be a name", start)
            return var, index
        return var, var

    def primary(self) -> Expr:
        token = self.tok
        if token.kind == "num":
            self.i += 1
            return Num(Fraction(Decimal(token.text)))
        if self.at("(", "["):
            closer = ")" if self.take("(", "[").text == "(" else "]"
            inner = self.expr()
            self.take(closer, ")", "]")
            return inner
        if token.kind == "name" and token.text == "P" and self.tokens[self.i + 1].text in ("(", "["):
            event, do, given = self.arguments(self.atoms)
            return Prob(tuple(event), tuple(do), tuple(given))
        if token.kind == "name" and token.text == "E" and self.tokens[self.i + 1].text in ("(", "["):
            body, do, given = self.arguments(self.rv_body)
            if not body:
                self.fail("empty expectation", token)
            return Expect(tuple(body), tuple(do), tuple(given))
        if token.kind == "end":
            self.fail("unexpected end of input")
        self.fail(f"unexpected {token.text!r}")

    def arguments(self, read: Callable[[], list[_Item]]) -> tuple[list[_Item], list[Assign], list[Atom]]:
        """The bracket after ``P`` or ``E`` (the current token): what ``read`` takes, then the conditions."""
        self.i += 1
        self.take("(", "[")
        content = read()
        do, given = self.optional_conditions()
        self.take(")", "]")
        return content, do, given

    def optional_conditions(self) -> tuple[list[Assign], list[Atom]]:
        if self.at("|"):
            self.take("|")
            return self.conditions(closers=(")", "]"))
        return [], []

    def conditions(self, closers: tuple[str, ...]) -> tuple[list[Assign], list[Atom]]:
        do: list[Assign] = []
        given: list[Atom] = []
        if self.tok.kind == "end" or self.at(*closers):
            return do, given
        while True:
            if self.tok.kind == "name" and self.tok.text == "do" and self.tokens[self.i + 1].text == "(":
                start = self.tok
                self.i += 1
                self.take("(")
                for var, value in self.actions():
                    clash = next((v for name, v in do if name == var and v != value), None)
                    if clash is not None:
                        self.fail(f"do() sets {var} twice in one term ({var}={clash} and {var}={value})", start)
                    do.append((var, value))
                self.take(")")
            else:
                given.append(self.atom())
            if not self.at(","):
                return do, given
            self.take(",")

    def atoms(self) -> list[Atom]:
        atoms = [self.atom()]
        while self.at(","):
            self.take(",")
            atoms.append(self.atom())
        return atoms

    def atom(self) -> Atom:
        var = self.name("a variable name")
        cf = self.subscript()
        if self.at("="):
            self.take("=")
            return Atom(var, self.value(), cf)
        return Atom(var, var, cf)

    def subscript(self) -> Subscript:
        if not self.at("_"):
            return ()
        self.take("_")
        self.take("{")
        assigns = self.assigns(nested=True)
        self.take("}")
        return tuple(assigns)

    def actions(self) -> list[Assign]:
        """``X=1, Z`` in ``do(...)`` (no nested counterfactual: :meth:`assigns` refuses one there)."""
        return [(var, value) for var, value in self.assigns() if not isinstance(value, Potential)]

    def assigns(self, nested: bool = False) -> list[tuple[str, Value | Potential]]:
        """``X=1, Z`` in ``do(...)``; in a subscript (``nested``) also ``M_{X=0}`` and ``M=M_{X=0}``.
        A variable set twice is an error naming it."""
        result: list[tuple[str, Value | Potential]] = []
        seen: set[str] = set()
        while True:
            start = self.tok
            var = self.name("a variable name")
            if var in seen:
                self.fail(f"{var} is set twice in one {'subscript' if nested else 'do()'}", start)
            seen.add(var)
            if self.at("_"):
                if not nested:
                    self.fail("a nested counterfactual can only be a counterfactual subscript's value", start)
                result.append((var, Potential(var, self.subscript())))
            elif self.at("="):
                self.take("=")
                nested_value = nested and self.tok.kind == "name" and self.tokens[self.i + 1].text == "_"
                result.append(
                    (var, Potential(self.name("a variable name"), self.subscript()) if nested_value else self.value())
                )
            else:
                result.append((var, var))
            if not self.at(","):
                return result
            self.take(",")

    def value(self) -> int | str:
        token = self.tok
        if token.kind == "num":
            if "." in token.text:
                self.fail("a variable value must be an integer or a name")
            self.i += 1
            return int(token.text)
        if token.kind == "name":
            self.i += 1
            return token.text
        self.fail("expected a value (integer or name)")

    def rv_body(self) -> list[tuple[int, Atom]]:
        body = []
        sign = 1
        if self.at("-"):
            self.take("-")
            sign = -1
        while True:
            coef = 1
            if self.tok.kind == "num" and self.tokens[self.i + 1].text == "*":
                if "." in self.tok.text:
                    self.fail("expectation coefficients must be integers")
                coef = int(self.tok.text)
                self.i += 2
            var = self.name("a variable in the expectation")
            cf = self.subscript()
            value = None
            if self.at("="):
                self.take("=")
                value = self.value()
            body.append((sign * coef, Atom(var, value, cf)))
            if not self.at("+", "-"):
                return body
            sign = 1 if self.take("+", "-").text == "+" else -1
