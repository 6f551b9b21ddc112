"""y0's DSL both ways: round trips on random expressions, y0's own (eval-based) parser and objects as the other
side, y0's identification catalogue, and what neither side can write refused with a typed error."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import causal_datasets.docalc as docalc
from causal_datasets.docalc.expr import Expr, Num, Sum, children, div, mul
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.y0_dsl import Y0ConversionError, from_y0, from_y0_text, to_y0, to_y0_text
from causal_datasets.errors import MissingExtra
from tests.support.expressions import sum_over, y0_expressions
from tests.support.y0_bridge import catalogue, to_expr, y0_identify

PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(y0_expressions)
def test_y0_text_round_trip_on_random_expressions(e):
    text = to_y0_text(e)
    assert from_y0_text(text) == e


def has_number(e: Expr) -> bool:
    return isinstance(e, Num) or any(has_number(child) for child in children(e))


CHAIN = "X->Y,Y->Z,Z->W,W->V1,V1->V2"


@settings(PROPERTY, max_examples=60)
@given(y0_expressions.filter(lambda e: not has_number(e)))
def test_y0_objects_round_trip_and_our_text_is_what_y0_parses(e):
    """y0's own (eval-based) reader makes the object ``to_y0`` makes from our text; y0's operators normalize it
    (``a * (b / c)`` becomes ``(a * b) / c``), so back here it is the same value, if not the same tree. (Without
    One() and Zero(): y0's parse_y0 does not know them.)"""
    from y0.parser import parse_y0

    obj = to_y0(e)
    assert parse_y0(to_y0_text(e)) == obj
    back = from_y0(obj)
    assert back == e or docalc.check_equivalence(back, e, CHAIN, prove=False).equivalent is True


def grouped_alike(e):
    """A y0 expression with nested sums ``Sum[A](Sum[B](...))`` merged into ``Sum[A, B](...)``, nested products
    flattened and their factors sorted: the same expression, which this package writes with nested sums and ordered
    factors either way (y0's objects compare sums and products as they are grouped and ordered)."""
    from y0 import dsl

    if isinstance(e, dsl.Sum):
        inner = grouped_alike(e.expression)
        if isinstance(inner, dsl.Sum):
            return dsl.Sum(expression=inner.expression, ranges=e.ranges | inner.ranges)
        return dsl.Sum(expression=inner, ranges=e.ranges)
    if isinstance(e, dsl.Product):
        factors = [grouped_alike(f) for f in e.expressions]
        flat = [g for f in factors for g in (f.expressions if isinstance(f, dsl.Product) else (f,))]
        return dsl.Product(tuple(sorted(flat, key=str)))
    if isinstance(e, dsl.Fraction):
        return dsl.Fraction(grouped_alike(e.numerator), grouped_alike(e.denominator))
    return e


def test_y0_catalogue_estimands_convert_both_ways():
    """Every estimand y0 identifies on its catalogue: ``from_y0`` agrees with the tests' own converter, the
    expression goes back to the same y0 object (up to how sums and products are grouped) and through both texts
    unchanged."""
    estimands = [estimand for case in catalogue() if (estimand := y0_identify(case)) is not None]
    refused = [estimand for estimand in estimands if any("_" in v.name for v in estimand.get_variables())]
    for estimand in refused:  # SARS_COV2: "_" writes a subscript here
        with pytest.raises(Y0ConversionError, match="is not a name of this package's expressions"):
            from_y0(estimand)
    converted = [estimand for estimand in estimands if estimand not in refused]
    assert len(converted) >= 25 and len(refused) == 2  # the two SARS-CoV-2 queries
    for estimand in converted:
        ours = from_y0(estimand)
        assert ours == to_expr(estimand)
        assert grouped_alike(to_y0(ours)) == grouped_alike(estimand)
        assert from_y0_text(to_y0_text(ours)) == ours
        assert from_y0_text(estimand.to_y0()) == ours or "/" in estimand.to_y0()  # y0's own text: see below


def test_y0s_text_of_a_quotient_of_products_reads_back_wrong_so_objects_are_read_directly():
    from y0.dsl import Fraction as Quotient
    from y0.dsl import P, W, X, Y, Z
    from y0.parser import parse_y0

    estimand = Quotient(P(Y | X) * P(Z), P(W) * P(X))
    assert estimand.to_y0() == "((P(Y | X) * P(Z) / P(W) * P(X)))"
    assert parse_y0(estimand.to_y0()) != estimand
    assert from_y0(estimand) == parse("P(Y | X) * P(Z) / (P(W) * P(X))") == from_y0_text(to_y0_text(from_y0(estimand)))


@pytest.mark.parametrize(
    "text",
    [
        "P(Y=1)",
        "P(Y | do(X=0))",
        "P(Y) + P(Z)",
        "-P(Y)",
        "E[Y]",
        "0.5 * P(Y)",
        "P(Y=y)",
        "P(Y_{X=1, M_{X=0}})",
        "P(Y')",
    ],
)
def test_what_y0_cannot_write_is_refused(text):
    with pytest.raises(Y0ConversionError):
        to_y0_text(parse(text))
    with pytest.raises(Y0ConversionError, match="index 'z'"):
        to_y0_text(Sum("Z", "z", parse("P(Z=z)"), canonical=False))


@pytest.mark.parametrize(
    "text, error",
    [
        ("Q[X](Y)", Y0ConversionError),
        ("PP[Pi1](Y)", Y0ConversionError),
        ("P(Y_1)", Y0ConversionError),
        ("P(Y", ExprParseError),
        ("Sum[Z]", ExprParseError),
        ("__import__('os')", ExprParseError),
        ("P(Y) + P(X)", ExprParseError),
        ("(" * 500 + "P(Y)" + ")" * 500, ExprParseError),
        # trees deeper than the package's parser builds (printing them would exhaust the stack)
        ("Sum[" + ", ".join(f"A{i}" for i in range(1000)) + "](P(Y))", ExprParseError),
        ("P(Y)" + " / P(Y)" * 3000, ExprParseError),
        ("(" * 60 + "P(Y)" + (" / P(Y)" * 90 + ")") * 60, ExprParseError),
    ],
)
def test_text_that_is_not_y0s_dsl_is_refused_without_evaluating_it(text, error):
    with pytest.raises(error):
        from_y0_text(text)


def test_y0_reads_each_kind_of_term():
    assert from_y0_text("P[X,+Z](Y | W)") == parse("P(Y | do(X, Z=Z'), W)")
    assert from_y0_text("P(Y @ -X | Z @ -X)") == parse("P(Y | do(X), Z)")  # y0 prints this P[X](Y | Z)
    assert from_y0_text("P(+Y @ (-X, +Z) | X)") == parse("P(Y_{X, Z=Z'}=Y' | X)")
    assert from_y0_text("Sum[Z, W](P(W, Z) / One()) * Zero()") == mul(
        sum_over("W", sum_over("Z", div(parse("P(W, Z)"), Num(Fraction(1))))), Num(Fraction(0))
    )


def test_y0_objects_without_y0_are_a_missing_extra(monkeypatch):
    """Without y0 installed, converting to y0's objects names the extra to install (text needs no y0)."""
    monkeypatch.setitem(sys.modules, "y0", None)  # what an environment without y0 gives the import
    with pytest.raises(MissingExtra, match=r"causal-datasets\[y0\]"):
        to_y0(parse("P(Y | X)"))
    assert to_y0_text(parse("P(Y | X)")) == "P(Y | X)"
