"""Fuzzing every parser, the verifier and the metrics: on any input they return a value or raise the
one error type they document; never another exception, never a process crash, never more than a
second or two on one input (hypothesis's deadline).

Inputs mix the characters each parser cares about with arbitrary text, and the pathological shapes
found by hand (deep nesting, long runs of one character) are always tried. Each test is bounded
(``max_examples``), so the suite costs a fixed time in CI.
"""

from __future__ import annotations

import json
import math
import string
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from causal_datasets import secret_values
from causal_datasets.bounded_values import BadValue, check_value, load_json, load_yaml
from causal_datasets.causalab.dsl import parse_step
from causal_datasets.causalab.formula import FormulaError, evaluate_equation
from causal_datasets.causalab.upstream_run import parse_observations, parse_submissions
from causal_datasets.cladder_pairs.estimand_task import extract_estimand
from causal_datasets.cli import main
from causal_datasets.cobe.judge import parse_tf
from causal_datasets.docalc.domains import DomainError, parse_values
from causal_datasets.docalc.identification import QueryError, identify
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.scoring import score_pairs
from causal_datasets.docalc.verdict import Verdict, check_equivalence
from causal_datasets.docalc.y0_dsl import Y0ConversionError, from_y0_text, to_y0_text
from causal_datasets.graph import CausalGraph, GraphError
from causal_datasets.llm.structured import StructuredError, extract_json_block, extract_yaml_block
from causal_datasets.recast.parsing import AnswerFormatError, read_prediction
from causal_datasets.redaction import Redactor
from causal_datasets.scoring.graph_compare import compare_graph_batch, compare_graphs
from causal_datasets.shapeworld.parsing import parse_action, parse_answer, parse_choice
from causal_datasets.shapeworld.scoring import score_episodes

FUZZ = settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

#: the shapes that once crashed, hung or recursed, tried on every parser
DEEP_QUOTIENTS = "(" * 60 + "P(Y)" + ("/P(Y)" * 90 + ")") * 60  # 60 runs of 90 quotients: a tree 5,400 levels deep
PATHOLOGICAL = [
    "(" * 3000,
    "[" * 30000 + "]" * 30000,
    "{" * 10000,
    "<think>" * 8000,
    "```" * 30000,
    "- " * 30000 + "x",
    "9" * 5000,
    "Estimand: a" + " " * 20000 + "b",
    "\ud800",
    "\x00",
    "",
    "P(Y)" + "/P(Y)" * 3000,
    DEEP_QUOTIENTS,
    # runs of whitespace or delimiters that once took quadratic time (75 s for 20,000 spaces)
    "P(Y)" + " " * 20000,
    "a" + " " * 20000 + "b",
    "a" + " " * 20000 + "-> b",
    "Estimand: x" + "`" * 20000 + "y",
    '{"relationships": [' + ", ".join(['{"source": "a", "sink": "b"}'] * 3000) + "]}",
]


def mixed(alphabet: str) -> st.SearchStrategy[str]:
    """Text of the parser's own characters, of anything at all, or of both."""
    own = st.text(alphabet=alphabet, max_size=200)
    return st.one_of(
        own,
        st.text(max_size=200),
        st.lists(st.sampled_from(list(alphabet) + ["do(", "\\sum_{", "P("]), max_size=80).map("".join),
    )


EXPRESSION_CHARS = "PE()[]{}|,=_+-*/0123456789.XYZUVdo ∑Σ−×'"
GRAPH_CHARS = "XYZUV-><=,;\n ←→↔"
JSON_CHARS = '{}[]":,0123456789 \n`truefalsenull<think></think>abc-'


@FUZZ
@given(mixed(EXPRESSION_CHARS))
@example(PATHOLOGICAL[0])
@example(PATHOLOGICAL[6])
@example("P(Y|do(X=0),do(X=1))")
@example("P(Y_{X=1, X=0}=1)")
@example(" + ".join(["P(Y)"] * 3000))
@example("P(Y)" + "/P(Y)" * 3000)
@example(DEEP_QUOTIENTS)
def test_expression_parser(text):
    """A parsed expression prints and reads back (printing recurses along its tree), or one typed error."""
    try:
        expression = parse(text)
    except ExprParseError as error:
        assert len(str(error)) < 400
        return
    assert parse(expression.text) == expression


Y0_CHARS = "PSumQOneZero[](){}|,@+-~*/XYZW0123456789_ "


@FUZZ
@given(mixed(Y0_CHARS))
@example("Sum[Z](" * 3000)
@example("P(Y @ (" + "-X, " * 5000 + "-Z))")
@example("P[X](Y | Z) * " * 2000 + "One()")
@example("P(Y)" + " / P(Y)" * 3000)
@example("Sum[" + ", ".join(f"A{i}" for i in range(1000)) + "](P(Y))")
@example("__import__('os').system('true')")
def test_y0_text_reader(text):
    """y0's DSL text reads into an expression that prints back to the same text's meaning, or one typed error
    (it is never evaluated: y0's own reader calls eval)."""
    try:
        expression = from_y0_text(text)
    except (ExprParseError, Y0ConversionError) as error:
        assert len(str(error)) < 400
        return
    assert from_y0_text(to_y0_text(expression)) == expression


@FUZZ
@given(mixed(EXPRESSION_CHARS), mixed(GRAPH_CHARS))
@example("P(Y | do(X))", "X->Y,X<->Y")
@example("P(Y" + " | do(X)" * 2000 + ")", "X->Y")
@example("P(Y | do(X))", "->".join(f"V{i}" for i in range(300)) + ",X->Y")
def test_identify_answers_or_refuses(query, graph):
    """An identification, or the typed error of the query, the expression or the graph."""
    try:
        result = identify(query, graph, check=False)
    except (QueryError, ExprParseError, GraphError):
        return
    assert (result.estimand is None) is (result.hedge is not None)


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
@given(mixed("XYZ'=,0123456789 -"))
@example("Z=3, W=4")
@example("Z=3,Z=4")
@example("Z=" + "9" * 5000)
def test_values_option_reader(text):
    try:
        values = parse_values(text)
    except DomainError as error:
        assert len(str(error)) < 400
    else:
        assert all(type(count) is int for count in values.values())


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
@given(mixed(JSON_CHARS + "&*!$.naninfNaNInfinity\\u"))
@example(PATHOLOGICAL[1])
@example(PATHOLOGICAL[2])
@example(PATHOLOGICAL[8])
@example('{"a": NaN}')
@example("a: &a [1]\nb: *a")
@example('"\\ud800"')
def test_options_values_are_read_or_refused_in_one_line(text):
    """``--extra-body`` and options files: a checked value or one :class:`BadValue`, never another exception."""
    for load in (load_json, load_yaml):
        try:
            value = load(text)
        except BadValue as error:
            assert "\n" not in str(error)
        else:
            check_value(value)


@FUZZ
@given(st.text(max_size=200), st.text(min_size=1, max_size=40))
def test_a_registered_secret_never_survives_scrubbing(text, secret):
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(secret_values, "_secrets", set())
    monkeypatch.setattr(secret_values, "_pattern", [None])
    try:
        secret_values.register(secret)
        written = text + secret + json.dumps({"k": secret}) + text
        if len(secret.strip()) >= secret_values.MIN_SECRET_LENGTH:
            assert secret not in secret_values.scrub(written)
        if secret.strip():
            assert secret not in json.dumps(secret_values.scrub_value({"k": [secret]}))
    finally:
        monkeypatch.undo()


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
@given(
    mixed("- Observation 1: {}'\"[](),:0123456789.e+-density\n"),
    st.lists(mixed("Frequency set to Hz.Usage: 0123456789/ submissions\n"), max_size=4),
)
@example("- Observation 1: {'a': " + "[" * 1990 + "}", [])
@example("- Observation 1: {'a': 1e999999}", ["Frequency set to 1e999 Hz. Usage: 1/3 submissions"])
@example("- Observation 1: {'a': (1).__class__}", [])
def test_causalab_upstream_run_text_parsers(task_text, messages):
    try:
        records = parse_observations(task_text)
    except ValueError:
        records = []
    assert all(isinstance(v, float) and math.isfinite(v) for record in records for v in record.values())
    assert all(isinstance(v, float) and math.isfinite(v) for v in parse_submissions(messages))


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
@given(
    st.lists(
        st.lists(st.one_of(edge, edge.map(lambda e: f"{e[0]} -> {e[1]}"), st.text(max_size=8)), max_size=6),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["exact", "normalized", "fuzzy"]),
    st.sampled_from([1, 2]),
)
def test_graph_metric_scores_unreadable_predictions_the_worst(graphs, matching, cost):
    readable = [g for g in graphs if _readable(g)]
    if not readable:
        return
    references = [readable[i % len(readable)] for i in range(len(graphs))]
    batch = compare_graph_batch(graphs, references, node_matching=matching, reversal_cost=cost)
    assert len(batch.items) == len(graphs) and batch.macro["count"] == len(graphs)
    assert {e.index for e in batch.errors} == {i for i, g in enumerate(graphs) if not _readable(g)}
    for error in batch.errors:
        worst = batch.items[error.index]
        assert worst.edge_f1 == 0.0 and worst.shd >= compare_graphs([], references[error.index]).shd


def _readable(graph) -> bool:
    try:
        compare_graphs(graph, [])
    except GraphError:
        return False
    return True


@FUZZ
@given(
    st.lists(st.tuples(mixed(EXPRESSION_CHARS), mixed(EXPRESSION_CHARS), mixed(GRAPH_CHARS)), min_size=1, max_size=3)
)
def test_equivalence_metric_never_fails_a_batch(pairs):
    result = score_pairs([a for a, _, _ in pairs], [b for _, b, _ in pairs], [g for _, _, g in pairs])
    assert len(result["verdicts"]) == len(pairs) and 0.0 <= result["accuracy"] <= 1.0


episode = st.fixed_dictionaries(
    {
        "gold": st.sampled_from(["yes", "no"]),
        "prediction": st.sampled_from(["yes", "no", None, ""]),
        "structure": st.sampled_from(["direct", "random"]),
        "num_variables": st.one_of(st.integers(2, 7), st.none()),
        "steps": st.one_of(st.integers(0, 14), st.text(max_size=3)),
        "error": st.sampled_from([None, "invalid_format", "bogus"]),
    }
)


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
        (parse, ExprParseError),
        (lambda t: CausalGraph.parse(t), GraphError),
        (extract_json_block, StructuredError),
        (extract_yaml_block, StructuredError),
        (read_prediction, AnswerFormatError),
        (lambda t: evaluate_equation(t, {}, {}), FormulaError),
        (from_y0_text, (ExprParseError, Y0ConversionError)),
    ]:
        try:
            call(text)
        except allowed:
            pass
    parse_step(text), parse_action(text), extract_estimand(text), parse_tf(text)
    assert isinstance(check_equivalence(text, "P(Y)", "Y", prove=False), Verdict)
    assert isinstance(Redactor([Path("/tmp/run")], {"API_KEY": "a-secret-value"}).text(text), str)


@pytest.mark.parametrize("run", [" " * 20000, "\t \n" * 5000, "\u00a0" * 20000])
def test_a_run_of_whitespace_changes_no_parse(run):
    """Whitespace between tokens, around edge marks or after a value is ignored however long it is."""
    expression = "P(Y | do(X)) + P(Y)"
    spaced = expression.replace(" ", run[:15000])  # the whole text stays within the parser's 100,000 characters
    assert parse(spaced + run) == parse(expression)
    assert CausalGraph.parse(f"A{run}->{run}B, C <-{run}D".replace("\n", " ")) == CausalGraph.parse("A -> B, C <- D")
    assert read_prediction(f"A{run.replace(chr(10), ' ')}->  B\nC -> D{run}").edges == (("A", "B"), ("C", "D"))
    assert extract_estimand(f"Estimand: `P(Y)`{run.replace(chr(10), ' ')}.") == "P(Y)"


# --- ReCAST and CoBe analyses (readers of server replies and judge answers, agreement statistics) -------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**12) | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "data",
                    "id",
                    "meta",
                    "count",
                    "tokens",
                    "max_model_len",
                    "context_length",
                    "n_ctx",
                    "default_generation_settings",
                    "top_provider",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@FUZZ
@given(json_values)
@example({"data": [{"id": "m", "max_model_len": float("nan")}]})
@example({"data": [{"id": "m", "context_length": True}]})
def test_context_window_and_token_count_readers(reply):
    from causal_datasets.llm.context import count_from_reply, window_from_listing, window_from_props

    for value in (window_from_listing(reply, "m"), window_from_props(reply)):
        assert value is None or (isinstance(value, int) and value > 0)
    count = count_from_reply(reply)
    assert count is None or (isinstance(count, int) and count >= 0)


@FUZZ
@given(st.text(max_size=300))
@example("Mode 3.")
@example("1-7")
@example("7" * 20000)
def test_failure_mode_reader(text):
    from causal_datasets.cobe.failure_modes import parse_mode

    assert parse_mode(text) in (None, 1, 2, 3, 4, 5, 6, 7)


names = st.text(alphabet=string.ascii_letters + " ", min_size=1, max_size=12).map(str.strip).filter(bool)


@FUZZ
@given(st.lists(st.tuples(names, names).filter(lambda e: e[0] != e[1]), min_size=1, max_size=6))
def test_edge_lines_whose_names_say_relationships_are_still_edges(edges):
    edges = [(f"{a} relationships", b) for a, b in edges]
    graph = read_prediction("\n".join(f"{a} -> {b}" for a, b in edges))
    assert set(graph.edges) == {(" ".join(a.split()), " ".join(b.split())) for a, b in edges}


@FUZZ
@given(
    st.lists(st.lists(st.sampled_from("ABC"), min_size=3, max_size=3), max_size=12),
    st.lists(st.tuples(st.sampled_from("xy"), st.sampled_from("xy")), max_size=12),
)
def test_agreement_statistics_are_kappas_or_undefined(ratings, pairs):
    from causal_datasets.agreement import cohen_kappa, fleiss_kappa

    for kappa in (fleiss_kappa(ratings), cohen_kappa([a for a, _ in pairs], [b for _, b in pairs])):
        assert kappa is None or -1 - 1e-9 <= kappa <= 1 + 1e-9


@FUZZ
@given(st.lists(st.floats(0, 1), min_size=1, max_size=60), st.integers(1, 6))
def test_balanced_bins_partition_the_values(values, count):
    from causal_datasets.recast.analysis import balanced_bins, bin_of

    bins = balanced_bins(values, count)
    assert 1 <= len(bins) <= count and sum(b.size for b in bins) == len(values)
    assert all(b.low <= b.high for b in bins) and all(a.high < b.low for a, b in pairwise(bins))
    assert all(bin_of(v, bins).low <= v <= bin_of(v, bins).high for v in values)


# --- DoVerifier: independence statements, derivations, the paper's answers, the judge, the diagnosis ------

INDEPENDENCE_CHARS = "XYZVW12 ,;|⊥⫫_\nindep"


@FUZZ
@given(mixed(INDEPENDENCE_CHARS), st.booleans())
@example("X ⊥ Y | Z; Y ⊥ Z", True)
@example("X ⊥ Y; X ⊥ Y | Z", True)
@example(";".join(f"A{i} ⊥ B{i}" for i in range(3000)), False)
@example(PATHOLOGICAL[4], False)
def test_independence_statements(text, complete):
    from causal_datasets.docalc.independence import IndependenceError, Independences

    try:
        known = Independences.parse(text, complete=complete)
    except IndependenceError as error:
        assert len(str(error)) < 300
        return
    verdict = check_equivalence("P(Y | X)", "P(Y)", known, prove=False)
    assert verdict.equivalent is not False or verdict.counterexample is not None
    assert verdict.equivalent is not None or verdict.error


@FUZZ
@given(mixed(EXPRESSION_CHARS + "\n=by rule 123Derivation:"))
@example("Derivation:\n" + "= P(Y) by rule 1\n" * 500)
@example("Derivation: " + "(" * 3000)
@example("Derivation:\nP(Y|do(X))\n= P(Y|X) by " + "rule " * 4000)
def test_derivation_reader_and_checker(text):
    from causal_datasets.cladder_pairs.cladder import family_graph
    from causal_datasets.docalc.derivation import MAX_STEPS, score_derivation

    score = score_derivation("Derivation:\n" + text, family_graph("confounding"))
    assert (score.error is None) or not score.steps
    assert len(score.steps) <= MAX_STEPS and all(s.status for s in score.steps)


@FUZZ
@given(st.text(max_size=300))
@example("Expression: P(Y)\nGraphical Representation: " + "X->" * 5000 + "Y\nFinal Answer: yes")
@example("Graph: X->Y, Y->X")
@example("Verdict: " + "not " * 5000 + "equivalent")
def test_paper_answer_and_judge_readers(text):
    from types import SimpleNamespace

    from causal_datasets.cladder_pairs.judge import parse_verdict
    from causal_datasets.cladder_pairs.paper_task import model_graph, read_answer

    answer = read_answer(text)
    graph, error, _ = model_graph(answer.graph, SimpleNamespace(latent=["V1"]))
    assert (graph is None) == (error is not None) and answer.final_answer in (None, "yes", "no")
    assert parse_verdict(text) in (True, False, None)


@FUZZ
@given(st.one_of(st.none(), mixed(EXPRESSION_CHARS)), st.sampled_from(["ate", "correlation", "nde"]))
@example("P(Y | do(X), do(V1))", "ate")
@example("Y_{X=1, V2_{X=0}}", "nie")
def test_diagnosis_of_any_answer(answer, query_type):
    from causal_datasets.cladder_pairs.cladder import family_graph
    from causal_datasets.cladder_pairs.feedback import diagnose

    for family in ("confounding", "IV", "frontdoor"):
        findings = diagnose(answer, family_graph(family), query_type=query_type)
        assert all(finding.message for finding in findings)


@FUZZ
@given(mixed(EXPRESSION_CHARS), mixed(EXPRESSION_CHARS))
@example(PATHOLOGICAL[6], "P(Y)")
@example("P(" * 20000, ")" * 20000)
def test_token_baselines(prediction, reference):
    from causal_datasets.docalc.baselines import bleu, token_f1

    assert 0.0 <= bleu(prediction, reference) <= 1.0 + 1e-12 and 0.0 <= token_f1(prediction, reference) <= 1.0


# --- reasoning in model replies ----------------------------------------------------------------------


def _strip_thinking_before_reasoning_was_kept(text: str) -> str:
    """``strip_thinking`` as it was before ``split_thinking`` also kept the reasoning: the reference."""
    lowered, kept, position = text.lower(), [], 0
    while (start := lowered.find("<think>", position)) != -1:
        kept.append(text[position:start])
        end = lowered.find("</think>", start)
        if end == -1:
            position = len(text)
            break
        position = end + len("</think>")
    kept.append(text[position:])
    text = "".join(kept)
    lowered = text.lower()
    if "</think>" in lowered:
        text = text[lowered.rindex("</think>") + len("</think>") :]
    return text.strip()


@FUZZ
@given(mixed("<think></think>THINK a\n"))
@example(PATHOLOGICAL[3])
@example("</think>" * 8000 + "answer")
@example("a<think>b</think>c</think>d<think>e")
def test_thinking_is_split_from_the_answer(text):
    from causal_datasets.llm.thinking import split_thinking

    answer, reasoning = split_thinking(text)
    if text.isascii():
        assert answer == _strip_thinking_before_reasoning_was_kept(text)
    assert "<think>" not in answer.lower() and "</think>" not in answer.lower()
    assert len(answer) + len(reasoning.replace("\n\n", "")) <= len(text)


usage_values = st.one_of(
    st.none(),
    st.integers(-5, 10**13),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)
reply_bodies = st.fixed_dictionaries(
    {
        "choices": st.lists(
            st.fixed_dictionaries(
                {
                    "message": st.fixed_dictionaries(
                        {"content": st.one_of(st.none(), st.text(max_size=60)) | usage_values},
                        optional={
                            "reasoning_content": usage_values | st.text(max_size=40),
                            "reasoning": usage_values | st.dictionaries(st.text(max_size=3), usage_values),
                        },
                    ),
                    "finish_reason": st.sampled_from(["stop", "length", None]),
                }
            ),
            max_size=2,
        ),
    },
    optional={
        "usage": st.one_of(
            usage_values,
            st.fixed_dictionaries(
                {},
                optional={
                    "prompt_tokens": usage_values,
                    "completion_tokens": usage_values,
                    "prompt_cache_hit_tokens": usage_values,
                    "completion_tokens_details": usage_values
                    | st.dictionaries(st.just("reasoning_tokens"), usage_values),
                    "prompt_tokens_details": usage_values | st.dictionaries(st.just("cached_tokens"), usage_values),
                },
            ),
        )
    },
)


@FUZZ
@given(reply_bodies)
def test_any_reply_body_is_a_chat_result_with_whole_counts_or_a_value_error(body):
    from causal_datasets.llm.client import parse_completion

    try:
        result = parse_completion(body)
    except ValueError:
        return
    for count in (result.prompt_tokens, result.completion_tokens, result.reasoning_tokens, result.cache_read_tokens):
        assert isinstance(count, int) and 0 <= count < 10**12
    assert result.reasoning is None or (isinstance(result.reasoning, str) and result.reasoning)


URL_AND_PATH_CHARS = "/:@?#.~-_ab1 \n'\"=[]"


@FUZZ
@given(mixed(URL_AND_PATH_CHARS), mixed(URL_AND_PATH_CHARS))
@example("http:/", "")
@example("file:/", "x")
@example("Token ", "@h")
@example("a", "b/c")
@example("1", "")
@example("1file:/", "")
def test_redaction_removes_a_planted_secret_whatever_surrounds_it(prefix, suffix):
    secret, folder = "env-secret-value-9", "/tmp/run-folder/x1"
    redactor = Redactor([Path(folder)], {"OPENAI_API_KEY": secret})
    assert secret not in redactor.text(prefix + secret + suffix)
    assert folder not in redactor.text(prefix + folder + suffix)
    assert "pa55word" not in redactor.text(prefix + "https://user:pa55word@host/v1?key=k3y" + suffix)
    assert "k3y" not in redactor.text(prefix + "https://host/v1?key=k3y" + suffix)
