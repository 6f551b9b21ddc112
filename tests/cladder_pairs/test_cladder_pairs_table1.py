"""DoVerifier's Table 1 as the paper ran it: App. G with CLadder's legend, the formal form as the reference,
CLadder's shorthand read as CLadder means it (checked against CLadder's own numbers), both references'
verdicts on every result line, and the reference agents of the docs page's table."""

import re

import pytest

from causal_datasets.cladder_pairs import paper_task
from causal_datasets.cladder_pairs.cladder import (
    NUMBER_TOLERANCE,
    estimand_expression,
    estimand_value,
    formal_expression,
    read_questions,
    try_parse,
)
from causal_datasets.cladder_pairs.estimand_task import read_answer_expression, reference_unobserved
from causal_datasets.cladder_pairs.options import CladderOptions
from causal_datasets.cladder_pairs.replies import Reply, score_reply
from causal_datasets.cladder_pairs.rows import cladder_rows, question_rows
from causal_datasets.cli import main
from causal_datasets.llm.stub_server import StubReply, completion_body
from causal_datasets.runners.results import read_summary
from tests.cladder_pairs.test_cladder_pairs_task import stub_run
from tests.support.builds import built_once, small_cladder_build
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields

CLADDER = SHARED_DATA_DIR / "cladder"


@pytest.fixture(scope="module")
def cladder():
    return read_questions(CLADDER)


@pytest.fixture(scope="module")
def asked(cladder):
    """The 3,410 questions ``eval`` asks."""
    return [q for q in question_rows(cladder) if not reference_unobserved(q)]


@pytest.fixture(scope="module")
def pairs(cladder):
    return cladder_rows(cladder, seed=0)


@pytest.fixture(scope="module")
def labels(pairs):
    return {row.id: row.equivalent for row in pairs if row.pair_kind == "formal_vs_estimand"}


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    return built_once(tmp_path_factory, "small-cladder", small_cladder_build)


def _oracle_checked(questions, text_of, query_type, family=None):
    """The questions with CLadder's model and number whose ``text_of`` is CLadder's shorthand ``P(Y|X)``."""
    return [
        q
        for q in questions
        if q.model is not None
        and q.groundtruth is not None
        and q.query_type == query_type
        and (family is None or q.graph_id == family)
        and re.sub(r"\s", "", text_of(q) or "") == "P(Y|X)"
    ]


@pytest.mark.parametrize(
    ("query_type", "family", "text_of", "read"),
    [
        ("correlation", None, lambda q: q.formal_form, formal_expression),
        ("ate", "fork", lambda q: q.estimand, estimand_expression),
    ],
)
def test_cladders_shorthand_read_as_a_contrast_gives_cladders_numbers(cladder, query_type, family, text_of, read):
    """``P(Y | X)`` written for a contrast (the correlation formal form, the fork ATE estimand) read as
    ``P(Y=1|X=1) - P(Y=1|X=0)``: on CLadder's own model it gives CLadder's ``groundtruth`` on every such
    question; read literally (free values at 1, i.e. ``P(Y=1|X=1)``) on none."""
    checked = _oracle_checked(cladder, text_of, query_type, family)
    assert len(checked) > 50
    for q in checked:
        assert read(q).text == "P(Y=1 | X=1) - P(Y=1 | X=0)"
        assert abs(estimand_value(read(q), q) - q.groundtruth) <= NUMBER_TOLERANCE, q.question_id
    literal = [abs(estimand_value(try_parse(text_of(q)), q) - q.groundtruth) <= NUMBER_TOLERANCE for q in checked]
    assert not any(literal)


def test_an_answer_with_the_outcome_left_free_is_read_at_y_1(cladder, asked):
    """``P(Y | X=1) - P(Y | X=0)`` in a correlation question is CLadder's contrast at ``Y=1``: its value on
    CLadder's model is the question's number; in a marginal question, ``P(Y)`` keeps its free outcome; only a
    single distribution is read as a contrast."""
    models = {(q.source_file, q.question_id): q for q in cladder}
    rows = [q for q in asked if q.query_type == "correlation" and q.source_file.startswith("test-generate")]
    checked = 0
    for row in rows:
        q = models[(row.source_file, row.question_id)]
        if q.model is None or q.groundtruth is None:
            continue
        value = estimand_value(read_answer_expression("P(Y | X=1) - P(Y | X=0)", row), q)
        assert abs(value - q.groundtruth) <= NUMBER_TOLERANCE
        checked += 1
    assert checked > 50
    marginal = next(q for q in asked if q.query_type == "marginal")
    assert read_answer_expression("P(Y)", marginal).text == "P(Y)"
    # only a distribution is shorthand: a free X elsewhere stays free, so an added term is not cancelled
    assert read_answer_expression("P(Y | X) + P(X=1)", rows[0]).text == "P(X=1) + P(Y=1 | X)"
    options = _options()
    assert _scored(rows[0], "P(Y | X) + P(X=1)", options)["equivalent"] is False
    assert _scored(rows[0], "P(Y | X)", options)["equivalent"] is True


def test_the_cladder_config_pairs_shorthand_and_contrast_as_equal(labels, pairs):
    """With the shorthand read, the correlation and fork-ATE pairs are equal; CLadder's number and the estimand's
    value agree on every such pair with a model."""
    own = [r for r in pairs if r.pair_kind == "formal_vs_estimand"]
    correlation = [r for r in own if r.query_type == "correlation"]
    fork_ate = [r for r in own if (r.query_type, r.graph_id) == ("ate", "fork")]
    assert all(r.equivalent for r in correlation + fork_ate) and len(correlation) > 700 and len(fork_ate) > 70
    assert all(r.numbers_agree is not False for r in correlation + fork_ate)
    assert {r.query_type for r in own if not r.equivalent} == {"ate", "exp_away", "nde", "nie"}


def test_every_paper_request_carries_the_legend(asked):
    """All 3,410 requests of ``--prompt paper``: the description is followed by CLadder's legend on its own line,
    as in App. G's examples, and every V1/V2/V3 a reference names is in that legend."""
    assert len(asked) == 3410
    named = 0
    for q in asked:
        (message,) = paper_task.build_messages(q)
        assert message["content"].endswith(f"Prompt: {paper_task.question_story(q)}\n{q.legend}")
        names = set(re.findall(r"V\d", f"{q.formal_form} {q.estimand}"))
        named += bool(names)
        legend = set(re.findall(r"(V\d)\s*=", q.legend or ""))
        assert names <= legend, (q.id, names, q.legend)
    assert named >= 787


def _options(**values):
    return CladderOptions(prompt="paper", **values)


def _scored(q, expression, options):
    return score_reply(Reply(raw="", expression=expression), q, options)


def test_reference_agents_on_every_question(asked, labels):
    """Every asked question, answered by three agents: the formal form (the paper's Expression line) is
    right and a string match against the formal form; CLadder's estimand is equal to the formal form exactly
    where the ``cladder`` config says the pair is equal, and a string match against the estimand; both
    references' verdicts are on every line."""
    options = _options()
    assert options.reference == "formal-form" and _options(reference="estimand").reference == "estimand"
    for q in asked:
        formal = _scored(q, q.formal_form, options)
        assert (formal["equivalent"], formal["string_match"]) == (True, True), q.id
        assert formal["by_reference"]["formal-form"]["equivalent"] is True
        estimand = _scored(q, q.estimand, options)
        assert estimand["equivalent"] is labels[q.id], q.id
        assert estimand["by_reference"]["estimand"]["equivalent"] is True
        assert estimand["by_reference"]["estimand"]["string_match"] is True
        assert estimand["by_reference"]["formal-form"] == {
            k: estimand[k] for k in ("equivalent", "identified", "string_match", "bleu", "token_f1", "error")
        }


def _story_question(request, by_story):
    prompt = request["messages"][-1]["content"].rsplit("Prompt: ", 1)[1]
    return by_story[prompt.rsplit("\n", 1)[0]]


def _answering(by_story, expression_of):
    def respond(request, index):
        q = _story_question(request, by_story)
        graph = ", ".join(f"{e.source}->{e.target}" for e in q.edges)
        text = f"Solution:\nExpression: {expression_of(q)}\nGraphical Representation: {graph}\nFinal Answer: Yes"
        return StubReply(body=completion_body(text))

    return respond


def _eval(out, dataset_dir, respond, *flags):
    """``eval cladder_pairs --prompt paper`` on the stub ``respond``: the summary and the requests."""
    return stub_run(out, dataset_dir, respond, "--prompt", "paper", *flags)


def test_table_1_with_stub_models_and_a_rescore_that_switches_the_reference(dataset_dir, tmp_path, asked, labels):
    """``eval --prompt paper`` on stub models: the formal-form answerer scores 1.0 on string match and
    equivalence; the estimand answerer scores, on equivalence, the share of its questions whose CLadder pair
    is equal; ``rescore --reference estimand`` turns both around with no model call."""
    by_story = {paper_task.question_story(q): q for q in asked}
    formal, requests = _eval(
        tmp_path / "formal", dataset_dir, _answering(by_story, lambda q: q.formal_form), "--limit", "120"
    )
    m = formal.metrics
    assert (m.count, m.reference, m.string_match, m.equivalence_accuracy, m.accuracy) == (120, "formal-form", 1, 1, 1)
    assert len(requests) == 120 and all(i["reference_kind"] == "formal-form" for i in item_fields(tmp_path / "formal"))
    estimand, _ = _eval(
        tmp_path / "estimand", dataset_dir, _answering(by_story, lambda q: q.estimand), "--limit", "120"
    )
    ids = [i["id"] for i in item_fields(tmp_path / "estimand")]
    assert estimand.metrics.equivalence_accuracy == sum(labels[i] for i in ids) / 120 < 1
    assert estimand.metrics.by_reference["estimand"] == {
        "equivalence_accuracy": 1.0,
        "identification_accuracy": estimand.metrics.by_reference["estimand"]["identification_accuracy"],
        "string_match": 1.0,
    }
    assert (
        main(["rescore", str(tmp_path / "estimand"), "--out", str(tmp_path / "again"), "--reference", "estimand"]) == 0
    )
    again = read_summary(tmp_path / "again")["metrics"]
    assert (again["reference"], again["string_match"], again["equivalence_accuracy"]) == ("estimand", 1.0, 1.0)
    assert again["by_reference"] == estimand.metrics.by_reference


def test_a_wrong_adjustment_scores_zero(dataset_dir, tmp_path, asked, pairs):
    """ATE questions answered with a verified wrong adjustment of their graph (the ``cladder`` config's hard
    negatives): 0 under both references and both rules."""
    wrong = {r.graph_id: r.expr_b for r in pairs if r.pair_kind == "wrong_adjustment"}
    families = sorted(wrong)
    by_story = {paper_task.question_story(q): q for q in asked}
    summary, _ = _eval(
        tmp_path / "wrong",
        dataset_dir,
        _answering(by_story, lambda q: wrong[q.graph_id]),
        "--query-types",
        "ate",
        "--graph-families",
        *families,
        "--limit",
        "60",
    )
    m = summary.metrics
    assert m.count == 60 and (m.accuracy, m.equivalence_accuracy, m.string_match) == (0, 0, 0)
    assert all(rates["equivalence_accuracy"] == rates["string_match"] == 0 for rates in m.by_reference.values())
