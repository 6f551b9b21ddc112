"""The CLadder estimand task: prompt, answer extraction, scoring, and ``causal-datasets eval cladder_pairs``."""

import pytest

from causal_datasets.docalc.cladder import FAMILY_EDGES, family_graph, formal_expression, read_questions
from causal_datasets.docalc.rows import question_rows
from causal_datasets.docalc.task import SYSTEM_PROMPT, build_messages, example_for, extract_estimand, score_answer
from causal_datasets.docalc.verdict import check_equivalence
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from tests.support.builds import small_cladder_build
from tests.support.data import SHARED_DATA_DIR
from causal_datasets.runners.results import read_results, read_summary
from tests.support.runs import run_eval

CLADDER = SHARED_DATA_DIR / "cladder"
BACKDOOR = "\\sum_{V1=v} P(V1=v)*[P(Y=1|V1=v,X=1) - P(Y=1|V1=v, X=0)]"  # CLadder's confounding ATE estimand


@pytest.fixture(scope="module")
def questions():
    return question_rows(read_questions(CLADDER))


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    return small_cladder_build(tmp_path_factory.mktemp("hub"))


def question(questions, family, query_type):
    return next(q for q in questions if q.graph_id == family and q.query_type == query_type)


def test_questions_cover_every_parsable_cladder_pair(questions):
    assert len(questions) == 3627 and len({q.id for q in questions}) == 3627
    assert {q.graph_id for q in questions} == set(FAMILY_EDGES)
    assert all(q.question and q.given_info and q.answer in ("yes", "no") for q in questions)
    assert {q.source_file for q in questions if q.background} == {"cladder-v1-q-balanced_rand-top1000"}
    frontdoor = question(questions, "frontdoor", "ate")
    assert frontdoor.latent == ["V1"] and frontdoor.legend.startswith("Let ")


def test_prompt_structure_and_example_from_another_family(questions):
    q = question(questions, "confounding", "ate")
    messages = build_messages(q)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0]["content"] == SYSTEM_PROMPT and "Estimand: <expression>" in SYSTEM_PROMPT
    user = messages[3]["content"].splitlines()
    assert user[0] == "Causal graph: V1 -> X, V1 -> Y, X -> Y"
    assert user[1:3] == ["Observed variables: V1, X, Y", "Unobserved variables: none"]
    assert f"Question: {q.question}" in user and f"Given: {q.given_info}" in user
    assert user[-1] == f"Causal quantity to identify: {formal_expression(q).text}"
    assert BACKDOOR not in messages[3]["content"]  # the answer is not leaked
    assert "V1 -> X, X -> V3" in messages[1]["content"]  # the example is the front-door family
    assert messages[2]["content"].splitlines()[-1].startswith("Estimand: ")
    iv = build_messages(question(questions, "IV", "ate"))[3]["content"]
    assert "Observed variables: X, V2, Y" in iv and "Unobserved variables: V1" in iv
    nde = build_messages(question(questions, "mediation", "nde"))[3]["content"]  # CLadder's V2=0 is V2_{X=0}
    assert nde.endswith("Causal quantity to identify: E[Y_{V2_{X=0}, X=1} - Y_{V2_{X=0}, X=0}]")


@pytest.mark.parametrize("family", sorted(FAMILY_EDGES))
def test_worked_example_is_another_family_and_correct(family):
    example, _ = example_for(family)
    assert example.graph_id != family
    verdict = check_equivalence(example.estimand, example.formal_form, family_graph(example.graph_id))
    assert verdict.equivalent is True  # the example teaches a right identification


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The back-door set is V1.\nEstimand: P(Y=1|X=1) - P(Y=1|X=0)", "P(Y=1|X=1) - P(Y=1|X=0)"),
        ("**Estimand:** `P(Y=1|X=1)`.", "P(Y=1|X=1)"),
        ("estimand = $P(Y=1 | X=1)$", "P(Y=1 | X=1)"),
        ('{"estimand": "P(Y=1|X=0)"}', "P(Y=1|X=0)"),
        ("Estimand: P(X=1)\nOn reflection:\nEstimand: \\(P(Y=1|X=1)\\)", "P(Y=1|X=1)"),
        ("<think>Estimand: P(X=1)</think>\nEstimand: P(Y=1)", "P(Y=1)"),
        ("<think>Estimand: P(X=1) but I am still thinking", None),
        ("The answer is P(Y=1|X=1).", None),
        ("", None),
    ],
)
def test_extraction_of_messy_answers(text, expected):
    assert extract_estimand(text) == expected


def test_scoring_hand_written_answers(questions):
    q = question(questions, "confounding", "ate")
    assert q.estimand == BACKDOOR
    rewritten = score_answer("\\sum_{V1} P(Y=1|X=1,V1)*P(V1) - \\sum_{V1} P(V1)*P(Y=1|V1,X=0)", q)
    assert rewritten["equivalent"] is True and rewritten["string_match"] is False and rewritten["error"] is None
    confounded = score_answer("P(Y=1|X=1) - P(Y=1|X=0)", q)
    assert confounded["equivalent"] is False and confounded["method"] == "semantic" and confounded["proof_length"] is None
    interventional = score_answer("P(Y=1|do(X=1)) - P(Y=1|do(X=0))", q)  # equal, but the query itself: not identified
    assert interventional["equivalent"] is False and interventional["error"] == "not_identified"
    assert score_answer(BACKDOOR.replace(" ", ""), q)["string_match"] is True
    assert score_answer("P(Z=1|X=1)", q)["error"] == "unknown_variable"
    assert score_answer("P(Y=1|X=1", q)["error"] == "unparsable"
    assert score_answer(None, q)["error"] == "no_expression"
    assert score_answer("P(Y=2|X=1)", q)["error"] == "undecided"  # outside the binary domain
    nested = score_answer("(" * 3000 + "P(Y=1)" + ")" * 3000, q)  # refused before any recursion
    assert nested["error"] == "unparsable" and "nested deeper than 100" in nested["detail"]
    iv = question(questions, "IV", "ate")
    adjusted = score_answer("\\sum_{V1} P(V1) * [P(Y=1|V1,X=1) - P(Y=1|V1,X=0)]", iv)  # V1 is unobserved
    assert adjusted["equivalent"] is None and adjusted["error"] == "unobserved_variable"


def test_the_queried_quantity_copied_back_is_never_a_right_answer(questions):
    """The prompt shows the quantity to identify; on rungs 2 and 3 it has do() or counterfactual terms
    and every CLadder estimand is observational, so copying that line back must score wrong."""
    by_type = {}
    for q in questions:
        if q.rung > 1:
            by_type.setdefault((q.graph_id, q.query_type), q)
    assert len(by_type) > 20
    for q in by_type.values():
        copied = score_answer(formal_expression(q).text, q)
        assert copied["equivalent"] is False and copied["error"] == "not_identified", (q.id, formal_expression(q).text)
        assert score_answer(q.estimand, q)["equivalent"] is True, q.id


def test_runner_on_a_stub_model_with_resume(dataset_dir, tmp_path):
    answers = iter(["Estimand: P(Y=1|X=1) - P(Y=1|X=0)", "no idea", "Estimand: P(Y=1|X=", "Estimand: P(Q=1)"])

    def respond(request, index):
        return StubReply(body=completion_body(next(answers, "Estimand: P(Y=1)"), prompt_tokens=7, completion_tokens=3))

    out = tmp_path / "run"
    common = ["cladder_pairs", "--out", str(out), "--hub-dir", str(dataset_dir), "--no-cache", "--concurrency", "1"]
    with StubServer(lambda request, index: StubReply(status=500, text="down")) as broken:
        first = run_eval(*common, "--limit", "2", "--max-retries", "0", "--model", "stub", "--base-url", broken.base_url)
    assert first.status == "failed" and first.failures == {"retries_exhausted": 2} and first.metrics.n == 0
    with StubServer(respond) as server:
        summary = run_eval(*common, "--limit", "5", "--resume", "--model", "stub", "--base-url", server.base_url)
        assert server.count == 5  # the two failed items are asked again, then three new ones
        again = run_eval(*common, "--limit", "5", "--resume", "--model", "stub", "--base-url", server.base_url)
        assert server.count == 5  # nothing left to ask
    items = {i["id"]: i for i in read_results(out)}
    assert len(items) == 5
    first_item = items[next(iter(items))]
    assert first_item["messages"][-1]["role"] == "user" and first_item["raw"] is not None
    metrics = summary.metrics
    assert metrics.n == 5 and sum(metrics.errors.values()) == sum(i["error"] is not None for i in items.values())
    assert {"no_expression", "unparsable", "unknown_variable"} <= set(metrics.errors)
    assert metrics.accuracy == sum(i["equivalent"] is True for i in items.values()) / 5
    assert sum(s["n"] for s in summary.slices["by_graph_family"].values()) == 5
    assert set(summary.slices["by_rung"]) <= {"1", "2", "3"} and summary.slices["by_query_type"]
    assert again.metrics == metrics and read_summary(out)["metrics"] == metrics.model_dump()
    assert (summary.dataset.name, summary.dataset.configs, summary.models["model"]) == ("cladder_pairs", ["questions"], "stub")
    # usage adds up over invocations: 2 failed calls first, then 5 answered ones, then none
    assert summary.invocations == 2 and summary.usage["model"].calls == 2 + 5
    assert summary.usage["model"].prompt_tokens == 35 and summary.usage_total.http_requests == 2 + 5
    assert again.invocations == 3 and again.usage == summary.usage


@pytest.mark.llm
def test_local_model_on_two_questions(dataset_dir, tmp_path, local_llm):
    summary = run_eval("cladder_pairs", "--out", str(tmp_path / "run"), "--hub-dir", str(dataset_dir), "--limit", "2",
                       "--model", local_llm.model, "--base-url", local_llm.base_url, "--max-tokens", "256", "--no-cache")
    items = read_results(tmp_path / "run")
    assert len(items) == 2 and summary.metrics.n == 2
    for item in items:
        assert item["raw"] is not None
        assert (item["equivalent"] is not None) != (item["error"] is not None)  # decided, or a named failure
    assert summary.usage["model"].calls == 2
