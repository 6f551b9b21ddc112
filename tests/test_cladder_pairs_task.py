"""The CLadder estimand task: prompt, answer extraction, scoring, and ``causal-datasets eval cladder_pairs``."""

from types import SimpleNamespace

import pytest

from causal_datasets.docalc.cladder import FAMILY_EDGES, family_graph, formal_expression, read_questions
from causal_datasets.docalc.rows import question_rows
from causal_datasets.docalc.task import (
    SYSTEM_PROMPT,
    build_messages,
    example_for,
    extract_estimand,
    reference_unobserved,
    score_answer,
)
from causal_datasets.docalc.verdict import check_equivalence
from causal_datasets.cli import main
from causal_datasets.docalc.baselines import normalize_string
from causal_datasets.docalc.derivation import DERIVATION_REQUEST
from causal_datasets.docalc import paper_task
from causal_datasets.docalc.judge import JUDGE_SYSTEM, parse_verdict
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
    assert all(q.background and q.background.startswith("Imagine a self-contained") for q in questions)
    frontdoor = question(questions, "frontdoor", "ate")
    assert frontdoor.latent == ["V1"] and frontdoor.legend.startswith("Let ")


def test_arrowhead_stories_say_v2_is_unobserved_and_the_rows_list_it(questions):
    """Every arrowhead story says its V2 is unobserved; CLadder's natural-effect estimands there use V2,
    so those questions cannot be answered over observed variables and the runner leaves them out."""
    arrowhead = [q for q in questions if q.graph_id == "arrowhead"]
    assert len(arrowhead) == 664 and all(q.latent == ["V2"] for q in arrowhead)
    for q in arrowhead:
        name = q.legend.split("V2 = ")[1].split(";")[0].strip().rstrip(".")
        assert f"{name[:1].upper()}{name[1:]} is unobserved." in q.background, q.id
    assert "Unobserved variables: V2" in build_messages(arrowhead[0])[3]["content"]
    unanswerable = [q for q in arrowhead if reference_unobserved(q)]
    assert len(unanswerable) == 217 and {q.query_type for q in unanswerable} == {"nde", "nie"}
    assert not any(reference_unobserved(q) for q in questions if q.graph_id != "arrowhead")
    scored = score_answer(unanswerable[0].estimand, unanswerable[0])
    assert scored["equivalent"] is None and scored["error"] == "reference_unobserved"
    ate = question(questions, "arrowhead", "ate")
    assert score_answer(ate.estimand, ate)["equivalent"] is True


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
        if q.rung > 1 and not reference_unobserved(q):
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
        summary = run_eval(*common, "--limit", "5", "--extend", "--model", "stub", "--base-url", server.base_url)
        assert server.count == 5  # the two failed items are asked again, then three new ones
        again = run_eval(*common, "--resume", "--model", "stub", "--base-url", server.base_url)  # the run's --limit 5
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


@pytest.mark.parametrize("number", [0, 1])
def test_the_paper_prompts_worked_examples_are_right(number):
    """Each two-shot example's expression is the quantity it asks about under the graph it draws."""
    story, legend, answer = paper_task._EXAMPLES[number]
    read = paper_task.read_answer(answer)
    graph, error, _ = paper_task.model_graph(read.graph, SimpleNamespace(latent=[]))  # only its latent list is read
    quantity = "P(Y=1|X=1) - P(Y=1|X=0)" if number == 0 else "E[Y | do(X = 1)] - E[Y | do(X = 0)]"
    assert error is None and check_equivalence(read.expression, quantity, graph).equivalent is True
    assert read.final_answer == ("yes" if number == 0 else "no") and legend.startswith("Let ")


@pytest.mark.parametrize(("text", "expression", "graph", "final"), [
    ("Expression: P(Y | X)\nGraphical Representation: X->Y\nReasoning: P(Y|X)\nFinal Answer: Yes", "P(Y | X)", "X->Y", "yes"),
    ("**Expression:** `P(Y=1)`\n**Graphical representation:** V1->X, X->Y\n**Final answer:** No.", "P(Y=1)", "V1->X, X->Y", "no"),
    ("<think>Expression: P(X)</think>Expression: P(Y)\nFinal Answer: maybe", "P(Y)", None, None),
    ("nothing useful", None, None, None),
])
def test_paper_answers_are_read(text, expression, graph, final):
    assert paper_task.read_answer(text) == paper_task.PaperAnswer(expression, graph, final)


@pytest.mark.parametrize(("text", "verdict"), [
    ("They match.\nVerdict: equivalent", True), ("Verdict: not equivalent", False), ("**Verdict**: Not  Equivalent", False),
    ("verdict = yes", True), ("Verdict: equivalent\nOn reflection, Verdict: not equivalent", False),
    ("<think>Verdict: equivalent</think>", None), ("equivalent", None), ("", None),
])
def test_judge_verdicts_are_read(text, verdict):
    assert parse_verdict(text) is verdict


# ---- DoVerifier in full: feedback, the judge column, the paper's prompt, derivations (recorded answers) ----

RIGHT = "Estimand: \\sum_{V1} P(V1) * [P(Y=1 | X=1, V1) - P(Y=1 | X=0, V1)]"
CONFOUNDED = "Estimand: P(Y=1|X=1) - P(Y=1|X=0)"
CONFOUNDING_ATE = ["--graph-families", "confounding", "--query-types", "ate"]


def stub_run(out, dataset_dir, respond, *flags, judge=False):
    """``eval cladder_pairs`` on the stub ``respond`` (one item at a time, nothing cached)."""
    with StubServer(respond) as server:
        roles = ["--judge-model", "judge", "--judge-base-url", server.base_url, "--judge-max-retries", "0"] if judge else []
        summary = run_eval("cladder_pairs", "--out", str(out), "--hub-dir", str(dataset_dir), "--no-cache",
                           "--concurrency", "1", "--max-retries", "0", "--model", "stub", "--base-url", server.base_url,
                           *roles, *flags)
        return summary, list(server.requests)


def is_judge(request):
    return request["messages"][0]["content"] == JUDGE_SYSTEM


def test_feedback_fixed_and_not_fixed(dataset_dir, tmp_path):
    """Two confounding ATE questions answered with the confounded difference: the first is fixed
    after one round of feedback, the second never is (two rounds); Table 2 counts both."""
    first_question = []

    def respond(request, index):
        messages = request["messages"]
        question = messages[3]["content"]
        first_question[:1] = first_question or [question]
        fixed = messages[-1]["content"].startswith("The verifier did not accept") and question == first_question[0]
        return StubReply(body=completion_body(RIGHT if fixed else CONFOUNDED))

    summary, requests = stub_run(tmp_path / "run", dataset_dir, respond, *CONFOUNDING_ATE, "--limit", "2",
                                 "--feedback-rounds", "2")
    assert len(requests) == 2 + 1 + 2  # two questions, one round for the first, two for the second
    first, second = read_results(tmp_path / "run")
    assert [r["equivalent"] for r in (first, second)] == [False, False]
    assert (len(first["feedback"]), first["equivalent_after_feedback"]) == (1, True)
    assert (len(second["feedback"]), second["equivalent_after_feedback"]) == (2, False)
    assert first["feedback_kind"] == second["feedback_kind"] == "missing_confounder"
    note = first["feedback"][0]["feedback"]
    assert "X <- V1 -> Y" in note and "Estimand: <expression>" in note
    sent = requests[1]["messages"]
    assert sent[-1]["content"] == note and sent[-2] == {"role": "assistant", "content": CONFOUNDED}
    notes = [m["content"] for r in requests for m in r["messages"][5:] if m["role"] == "user"]  # after the first answer
    assert len(notes) == 1 + 2 + 1 and all(normalize_string(first["reference"]) not in normalize_string(n) for n in notes)
    metrics = summary.metrics
    assert (metrics.accuracy, metrics.accuracy_after_feedback) == (0.0, 0.5)
    assert metrics.feedback == {"all": {"n": 2, "before": 0.0, "after": 0.5, "fixed": 1},
                                "missing_confounder": {"n": 2, "before": 0.0, "after": 0.5, "fixed": 1}}
    assert summary.slices["by_feedback_round"] == {"0": {"n": 2, "accuracy": 0.0}, "1": {"n": 2, "accuracy": 0.5},
                                                   "2": {"n": 2, "accuracy": 0.5}}
    assert summary.slices["by_rung"]["2"]["accuracy_after_feedback"] == 0.5


def test_judge_agrees_and_disagrees_with_the_verifier(dataset_dir, tmp_path):
    """Four answers: right (judge: equivalent), confounded (judge: equivalent), right (judge first
    unreadable, then: not equivalent), none (no judge call)."""
    answers = iter([RIGHT, CONFOUNDED, RIGHT.replace("V1) * [", "V1)*["), "I cannot tell."])
    verdicts = iter(["Same thing.\nVerdict: equivalent", "**Verdict:** equivalent", "Hard to say.",
                     "Verdict: not equivalent"])

    def respond(request, index):
        return StubReply(body=completion_body(next(verdicts) if is_judge(request) else next(answers)))

    summary, requests = stub_run(tmp_path / "run", dataset_dir, respond, *CONFOUNDING_ATE, "--limit", "4", judge=True)
    items = read_results(tmp_path / "run")
    assert [i["equivalent"] for i in items] == [True, False, True, None]
    assert [i["judge"] for i in items] == [True, True, False, None]
    assert [len(i["judge_answers"]) for i in items] == [1, 1, 2, 0] and items[3]["judge_error"] == "no_expression"
    judged = [r for r in requests if is_judge(r)]
    assert len(judged) == 4 and items[0]["reference"] in judged[0]["messages"][1]["content"]
    assert "Causal graph: V1 -> X, V1 -> Y, X -> Y" in judged[0]["messages"][1]["content"]
    metrics = summary.metrics
    assert (metrics.accuracy, metrics.string_match, metrics.judge) == (0.5, 0.0, 0.5)
    agreement = metrics.judge_agreement
    assert (agreement["n"], agreement["excluded"], agreement["tp"], agreement["fp"], agreement["fn"], agreement["tn"]) == (
        3, 1, 1, 1, 1, 0)
    assert agreement["accuracy"] == pytest.approx(1 / 3)
    assert summary.usage["judge"].calls == 4 and summary.models["judge"] == "judge"
    assert summary.slices["by_graph_family"]["confounding"]["judge"] == 0.5


def test_questions_with_an_unobserved_reference_are_left_out(dataset_dir, tmp_path):
    summary, requests = stub_run(tmp_path / "run", dataset_dir, lambda request, index: StubReply(
        body=completion_body(CONFOUNDED)), "--graph-families", "arrowhead", "--query-types", "nde", "ate", "--limit", "500")
    assert summary.items.selected == 107 and len(requests) == 107  # the 106 nde questions all adjust for V2
    assert set(summary.slices["by_query_type"]) == {"ate"}


def test_the_lm_eval_task_leaves_out_the_same_questions(dataset_dir):
    from causal_datasets.integrations.lm_eval.data import load_cladder_estimand
    from causal_datasets.records.cladder_pairs import CladderQuestionRow

    rows = load_cladder_estimand(hub_dir=str(dataset_dir))["test"]
    kept = [CladderQuestionRow.model_validate_json(text) for text in rows["question"]]
    assert len(kept) == 3627 - 217 and not any(reference_unobserved(q) for q in kept)


def test_a_judge_that_cannot_be_reached_fails_the_item_not_the_answer(dataset_dir, tmp_path):
    def respond(request, index):
        return StubReply(status=500, text="down") if is_judge(request) else StubReply(body=completion_body(RIGHT))

    summary, _ = stub_run(tmp_path / "run", dataset_dir, respond, *CONFOUNDING_ATE, "--limit", "1", judge=True)
    assert summary.status == "failed" and summary.failures == {"retries_exhausted": 1}


def test_paper_prompt_own_graph_unreadable_graph_and_final_answer(dataset_dir, tmp_path):
    """DoVerifier's two-shot prompt: the model's graph is read (or a typed reason why not), the
    expression verified under the true graph and the model's own, the yes/no answer scored."""
    replies = iter([
        "Expression: P(Y=1|X=1) - P(Y=1|X=0)\nGraphical Representation: V1->Y, X->Y\nReasoning: 0.1 > 0\nFinal Answer: Yes",
        "Expression: P(Y=1|X=1) - P(Y=1|X=0)\nGraphical Representation: X -- Y\nFinal Answer: **No**",
        "Expression: P(Y=1|X=1) - P(Y=1|X=0)\nGraphical Representation: X->Y, Y->X\nFinal Answer: perhaps",
    ])
    summary, requests = stub_run(tmp_path / "run", dataset_dir, lambda request, index: StubReply(
        body=completion_body(next(replies))), *CONFOUNDING_ATE, "--limit", "3", "--prompt", "paper")
    messages = requests[0]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[-1]["content"].startswith("Prompt: ") and "Causal graph" not in messages[-1]["content"]
    own, unreadable, cyclic = items = read_results(tmp_path / "run")
    assert (own["equivalent"], own["equivalent_own_graph"], own["graph_error"]) == (False, True, None)
    assert own["graph_edge_f1"] == pytest.approx(0.8) and own["graph_shd"] == 1
    assert (unreadable["graph_error"], unreadable["equivalent_own_graph"]) == ("unreadable_graph", None)
    assert "'--' is not an edge mark" in unreadable["graph_detail"]
    assert (cyclic["graph_error"], cyclic["final_answer"], cyclic["answer_correct"]) == ("cyclic_graph", None, False)
    assert [i["final_answer"] for i in items[:2]] == ["yes", "no"]
    metrics = summary.metrics
    assert metrics.accuracy_own_graph == pytest.approx(1 / 3) and metrics.graph_errors == {
        "cyclic_graph": 1, "unreadable_graph": 1}
    assert metrics.answer_accuracy == sum(i["answer_correct"] is True for i in items) / 3
    assert metrics.graph_edge_f1 == pytest.approx(0.8 / 3)


def test_derivation_with_an_invalid_step(dataset_dir, tmp_path):
    reply = ("Derivation:\nE[Y | do(X = 1)] - E[Y | do(X = 0)]\n"
             "= P(Y=1 | do(X=1)) - P(Y=1 | do(X=0)) by expectation of a binary variable\n"
             "= P(Y=1 | X=1) - P(Y=1 | X=0) by rule 2\n\n" + CONFOUNDED)
    summary, requests = stub_run(tmp_path / "run", dataset_dir, lambda request, index: StubReply(
        body=completion_body(reply)), *CONFOUNDING_ATE, "--limit", "1", "--derivation")
    assert DERIVATION_REQUEST in requests[0]["messages"][0]["content"]
    (item,) = read_results(tmp_path / "run")
    derivation = item["derivation"]
    assert [s["status"] for s in derivation["steps"]] == ["valid", "condition_fails"]
    assert derivation["first_invalid"] == 2 and item["derivation_valid_share"] == 0.5 and item["derivation_from_query"]
    assert summary.metrics.derivation_valid_share == 0.5
    assert summary.metrics.derivation_steps == {"condition_fails": 1, "valid": 1}
    assert main(["eval", "cladder_pairs", "--out", str(tmp_path / "bad"), "--hub-dir", str(dataset_dir), "--model", "m",
                 "--base-url", "http://127.0.0.1:9/v1", "--prompt", "paper", "--derivation"]) == 2


def test_report_shows_table_1_and_table_2(dataset_dir, tmp_path):
    """One run with a judge and feedback: the report's headline row holds the verifier, string
    match and judge columns (Table 1) and a section holds accuracy before and after feedback (Table 2)."""
    def respond(request, index):
        if is_judge(request):
            return StubReply(body=completion_body("Verdict: not equivalent"))
        feedback = request["messages"][-1]["content"].startswith("The verifier did not accept")
        return StubReply(body=completion_body(RIGHT if feedback else CONFOUNDED))

    summary, _ = stub_run(tmp_path / "run", dataset_dir, respond, *CONFOUNDING_ATE, "--limit", "2",
                          "--feedback-rounds", "1", judge=True)
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    header = next(line for line in report.splitlines() if line.startswith("| run | questions |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert columns[:6] == ["run", "questions", "equivalence accuracy (DoVerifier)", "string match", "LLM judge", "BLEU"]
    row = next(line for line in report.splitlines() if line.startswith("| model:stub (run) | 2 |"))
    cells = dict(zip(columns, (c.strip() for c in row.strip("|").split("|"))))
    assert (cells["equivalence accuracy (DoVerifier)"], cells["string match"], cells["LLM judge"]) == ("0", "0", "0")
    assert cells["accuracy after feedback"] == "1"
    table_2 = report.split("### Accuracy before and after feedback (Table 2), by the first diagnosis")[1]
    assert "| feedback | run | n | before | after | fixed |" in table_2
    assert "| all | model:stub (run) | 2 | 0 | 1 | 2 |" in table_2
    assert "| missing_confounder | model:stub (run) | 2 | 0 | 1 | 2 |" in table_2
    assert "### By feedback round" in report and summary.metrics.judge_agreement["tn"] == 2


@pytest.mark.llm
def test_local_model_with_judge_feedback_derivation_and_the_paper_prompt(dataset_dir, tmp_path, local_llm):
    """Every capability end to end on the local model (short replies: the plumbing, not the model, is tested)."""
    common = ["--hub-dir", str(dataset_dir), "--model", local_llm.model, "--base-url", local_llm.base_url,
              "--max-tokens", "64", "--no-cache", *CONFOUNDING_ATE]
    summary = run_eval("cladder_pairs", "--out", str(tmp_path / "estimand"), "--limit", "1", "--feedback-rounds", "1",
                       "--derivation", "--judge-model", local_llm.model, "--judge-base-url", local_llm.base_url,
                       "--judge-max-tokens", "32", "--judge-attempts", "1", *common)
    items = read_results(tmp_path / "estimand")
    assert summary.status == "complete" and len(items) == 1
    for item in items:
        assert item["raw"] is not None and (item["equivalent"] is not None) != (item["error"] is not None)
        assert item["judge"] in (True, False) or item["judge_error"] in ("invalid_judge_answer", "no_expression")
        assert "derivation" in item and "valid_steps" in item["derivation"]
        assert (item["equivalent"] is True) == (item["feedback"] == [])
        assert item["equivalent_after_feedback"] in (True, False, None)
    assert summary.metrics.judge is not None and summary.metrics.feedback["all"]["n"] == 1
    assert summary.usage["model"].calls == len(items) + sum(len(i["feedback"]) for i in items)
    assert summary.usage["judge"].calls == sum(len(i["judge_answers"]) for i in items)
    paper = run_eval("cladder_pairs", "--out", str(tmp_path / "paper"), "--limit", "1", "--prompt", "paper", *common)
    (item,) = read_results(tmp_path / "paper")
    assert paper.status == "complete" and paper.metrics.answer_accuracy is not None
    assert item["graph_error"] in (None, "no_graph", "unreadable_graph", "cyclic_graph")
    assert (item["graph_error"] is None) == (item["own_graph_error"] != item["graph_error"] or item["graph_error"] is None)
    assert main(["report", str(tmp_path / "estimand"), str(tmp_path / "paper"), "--out", str(tmp_path / "report")]) == 0


@pytest.mark.llm
def test_ten_items_on_the_local_model_with_default_options_are_all_scored_and_repeat(dataset_dir, tmp_path, local_llm):
    """``eval cladder_pairs --limit 10`` against the local server with default options (512 tokens, the server's
    one slot and its long timeout found by themselves): every item is scored, and a second run with its own
    cache gets every reply again from the server, identical."""
    replies = []
    for run in ("first", "second"):
        summary = run_eval("cladder_pairs", "--limit", "10", "--model", local_llm.model, "--base-url",
                           local_llm.base_url, "--hub-dir", str(dataset_dir), "--out", str(tmp_path / run),
                           "--cache-dir", str(tmp_path / f"cache-{run}"))
        assert summary.status == "complete" and summary.items.scored == 10 and summary.failures == {}
        assert summary.usage["model"].http_requests == 10  # no retry: each request had one copy
        replies.append({item["id"]: item["raw"] for item in read_results(tmp_path / run)})
    assert replies[0] == replies[1]
