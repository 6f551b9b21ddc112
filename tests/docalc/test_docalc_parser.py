"""Expression language: parser, canonical printer, round trip on every CLadder string."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from causal_datasets.docalc.atoms import Atom, Potential
from causal_datasets.docalc.expr import Expect, Num, Prob, Sum, free_indices, variables
from causal_datasets.docalc.parser import ExprParseError, parse
from tests.support.data import SHARED_DATA_DIR

CLADDER = SHARED_DATA_DIR / "cladder"
NOT_EXPRESSIONS = {
    "[backdoor adjustment set for Y given X]",
    "Solve for Y, given the evidence and the action",
    "X and Y do not affect each other.",
}


def cladder_strings() -> set[str]:
    records = []
    for path in sorted(CLADDER.glob("test-generate-*.json")):
        records += json.loads(path.read_text())
    derived = CLADDER / "derived" / "cladder-v1-q-balanced_rand-top1000.derived.jsonl"
    records += [json.loads(line) for line in derived.read_text().splitlines()]
    strings = set()
    for record in records:
        meta, reasoning = record["meta"], record.get("reasoning") or {}
        strings.update(
            s
            for s in (meta.get("formal_form"), meta.get("estimand"), reasoning.get("step2"), reasoning.get("step3"))
            if s
        )
    return strings


def test_every_cladder_expression_parses_and_round_trips():
    strings = cladder_strings()
    assert len(strings) > 60
    parsed = 0
    for text in sorted(strings - NOT_EXPRESSIONS):
        e = parse(text)
        assert parse(e.text) == e, text
        assert parse(e.text).text == e.text
        parsed += 1
    assert parsed == len(strings) - len(NOT_EXPRESSIONS & strings)
    for text in NOT_EXPRESSIONS & strings:
        with pytest.raises(ExprParseError):
            parse(text)


def test_structure_of_a_do_term_with_values():
    e = parse("P(Y=1 | do(X=0), Z=z)")
    assert e == Prob((Atom("Y", 1),), (("X", 0),), (Atom("Z", "z"),))
    assert free_indices(e) == {"z"}


def test_order_independence_and_equivalent_spellings():
    assert parse("P(Y, W | do(X, V2))") == parse("P(W,Y|do(V2), do(X))")
    assert parse("P(A) * P(B) + P(C)") == parse("P(C) + P(B)*P(A)")
    assert parse(r"\sum_{V1=v} P(V1=v) * P(Y | V1=v)") == parse("Σ_{V1} P(Y|V1) * P(V1)")
    assert parse("P(Y=1|X=1) − P(Y=1|X=0)") == parse("P(Y=1|X=1) - P(Y=1|X=0)")
    assert parse("P(Y = 1 | X = 1, V3 = 1]") == parse("P(Y=1|V3=1,X=1)")
    assert parse("P(Y) - P(Z)") != parse("P(Z) - P(Y)")


def test_expectations_counterfactuals_and_bare_events():
    ett = parse("E[Y_{X = 1} - Y_{X = 0} | X = 1]")
    assert isinstance(ett, Expect)
    assert ett.body == ((1, Atom("Y", None, (("X", 1),))), (-1, Atom("Y", None, (("X", 0),))))
    assert ett.given == (Atom("X", 1),)
    nde = parse("E[Y_{X=1, V2=0} - Y_{X=0, V2=0}]")
    assert nde.body[0][1].cf == (("V2", 0), ("X", 1))
    det = parse("Y_{X=0} = 0 | V2=0, V1=0")
    assert det == Prob((Atom("Y", 0, (("X", 0),)),), (), (Atom("V1", 0), Atom("V2", 0)))
    assert parse("Y_{X=1} = 1 | ") == Prob((Atom("Y", 1, (("X", 1),)),))
    assert parse("E[2*Y] + 0.5") == parse("0.5 + E[2*Y]") != parse("0.5 + 2*E[Y]")
    assert parse("0.25").value == Fraction(1, 4) and isinstance(parse("0.25"), Num)


def test_nested_counterfactual_subscripts():
    nde = parse("E[Y_{X=1, V2_{X=0}} - Y_{X=0, V2=V2_{X=0}}]")
    mediator = Potential("V2", (("X", 0),))
    assert nde.body[0][1].cf == (("V2", mediator), ("X", 1))
    assert nde.text == "E[Y_{V2_{X=0}, X=1} - Y_{V2_{X=0}, X=0}]" and parse(nde.text) == nde
    assert nde != parse("E[Y_{X=1, V2=0} - Y_{X=0, V2=0}]")  # literally a controlled effect
    deep = parse("P(Y_{M=W_{X=x, Z_{X=1}}}=1)")
    assert parse(deep.text) == deep and free_indices(deep) == {"x"}
    assert variables(deep) == {"Y", "M", "W", "X", "Z"}  # every name is checked against the graph
    with pytest.raises(ExprParseError, match="counterfactual subscript") as info:
        parse("P(Y | do(X_{Z=1}))")
    assert info.value.position == 9


def test_summation_capture_keeps_index_name():
    # renaming v -> X would capture the free X of P(X), so the index stays v
    e = parse(r"\sum_{X=v} P(Y | X=v) * P(X)")
    assert isinstance(e, Sum) and e.index == "v"
    assert parse(e.text) == e


def test_an_expression_nested_deeper_than_printing_can_follow_is_refused():
    """Brackets are limited to 100 deep and the tree as a whole to 200 levels: a run of quotients nests one level
    per division, and the canonical text writes nested runs as one run."""
    nested = "P(Y)"
    for _ in range(5):
        nested = f"({nested}{' / P(Y)' * 50})"
    with pytest.raises(ExprParseError, match="nested more than 200 levels deep"):
        parse(nested)
    deep = parse("(" * 3 + "P(Y)" + (" / P(Y)" * 50 + ")") * 3)  # 150 levels: fine, and printed as one run
    assert parse(deep.text) == deep


@pytest.mark.parametrize(
    "text, position",
    [
        ("P(Y | do(X)", 11),
        ("P(Y |) + ", 9),
        ("P(Y) $ P(X)", 5),
        ("", 0),
        ("E[Y | X=0.5]", 8),
        ("P()", 2),
        ("P(Y) P(X)", 5),
    ],
)
def test_parse_errors_carry_the_position(text, position):
    with pytest.raises(ExprParseError) as info:
        parse(text)
    assert info.value.position == position
    assert f"position {position}" in str(info.value)


def test_canonical_text_examples():
    assert parse("P(Y=1|X=1) - P(Y=1|X=0)").text == "P(Y=1 | X=1) - P(Y=1 | X=0)"
    assert parse("E[Y | do(X = 1)]").text == "E[Y | do(X=1)]"
    assert parse("[P(Y=1|V2=1)-P(Y=1|V2=0)]/[P(X=1|V2=1)-P(X=1|V2=0)]").text == (
        "(P(Y=1 | V2=1) - P(Y=1 | V2=0)) / (P(X=1 | V2=1) - P(X=1 | V2=0))"
    )


@pytest.mark.parametrize(
    "text, fragment, position",
    [
        ("P(Y_{X=1, X=0}=1)", "X is set twice in one subscript", 10),  # once the last value silently won
        ("P(Y_{X=1, M_{X=0, X=1}}=1)", "X is set twice in one subscript", 18),
        ("P(Y | do(X=1, X=0))", "X is set twice in one do()", 14),
        ("P(Y | do(X, Z, X))", "X is set twice in one do()", 15),
    ],
)
def test_a_variable_set_twice_in_one_subscript_or_action_is_an_error_naming_it(text, fragment, position):
    with pytest.raises(ExprParseError, match=fragment) as info:
        parse(text)
    assert info.value.position == position


def test_every_number_the_parser_reads_prints():
    tiny = parse("P(Y=1) + 0." + "0" * 50 + "1")  # 52 digits: once a ValueError from the printer
    assert parse(tiny.text) == tiny
