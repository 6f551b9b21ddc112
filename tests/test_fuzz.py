"""Fuzzing every parser, the verifier and the metrics: on any input they return a value or raise the
one error type they document; never another exception, never a process crash, never more than a
second or two on one input (hypothesis's deadline).

Inputs mix the characters each parser cares about with arbitrary text, and the pathological shapes
found by hand (deep nesting, long runs of one character) are always tried. Each test is bounded
(``max_examples``), so the suite costs a fixed time in CI.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from causal_datasets.causalab.dsl import parse_step
from causal_datasets.causalab.formula import FormulaError, evaluate_equation
from causal_datasets.cli import main
from causal_datasets.cobe.judge import parse_tf
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.scoring import score_pairs
from causal_datasets.docalc.task import extract_estimand
from causal_datasets.docalc.verdict import Verdict, check_equivalence
from causal_datasets.graph import CausalGraph, GraphError
from causal_datasets.llm.structured import StructuredError, extract_json_block, extract_yaml_block
from causal_datasets.recast.parsing import AnswerFormatError, read_prediction
from causal_datasets.scoring.graph_compare import compare_graph_batch
from causal_datasets.shapeworld.parsing import parse_action, parse_answer, parse_choice
from causal_datasets.shapeworld.scoring import score_episodes

FUZZ = settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

#: the shapes that once crashed, hung or recursed, tried on every parser
PATHOLOGICAL = [
    "(" * 3000, "[" * 30000 + "]" * 30000, "{" * 10000, "<think>" * 8000, "```" * 30000, "- " * 30000 + "x",
    "9" * 5000, "Estimand: a" + " " * 20000 + "b", "\ud800", "\x00", "", "P(Y)" + "/P(Y)" * 3000,
]


def mixed(alphabet: str) -> st.SearchStrategy[str]:
    """Text of the parser's own characters, of anything at all, or of both."""
    own = st.text(alphabet=alphabet, max_size=200)
    return st.one_of(own, st.text(max_size=200), st.lists(st.sampled_from(list(alphabet) + ["do(", "\\sum_{", "P("]),
                                                          max_size=80).map("".join))


EXPRESSION_CHARS = "PE()[]{}|,=_+-*/0123456789.XYZUVdo ∑Σ−×'"
GRAPH_CHARS = "XYZUV-><=,;\n ←→↔"
JSON_CHARS = '{}[]":,0123456789 \n`truefalsenull<think></think>abc-'


@FUZZ
@given(mixed(EXPRESSION_CHARS))
@example(PATHOLOGICAL[0])
@example(PATHOLOGICAL[6])
@example("P(Y|do(X=0),do(X=1))")
@example(" + ".join(["P(Y)"] * 3000))
@example("P(Y)" + "/P(Y)" * 3000)
def test_expression_parser(text):
    try:
        parse(text)
    except ExprParseError as error:
        assert len(str(error)) < 400


@FUZZ
@given(mixed(EXPRESSION_CHARS), mixed(EXPRESSION_CHARS), mixed(GRAPH_CHARS))
@example("0.3", "0.3000000001", "X")
@example("P(Y)", "P(Y)", "X<->Y")
@example("1/(1-1)", "2", "X")
def test_verifier_always_gives_a_verdict(a, b, graph):
    verdict = check_equivalence(a, b, graph, prove=False)
    assert isinstance(verdict, Verdict)
    assert verdict.equivalent is not False or verdict.counterexample is not None  # never "no" without a model
    assert verdict.equivalent is not None or verdict.error


@FUZZ
@given(mixed(GRAPH_CHARS))
@example("X<-Z,Z->Y")
@example("A -> B -> C")
@example("X--Y")
def test_graph_parser(text):
    for lines in (False, True):
        try:
            graph = CausalGraph.parse(text, lines=lines)
        except GraphError:
            continue
        assert not any(mark in node for node in graph.nodes for mark in ("->", "<-"))


@FUZZ
@given(mixed(JSON_CHARS))
@example(PATHOLOGICAL[1])
@example(PATHOLOGICAL[2])
@example(PATHOLOGICAL[3])
@example(PATHOLOGICAL[4])
@example(PATHOLOGICAL[5])
@example("a: &a [1]\nb: *a")
@example("[" + "9" * 5000 + "]")
def test_structured_answer_extraction(text):
    for extract in (extract_json_block, extract_yaml_block):
        try:
            extract(text)
        except StructuredError:
            pass


@FUZZ
@given(mixed(JSON_CHARS + "relationships source sink ->"))
@example("relationships " + "{" * 20000)
def test_recast_prediction_reader(text):
    try:
        read_prediction(text)
    except AnswerFormatError:
        pass


@FUZZ
@given(mixed(JSON_CHARS + "shape action next answer yes no"))
@example(PATHOLOGICAL[2])
def test_shapeworld_reply_parsers(text):
    for parser in (parse_action, parse_choice, parse_answer):
        parsed = parser(text)
        assert (parsed.error is None) != (parsed.value is None) or parsed.value is None


@FUZZ
@given(mixed(JSON_CHARS + "hypothesis edges from to freq_equation coefficients experiment target_prop"))
@example(PATHOLOGICAL[1])
@example("```" * 20001)
def test_causalab_step_parser(text):
    parsed = parse_step(text)
    assert (parsed.step is None) == (parsed.error is not None)


@FUZZ
@given(st.one_of(st.text(alphabet="0123456789.+-*/^()abc_ e", max_size=120), st.text(max_size=120)))
@example("(-8)**0.5")
@example("-" * 1990 + "1")
@example("9" * 400 + "**9")
def test_causalab_equation_evaluator(equation):
    try:
        value = evaluate_equation(equation, {"a": 1.5, "c_b": 2.0}, {"b": 3.0})
    except FormulaError:
        return
    assert isinstance(value, float)


@FUZZ
@given(st.text(max_size=300))
@example(PATHOLOGICAL[7])
@example("**T**")
@example(" " * 20000 + "x")
def test_answer_line_readers(text):
    estimand = extract_estimand(text)
    assert estimand is None or isinstance(estimand, str)
    assert parse_tf(text) in (True, False, None)


edge = st.tuples(st.sampled_from("ABCDE"), st.sampled_from("ABCDE"))


@FUZZ
@given(st.lists(st.lists(st.one_of(edge, edge.map(lambda e: f"{e[0]} -> {e[1]}"), st.text(max_size=8)), max_size=6),
                min_size=1, max_size=4),
       st.sampled_from(["exact", "normalized", "fuzzy"]), st.sampled_from([1, 2]))
def test_graph_metric_records_unreadable_items(graphs, matching, cost):
    batch = compare_graph_batch(graphs, list(reversed(graphs)), node_matching=matching, reversal_cost=cost)
    assert len(batch.items) == len(graphs)
    assert {e.index for e in batch.errors} == {i for i, item in enumerate(batch.items) if item is None}


@FUZZ
@given(st.lists(st.tuples(mixed(EXPRESSION_CHARS), mixed(EXPRESSION_CHARS), mixed(GRAPH_CHARS)), min_size=1, max_size=3))
def test_equivalence_metric_never_fails_a_batch(pairs):
    result = score_pairs([a for a, _, _ in pairs], [b for _, b, _ in pairs], [g for _, _, g in pairs])
    assert len(result["verdicts"]) == len(pairs) and 0.0 <= result["accuracy"] <= 1.0


episode = st.fixed_dictionaries({
    "gold": st.sampled_from(["yes", "no"]), "prediction": st.sampled_from(["yes", "no", None, ""]),
    "structure": st.sampled_from(["direct", "random"]), "num_variables": st.one_of(st.integers(2, 7), st.none()),
    "steps": st.one_of(st.integers(0, 14), st.text(max_size=3)), "error": st.sampled_from([None, "invalid_format", "bogus"]),
})


@FUZZ
@given(st.lists(episode, max_size=5))
def test_shapeworld_metric_names_the_bad_episode(items):
    try:
        score_episodes(items)
    except ValueError as error:
        assert "episode" in str(error) or "unknown error modes" in str(error)


@settings(max_examples=60, deadline=5000, derandomize=True)
@given(st.lists(st.text(alphabet=string.printable + "∑←", max_size=30), max_size=6))
def test_equiv_command_exits_with_a_documented_code(argv):
    try:
        code = main(["equiv", *argv])
    except SystemExit as stopped:  # argparse: a usage error
        code = stopped.code
    assert code in (0, 1, 2, 3)


@pytest.mark.parametrize("text", PATHOLOGICAL)
def test_the_known_pathological_inputs_on_every_parser(text):
    """The shapes that once crashed or hung, each on every text parser at once."""
    for call, allowed in [
        (parse, ExprParseError), (lambda t: CausalGraph.parse(t), GraphError), (extract_json_block, StructuredError),
        (extract_yaml_block, StructuredError), (read_prediction, AnswerFormatError),
        (lambda t: evaluate_equation(t, {}, {}), FormulaError),
    ]:
        try:
            call(text)
        except allowed:
            pass
    parse_step(text), parse_action(text), extract_estimand(text), parse_tf(text)
    assert isinstance(check_equivalence(text, "P(Y)", "Y", prove=False), Verdict)
