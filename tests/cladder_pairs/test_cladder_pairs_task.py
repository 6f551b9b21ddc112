"""The CLadder estimand task: prompt, answer extraction, scoring, and ``causal-datasets eval cladder_pairs``."""

import re
from types import SimpleNamespace

import pytest

from causal_datasets.cladder_pairs import paper_task
from causal_datasets.cladder_pairs.cladder import FAMILY_EDGES, family_graph, formal_expression, read_questions
from causal_datasets.cladder_pairs.estimand_task import (
    SYSTEM_PROMPT,
    build_messages,
    example_for,
    extract_estimand,
    read_answer_expression,
    reference_unobserved,
    score_answer,
)
from causal_datasets.cladder_pairs.generation import solve
from causal_datasets.cladder_pairs.judge import JUDGE_SYSTEM, parse_verdict
from causal_datasets.cladder_pairs.options import CladderOptions
from causal_datasets.cladder_pairs.rows import cladder_rows, question_rows
from causal_datasets.cladder_pairs.scores import score
from causal_datasets.cli import main
from causal_datasets.docalc.baselines import normalize_string
from causal_datasets.docalc.derivation import DERIVATION_REQUEST
from causal_datasets.docalc.expr import is_observational
from causal_datasets.docalc.verdict import check_equivalence
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.runners.records import ModelCall
from causal_datasets.runners.results import read_summary
from causal_datasets.runners.task import Item, Transcript
from tests.support.builds import built_once, small_cladder_build
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields, run_eval
from tests.support.stub_flags import stub_flags

CLADDER = SHARED_DATA_DIR / "cladder"
BACKDOOR = "\\sum_{V1=v} P(V1=v)*[P(Y=1|V1=v,X=1) - P(Y=1|V1=v, X=0)]"  # CLadder's confounding ATE estimand


@pytest.fixture(scope="module")
def questions():
    return question_rows(read_questions(CLADDER))


@pytest.fixture(scope="module")
def labels():
    """The ``cladder`` config's verdict on each question's (formal form, estimand) pair."""
    return {
        row.id: row.equivalent
        for row in cladder_rows(read_questions(CLADDER), seed=0)
        if row.pair_kind == "formal_vs_estimand"
    }


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    return built_once(tmp_path_factory, "small-cladder", small_cladder_build)


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
    assert (
        confounded["equivalent"] is False and confounded["method"] == "semantic" and confounded["proof_length"] is None
    )
    interventional = score_answer("P(Y=1|do(X=1)) - P(Y=1|do(X=0))", q)  # the query itself: equal, identifies nothing
    assert (interventional["equivalent"], interventional["identified"]) == (True, False)
    assert interventional["identification_error"] == "not_identified" and interventional["error"] is None
    assert (rewritten["identified"], confounded["identified"]) == (True, False)
    assert score_answer(BACKDOOR.replace(" ", ""), q)["string_match"] is True
    assert score_answer("P(Z=1|X=1)", q)["error"] == "unknown_variable"
    assert score_answer("P(Y=1|X=1", q)["error"] == "unparsable"
    assert score_answer(None, q)["error"] == "no_expression"
    assert score_answer("P(Y=2|X=1)", q)["error"] == "undecided"  # outside the binary domain
    nested = score_answer("(" * 3000 + "P(Y=1)" + ")" * 3000, q)  # refused before any recursion
    assert nested["error"] == "unparsable" and "nested deeper than 100" in nested["detail"]
    frontdoor = question(questions, "frontdoor", "ate")  # V1, the confounder, is unobserved
    adjusted = score_answer("\\sum_{V1} P(V1) * [P(Y=1|V1,X=1) - P(Y=1|V1,X=0)]", frontdoor)
    assert (adjusted["equivalent"], adjusted["identified"], adjusted["identification_error"]) == (
        True,
        False,
        "unobserved_variable",
    )  # the ATE indeed (the front-door estimand's value), but not from observed data
    wrong = score_answer("\\sum_{V1} P(V1) * P(Y=1|V1,X=1)", frontdoor)
    assert (wrong["equivalent"], wrong["identified"], wrong["identification_error"]) == (
        False,
        False,
        "unobserved_variable",
    )
    iv = question(questions, "IV", "ate")  # CLadder's IV estimand is the Wald ratio: not the ATE without linearity
    assert score_answer("\\sum_{V1} P(V1) * [P(Y=1|V1,X=1) - P(Y=1|V1,X=0)]", iv)["equivalent"] is False


def test_formal_forms_are_credited_exactly_where_the_cladder_config_says_they_equal_the_estimand(questions, labels):
    """Every question answered with its own formal form, verbatim (read in CLadder's notation, as its formal
    forms are), scored against the estimand: the equivalence rule credits exactly the questions whose
    ``cladder`` pair (formal form, estimand) is labelled equivalent; the identification rule credits
    only the do-free ones (the marginal questions' ``P(Y)``, the correlation questions' ``P(Y | X)``, read as
    the contrast ``P(Y=1 | X=1) - P(Y=1 | X=0)``)."""
    asked = [q for q in questions if not reference_unobserved(q)]
    scores = {q.id: score_answer(q.formal_form, q) for q in asked}
    assert {i for i, s in scores.items() if s["equivalent"] is True} == {q.id for q in asked if labels[q.id]}
    identified = {q.id for q in asked if scores[q.id]["identified"] is True}
    do_free = {"marginal", "correlation"}
    assert identified == {q.id for q in asked if labels[q.id] and q.query_type in do_free}
    assert (len(asked), sum(labels[q.id] for q in asked), len(identified)) == (3410, 3229, 1600)
    copied = {q.id: score_answer(formal_expression(q).text, q) for q in asked if q.rung > 1}  # the prompt's quantity
    assert all(s["identified"] is False and s["identification_error"] == "not_identified" for s in copied.values())
    assert {i for i, s in copied.items() if s["equivalent"] is True} == {i for i in copied if labels[i]}


@pytest.mark.parametrize("scoring", ["equivalence", "identification"])
def test_a_model_that_answers_with_the_formal_form(dataset_dir, tmp_path, questions, labels, scoring):
    """App. G's examples put the formal form on the Expression line: a model that does so for each of 150
    questions, scored against the estimand (``--reference estimand``), is credited, under ``--scoring
    equivalence``, exactly where the ``cladder`` config
    labels the formal form equal to the estimand, and under ``identification`` only for do-free answers;
    every result line holds both verdicts."""
    by_story = {paper_task.question_story(q): q for q in questions}

    def respond(request, index):
        q = by_story[request["messages"][-1]["content"].rsplit("Prompt: ", 1)[1].rsplit("\n", 1)[0]]
        return StubReply(
            body=completion_body(
                f"Solution:\nExpression: {q.formal_form}\nGraphical Representation: "
                f"{', '.join(f'{e.source}->{e.target}' for e in q.edges)}\nFinal Answer: Yes"
            )
        )

    summary, requests = stub_run(
        tmp_path / "run",
        dataset_dir,
        respond,
        *("--prompt", "paper", "--reference", "estimand", "--scoring", scoring, "--limit", "150"),
    )
    items = item_fields(tmp_path / "run")
    assert len(items) == len(requests) == 150 and all(
        i["expression"] == by_story_id(questions)[i["id"]].formal_form for i in items
    )
    equivalent = {i["id"] for i in items if i["equivalent"] is True}
    assert equivalent == {i["id"] for i in items if labels[i["id"]]} and 0 < len(equivalent) < len(items)
    rows = by_story_id(questions)
    do_free = {i["id"] for i in items if is_observational(read_answer_expression(i["expression"], rows[i["id"]]))}
    assert {i["id"] for i in items if i["identified"] is True} == equivalent & do_free
    credited = equivalent if scoring == "equivalence" else equivalent & do_free
    assert summary.metrics.accuracy == len(credited) / 150 and summary.metrics.scoring == scoring
    assert (summary.metrics.equivalence_accuracy, summary.metrics.identification_accuracy) == (
        len(equivalent) / 150,
        len(equivalent & do_free) / 150,
    )
    assert all(i["equivalent_own_graph"] == i["equivalent"] for i in items)  # the model drew the true graph


def by_story_id(questions):
    return {q.id: q for q in questions}


def test_runner_on_a_stub_model_with_resume(dataset_dir, tmp_path):
    answers = iter(["Estimand: P(Y=1|X=1) - P(Y=1|X=0)", "no idea", "Estimand: P(Y=1|X=", "Estimand: P(Q=1)"])

    def respond(request, index):
        return StubReply(body=completion_body(next(answers, "Estimand: P(Y=1)"), prompt_tokens=7, completion_tokens=3))

    out = tmp_path / "run"
    common = ["cladder_pairs", "--out", str(out), "--hub-dir", str(dataset_dir), "--no-cache", "--concurrency", "1"]
    with StubServer(lambda request, index: StubReply(status=500, text="down")) as broken:
        first = run_eval(*common, "--limit", "2", "--max-retries", "0", *stub_flags(broken.base_url, cache=True))
    assert first.status == "failed" and first.failures == {"model": {"retries_exhausted": 2}}
    assert first.metrics.count == 0
    with StubServer(respond) as server:
        summary = run_eval(*common, "--limit", "5", "--extend", *stub_flags(server.base_url, cache=True))
        assert server.count == 5  # the two failed items are asked again, then three new ones
        again = run_eval(*common, "--resume", *stub_flags(server.base_url, cache=True))  # the run's --limit 5
        assert server.count == 5  # nothing left to ask
    items = {i["id"]: i for i in item_fields(out)}
    assert len(items) == 5
    first_item = items[next(iter(items))]
    assert first_item["calls"][0]["messages"][-1]["role"] == "user" and first_item["raw"] is not None
    metrics = summary.metrics
    assert metrics.count == 5 and sum(metrics.errors.values()) == sum(i["error"] is not None for i in items.values())
    assert {"no_expression", "unparsable", "unknown_variable"} <= set(metrics.errors)
    assert metrics.scoring == "identification" and all(i["scoring"] == "identification" for i in items.values())
    assert (
        metrics.accuracy == metrics.identification_accuracy == sum(i["identified"] is True for i in items.values()) / 5
    )
    assert metrics.equivalence_accuracy == sum(i["equivalent"] is True for i in items.values()) / 5
    assert sum(s["n"] for s in summary.slices["by_graph_family"].values()) == 5
    assert set(summary.slices["by_rung"]) <= {"1", "2", "3"} and summary.slices["by_query_type"]
    assert again.metrics == metrics and read_summary(out)["metrics"] == metrics.model_dump()
    assert (summary.dataset.name, summary.dataset.configs, summary.models["model"]) == (
        "cladder_pairs",
        ["questions"],
        "stub",
    )
    # usage adds up over invocations: 2 failed calls first, then 5 answered ones, then none
    assert summary.invocations == 2 and summary.usage["model"].calls == 2 + 5
    assert summary.usage["model"].prompt_tokens == 35 and summary.usage_total.http_requests == 2 + 5
    assert again.invocations == 3 and again.usage == summary.usage


def test_the_paper_prompt_is_app_g_verbatim():
    """App. G as the seed paper prints it: its listing's wrapped lines joined, compared with every
    whitespace removed. The extraction of the PDF damaged three places: each of ``APP_G_REPAIRS`` (listed in the
    card and on the docs page) occurs exactly once in the extracted text, and nothing else differs."""
    seed = (SHARED_DATA_DIR.parent / "seeds" / "004_483d16a96a84e334.txt").read_text()
    block = seed[seed.index("## Instructions:") : seed.index("Prompt: {description}") + len("Prompt: {description}")]
    block = re.sub(r"^\s*\d+(\s+\d+)*\s*$", "", block, flags=re.MULTILINE)  # page numbers at a page break
    for mark in ("```", "$\\hookrightarrow$", "\\hookrightarrow~", "\\hookrightarrow", "→", "⇔"):  # wrap marks
        block = block.replace(mark, "")
    block = " ".join(block.replace("\\mid", "|").split())  # | set in math mode
    for broken, repaired in paper_task.APP_G_REPAIRS:
        assert block.count(broken) == 1
        block = block.replace(broken, repaired)
    assert re.sub(r"\s", "", paper_task.PAPER_PROMPT) == re.sub(r"\s", "", block)


def test_the_paper_prompt_is_one_user_message_with_the_question(questions):
    q = question(questions, "confounding", "ate")
    (message,) = paper_task.build_messages(q)
    assert message["role"] == "user" and message["content"].startswith("## Instructions:\n1. For each problem")
    assert message["content"].endswith(f"Prompt: {q.background} {q.given_info} {q.question}\n{q.legend}")
    assert "Expression: E[Y | do(X = 1)] - E[Y | do(X = 0)]" in message["content"]
    assert q.estimand not in message["content"]


@pytest.mark.parametrize("number", [1, 2])
def test_the_paper_prompts_worked_examples_are_cladders_formal_forms(number):
    """Each worked example writes CLadder's formal form on its Expression line (correlation: P(Y | X);
    ATE: the do-difference) and, under the graph it draws, its Reasoning starts from the estimand of that
    quantity in CLadder's IV family: the do-difference is not that Wald ratio in general."""
    example = paper_task.PAPER_PROMPT.split(f"Example {number}:\n")[1].split("\nExample ")[0].split("\n## ")[0]
    read = paper_task.read_answer(example)
    graph, error, _ = paper_task.model_graph(read.graph, SimpleNamespace(latent=["V1"]))
    assert error is None and set(graph.edges) == set(family_graph("IV").edges) and graph.latent == {"V1"}
    assert read.expression == ("P(Y | X)" if number == 1 else "E[Y | do(X = 1)] - E[Y | do(X = 0)]")
    assert read.final_answer == ("no" if number == 1 else "yes")
    if number == 2:
        wald = "[P(Y=1|V2=1)-P(Y=1|V2=0)]/[P(X=1|V2=1)-P(X=1|V2=0)]"
        assert wald in example and check_equivalence(read.expression, wald, graph).equivalent is False


@pytest.mark.parametrize(
    ("text", "expression", "graph", "final"),
    [
        (
            "Expression: P(Y | X)\nGraphical Representation: X->Y\nReasoning: P(Y|X)\nFinal Answer: Yes",
            "P(Y | X)",
            "X->Y",
            "yes",
        ),
        (
            "**Expression:** `P(Y=1)`\n**Graphical representation:** V1->X, X->Y\n**Final answer:** No.",
            "P(Y=1)",
            "V1->X, X->Y",
            "no",
        ),
        ("<think>Expression: P(X)</think>Expression: P(Y)\nFinal Answer: maybe", "P(Y)", None, None),
        ("nothing useful", None, None, None),
    ],
)
def test_paper_answers_are_read(text, expression, graph, final):
    assert paper_task.read_answer(text) == paper_task.PaperAnswer(expression, graph, final)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("They match.\nVerdict: equivalent", True),
        ("Verdict: not equivalent", False),
        ("**Verdict**: Not  Equivalent", False),
        ("verdict = yes", True),
        ("Verdict: equivalent\nOn reflection, Verdict: not equivalent", False),
        ("<think>Verdict: equivalent</think>", None),
        ("equivalent", None),
        ("", None),
    ],
)
def test_judge_verdicts_are_read(text, verdict):
    assert parse_verdict(text) is verdict


# ---- DoVerifier in full: feedback, the judge column, the paper's prompt, derivations (recorded answers) ----

RIGHT = "Estimand: \\sum_{V1} P(V1) * [P(Y=1 | X=1, V1) - P(Y=1 | X=0, V1)]"
CONFOUNDED = "Estimand: P(Y=1|X=1) - P(Y=1|X=0)"
CONFOUNDING_ATE = ["--graph-families", "confounding", "--query-types", "ate"]


def refused(out, dataset_dir, *flags):
    """``eval cladder_pairs`` with ``flags`` exits 2 (before asking the unreachable model anything)."""
    argv = ["eval", "cladder_pairs", "--out", str(out), "--hub-dir", str(dataset_dir), "--model", "m"]
    return main([*argv, "--base-url", "http://127.0.0.1:9/v1", *flags]) == 2


def stub_run(out, dataset_dir, respond, *flags, judge=False):
    """``eval cladder_pairs`` on the stub ``respond`` (one item at a time, nothing cached)."""
    with StubServer(respond) as server:
        roles = (
            ["--judge-model", "judge", "--judge-base-url", server.base_url, "--judge-max-retries", "0"] if judge else []
        )
        summary = run_eval(
            "cladder_pairs",
            "--out",
            str(out),
            "--hub-dir",
            str(dataset_dir),
            "--no-cache",
            "--concurrency",
            "1",
            "--max-retries",
            "0",
            *stub_flags(server.base_url, cache=True),
            *roles,
            *flags,
        )
        return summary, list(server.requests)


def is_judge(request):
    return request["messages"][0]["content"] == JUDGE_SYSTEM


def is_feedback(message: dict) -> bool:
    return message["role"] == "user" and message["content"].startswith(
        ("The verifier checked your expression", "The verifier did not accept")
    )


@pytest.mark.parametrize("mode", ["graph", "oracle"])
def test_feedback_fixed_and_not_fixed(dataset_dir, tmp_path, mode):
    """Two confounding ATE questions answered with the confounded difference: the first is fixed
    after one round of feedback, the second never is (two rounds); Table 2 counts both. The graph
    checks flag the confounded difference and find nothing in the adjustment formula, so the graph-only
    loop (App. H) and the reference-guided one ask the same here; only their opening sentence differs."""
    first_question = []

    def respond(request, index):
        messages = request["messages"]
        question = messages[3]["content"]
        first_question[:1] = first_question or [question]
        fixed = is_feedback(messages[-1]) and question == first_question[0]
        return StubReply(body=completion_body(RIGHT if fixed else CONFOUNDED))

    summary, requests = stub_run(
        tmp_path / "run",
        dataset_dir,
        respond,
        *CONFOUNDING_ATE,
        "--limit",
        "2",
        "--feedback-rounds",
        "2",
        "--feedback",
        mode,
    )
    assert len(requests) == 2 + 1 + 2  # two questions, one round for the first, two for the second
    first, second = item_fields(tmp_path / "run")
    assert [r["equivalent"] for r in (first, second)] == [False, False]
    assert (len(first["feedback"]), first["equivalent_after_feedback"]) == (1, True)
    assert (len(second["feedback"]), second["equivalent_after_feedback"]) == (2, False)
    assert first["feedback_kind"] == second["feedback_kind"] == "missing_confounder"
    note = first["feedback"][0]["feedback"]
    assert "X <- V1 -> Y" in note and "Estimand: <expression>" in note
    opening = "The verifier checked your expression" if mode == "graph" else "The verifier did not accept"
    assert note.startswith(opening) and first["feedback"][0]["graph"] == "true"
    assert (first["feedback_stop"], second["feedback_stop"]) == (
        ("nothing_to_correct" if mode == "graph" else "accepted"),
        "rounds_used",
    )
    sent = requests[1]["messages"]
    assert sent[-1]["content"] == note and sent[-2] == {"role": "assistant", "content": CONFOUNDED}
    notes = [m["content"] for r in requests for m in r["messages"][5:] if m["role"] == "user"]  # after the first answer
    assert len(notes) == 1 + 2 + 1 and all(
        normalize_string(first["reference"]) not in normalize_string(n) for n in notes
    )
    metrics = summary.metrics
    assert (metrics.accuracy, metrics.accuracy_after_feedback) == (0.0, 0.5)
    assert metrics.feedback == {
        "all": {"n": 2, "before": 0.0, "after": 0.5, "fixed": 1, "broken": 0},
        "missing_confounder": {"n": 2, "before": 0.0, "after": 0.5, "fixed": 1, "broken": 0},
    }
    assert summary.slices["by_feedback_round"] == {
        "0": {"n": 2, "accuracy": 0.0},
        "1": {"n": 2, "accuracy": 0.5},
        "2": {"n": 2, "accuracy": 0.5},
    }
    assert summary.slices["by_rung"]["2"]["accuracy_after_feedback"] == 0.5


class RecordingModel:
    """A chat client that answers from a list and records every conversation it is sent."""

    def __init__(self, replies):
        self.replies, self.sent = iter(replies), []

    def chat(self, messages):
        self.sent.append([dict(m) for m in messages])
        return SimpleNamespace(text=next(self.replies))


PAPER_ATE = (
    "Solution:\nExpression: E[Y | do(X = 1)] - E[Y | do(X = 0)]\nGraphical Representation: V1->X, V1->Y, X->Y\n"
    "Reasoning: ...\nFinal Answer: Yes"
)
PAPER_ADJUSTED = (
    "Expression: \\sum_{V1} P(V1) * [P(Y=1 | X=1, V1) - P(Y=1 | X=0, V1)]\n"
    "Graphical Representation: V1->X, V1->Y, X->Y\nFinal Answer: Yes"
)


def solve_with(q, replies, **options):
    model = RecordingModel(replies)
    context = SimpleNamespace(options=CladderOptions(**options), clients={"model": model}, client=lambda role: None)
    item = Item(q.id, "questions", q)
    generation = solve(item, context)
    calls = tuple(ModelCall(role="model", model="recorded", reply=reply) for reply in replies[: len(model.sent)])
    return score(item, Transcript(calls, generation), context).model_dump(), model.sent


def test_graph_feedback_is_the_same_with_any_reference_and_reaches_right_answers(questions):
    """App. H: the feedback loop decides from the answer and the (model's) graph alone. The same replies
    to the same question with another reference get the same feedback; the do-difference, right under
    the equivalence rule, is still flagged (its back-door path through V1) and revised; the reference
    only scores. The oracle loop, by contrast, stops at once for a right answer and goes on for a wrong one."""
    q = question(questions, "confounding", "ate")
    other = q.model_copy(update={"estimand": "P(Y=1)", "formal_form": "P(Y=1)"})
    options = {"prompt": "paper", "feedback_rounds": 3}
    fields, sent = solve_with(q, [PAPER_ATE, PAPER_ADJUSTED], **options)
    other_fields, other_sent = solve_with(other, [PAPER_ATE, PAPER_ADJUSTED], **options)
    assert sent == other_sent and len(sent) == 2  # one round, then the graph checks find nothing to correct
    assert fields["feedback"][0]["feedback"] == other_fields["feedback"][0]["feedback"]
    assert [f["kind"] for f in fields["feedback"][0]["findings"]] == ["missing_confounder"]
    assert (fields["feedback_stop"], fields["feedback"][0]["graph"]) == ("nothing_to_correct", "generated")
    assert (fields["equivalent"], fields["equivalent_after_feedback"]) == (True, True)
    assert (other_fields["equivalent"], other_fields["equivalent_after_feedback"]) == (False, False)
    assert "did not accept" not in sent[1][-1]["content"] and q.estimand not in sent[1][-1]["content"]
    right, right_sent = solve_with(q, [PAPER_ATE, PAPER_ADJUSTED], feedback="oracle", **options)
    wrong, wrong_sent = solve_with(
        other, [PAPER_ATE, PAPER_ADJUSTED, PAPER_ATE, PAPER_ADJUSTED], feedback="oracle", **options
    )
    assert (len(right_sent), right["feedback"], right["feedback_stop"]) == (1, [], "accepted")
    assert len(wrong_sent) == 4 and wrong["feedback_stop"] == "rounds_used"
    assert wrong_sent[1][-1]["content"].startswith("The verifier did not accept")


def test_judge_agrees_and_disagrees_with_the_verifier(dataset_dir, tmp_path):
    """Four answers: right (judge: equivalent), confounded (judge: equivalent), right (judge first
    unreadable, then: not equivalent), none (no judge call)."""
    answers = iter([RIGHT, CONFOUNDED, RIGHT.replace("V1) * [", "V1)*["), "I cannot tell."])
    verdicts = iter(
        ["Same thing.\nVerdict: equivalent", "**Verdict:** equivalent", "Hard to say.", "Verdict: not equivalent"]
    )

    def respond(request, index):
        return StubReply(body=completion_body(next(verdicts) if is_judge(request) else next(answers)))

    summary, requests = stub_run(tmp_path / "run", dataset_dir, respond, *CONFOUNDING_ATE, "--limit", "4", judge=True)
    items = item_fields(tmp_path / "run")
    assert [i["equivalent"] for i in items] == [True, False, True, None]
    assert [i["judge"] for i in items] == [True, True, False, None]
    assert [len(i["judge_answers"]) for i in items] == [1, 1, 2, 0] and items[3]["judge_error"] == "no_expression"
    judged = [r for r in requests if is_judge(r)]
    assert len(judged) == 4 and items[0]["reference"] in judged[0]["messages"][1]["content"]
    assert "Causal graph: V1 -> X, V1 -> Y, X -> Y" in judged[0]["messages"][1]["content"]
    metrics = summary.metrics
    assert (metrics.accuracy, metrics.string_match, metrics.judge) == (0.5, 0.0, 0.5)
    agreement = metrics.judge_agreement
    assert (
        agreement["n"],
        agreement["excluded"],
        agreement["tp"],
        agreement["fp"],
        agreement["fn"],
        agreement["tn"],
    ) == (3, 1, 1, 1, 1, 0)
    assert agreement["accuracy"] == pytest.approx(1 / 3)
    assert summary.usage["judge"].calls == 4 and summary.models["judge"] == "judge"
    assert summary.slices["by_graph_family"]["confounding"]["judge"] == 0.5


@pytest.mark.parametrize("judge_graph", [None, "true"])
def test_the_judge_sees_the_generated_graph_under_the_paper_prompt(dataset_dir, tmp_path, judge_graph):
    """As the paper's GPT-4o judge: the expression, the model's generated graph and the ground truth; the
    question's graph where the model drew none (recorded per item), or always with ``--judge-graph true``."""
    replies = iter(
        [
            "Expression: P(Y=1|X=1) - P(Y=1|X=0)\nGraphical Representation: X->Y\nFinal Answer: Yes",
            "Expression: P(Y=1|X=1)-P(Y=1|X=0)\nFinal Answer: Yes",
        ]
    )

    def respond(request, index):
        return StubReply(body=completion_body("Verdict: equivalent" if is_judge(request) else next(replies)))

    flags = ("--judge-graph", judge_graph) if judge_graph else ()
    _, requests = stub_run(
        tmp_path / "run",
        dataset_dir,
        respond,
        *CONFOUNDING_ATE,
        "--limit",
        "2",
        "--prompt",
        "paper",
        *flags,
        judge=True,
    )
    seen = [r["messages"][1]["content"].splitlines()[0] for r in requests if is_judge(r)]
    true_graph = "Causal graph: V1 -> X, V1 -> Y, X -> Y"
    expected = [true_graph, true_graph] if judge_graph == "true" else ["Causal graph: X -> Y", true_graph]
    assert seen == expected
    assert [i["judge_graph"] for i in item_fields(tmp_path / "run")] == (
        ["true", "true"] if judge_graph == "true" else ["generated", "true"]
    )
    assert refused(tmp_path / "bad", dataset_dir, "--judge-graph", "generated")


def test_questions_with_an_unobserved_reference_are_left_out(dataset_dir, tmp_path):
    summary, requests = stub_run(
        tmp_path / "run",
        dataset_dir,
        lambda request, index: StubReply(body=completion_body(CONFOUNDED)),
        "--graph-families",
        "arrowhead",
        "--query-types",
        "nde",
        "ate",
        "--limit",
        "500",
    )
    assert summary.items.selected == 107 and len(requests) == 107  # the 106 nde questions all adjust for V2
    assert set(summary.slices["by_query_type"]) == {"ate"}


def test_the_lm_eval_task_leaves_out_the_same_questions(dataset_dir):
    from causal_datasets.cladder_pairs.records import CladderQuestionRow
    from causal_datasets.integrations.lm_eval.data import load_cladder_estimand

    rows = load_cladder_estimand(hub_dir=str(dataset_dir))["test"]
    kept = [CladderQuestionRow.model_validate_json(text) for text in rows["question"]]
    assert len(kept) == 3627 - 217 and not any(reference_unobserved(q) for q in kept)


def test_a_judge_that_cannot_be_reached_fails_the_item_not_the_answer(dataset_dir, tmp_path):
    def respond(request, index):
        return StubReply(status=500, text="down") if is_judge(request) else StubReply(body=completion_body(RIGHT))

    summary, _ = stub_run(tmp_path / "run", dataset_dir, respond, *CONFOUNDING_ATE, "--limit", "1", judge=True)
    assert summary.status == "failed" and summary.failures == {"judge": {"retries_exhausted": 1}}


def test_paper_prompt_own_graph_unreadable_graph_and_final_answer(dataset_dir, tmp_path):
    """DoVerifier's two-shot prompt: the model's graph is read (or a typed reason why not), the
    expression verified under the true graph and the model's own, the yes/no answer scored."""
    replies = iter(
        [
            "Expression: P(Y=1|X=1) - P(Y=1|X=0)\nGraphical Representation: V1->Y, X->Y\n"
            "Reasoning: 0.1 > 0\nFinal Answer: Yes",
            "Expression: P(Y=1|X=1) - P(Y=1|X=0)\nGraphical Representation: X -- Y\nFinal Answer: **No**",
            "Expression: P(Y=1|X=1) - P(Y=1|X=0)\nGraphical Representation: X->Y, Y->X\nFinal Answer: perhaps",
        ]
    )
    summary, requests = stub_run(
        tmp_path / "run",
        dataset_dir,
        lambda request, index: StubReply(body=completion_body(next(replies))),
        *CONFOUNDING_ATE,
        "--limit",
        "3",
        "--prompt",
        "paper",
    )
    (message,) = requests[0]["messages"]
    assert message["role"] == "user" and message["content"].startswith("## Instructions:")
    assert "\nPrompt: Imagine a self-contained" in message["content"] and "Causal graph" not in message["content"]
    own, unreadable, cyclic = items = item_fields(tmp_path / "run")
    assert summary.metrics.scoring == "equivalence" and own["scoring"] == "equivalence"
    assert (own["equivalent"], own["equivalent_own_graph"], own["graph_error"]) == (False, True, None)
    assert own["graph_text"] == "V1->Y, X->Y" and own["expression"] == "P(Y=1|X=1) - P(Y=1|X=0)"
    assert own["graph_edge_f1"] == pytest.approx(0.8) and own["graph_shd"] == 1
    assert (unreadable["graph_error"], unreadable["equivalent_own_graph"]) == ("unreadable_graph", None)
    assert "'--' is not an edge mark" in unreadable["graph_detail"]
    assert (cyclic["graph_error"], cyclic["final_answer"], cyclic["answer_correct"]) == ("cyclic_graph", None, False)
    assert [i["final_answer"] for i in items[:2]] == ["yes", "no"]
    metrics = summary.metrics
    assert metrics.accuracy_own_graph == pytest.approx(1 / 3) and metrics.graph_errors == {
        "cyclic_graph": 1,
        "unreadable_graph": 1,
    }
    assert metrics.answer_accuracy == sum(i["answer_correct"] is True for i in items) / 3
    assert metrics.graph_edge_f1 == pytest.approx(0.8 / 3)


def test_derivation_with_an_invalid_step(dataset_dir, tmp_path):
    reply = (
        "Derivation:\nE[Y | do(X = 1)] - E[Y | do(X = 0)]\n"
        "= P(Y=1 | do(X=1)) - P(Y=1 | do(X=0)) by expectation of a binary variable\n"
        "= P(Y=1 | X=1) - P(Y=1 | X=0) by rule 2\n\n" + CONFOUNDED
    )
    summary, requests = stub_run(
        tmp_path / "run",
        dataset_dir,
        lambda request, index: StubReply(body=completion_body(reply)),
        *CONFOUNDING_ATE,
        "--limit",
        "1",
        "--derivation",
    )
    assert DERIVATION_REQUEST in requests[0]["messages"][0]["content"]
    (item,) = item_fields(tmp_path / "run")
    derivation = item["derivation"]
    assert [s["status"] for s in derivation["steps"]] == ["valid", "condition_fails"]
    assert derivation["first_invalid"] == 2 and item["derivation_valid_share"] == 0.5 and item["derivation_from_query"]
    assert summary.metrics.derivation_valid_share == 0.5
    assert summary.metrics.derivation_steps == {"condition_fails": 1, "valid": 1}
    assert refused(tmp_path / "bad", dataset_dir, "--prompt", "paper", "--derivation")


def test_report_shows_table_1_and_table_2(dataset_dir, tmp_path):
    """One run with a judge and feedback: the report's headline row holds the verifier under both
    rules, string match and judge columns (Table 1) and a section holds accuracy before and after
    feedback (Table 2)."""

    def respond(request, index):
        if is_judge(request):
            return StubReply(body=completion_body("Verdict: not equivalent"))
        feedback = is_feedback(request["messages"][-1])
        return StubReply(body=completion_body(RIGHT if feedback else CONFOUNDED))

    summary, _ = stub_run(
        tmp_path / "run", dataset_dir, respond, *CONFOUNDING_ATE, "--limit", "2", "--feedback-rounds", "1", judge=True
    )
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    header = next(line for line in report.splitlines() if line.startswith("| run | questions |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert columns[:10] == [
        "run",
        "questions",
        "scoring rule",
        "reference",
        "accuracy (the run's scoring rule)",
        "equivalent (DoVerifier's rule)",
        "identified (stricter)",
        "string match",
        "LLM judge",
        "BLEU",
    ]
    row = next(line for line in report.splitlines() if line.startswith("| model:stub (run) | 2 |"))
    cells = dict(zip(columns, (c.strip() for c in row.strip("|").split("|")), strict=True))
    assert (cells["scoring rule"], cells["reference"]) == ("identification", "estimand")
    shown = (cells["equivalent (DoVerifier's rule)"], cells["string match"], cells["LLM judge"])
    assert all(cell.split(" [")[0] == "0" for cell in shown)  # each with its interval: two questions, two stories
    assert cells["accuracy after feedback"].split(" [")[0] == "1"
    table_2 = report.split("### Accuracy before and after feedback (Table 2), by the first diagnosis")[1]
    assert "| feedback | run | n | before | after | fixed | broken |" in table_2
    assert "| all | model:stub (run) | 2 | 0 | 1 | 2 | 0 |" in table_2
    assert "| missing_confounder | model:stub (run) | 2 | 0 | 1 | 2 | 0 |" in table_2
    assert "### By feedback round" in report and summary.metrics.judge_agreement["tn"] == 2


@pytest.mark.llm
def test_local_model_with_judge_feedback_derivation_and_the_paper_prompt(dataset_dir, tmp_path, local_llm):
    """Every capability end to end on the local model (short replies: the plumbing, not the model, is tested)."""
    common = [
        "--hub-dir",
        str(dataset_dir),
        "--model",
        local_llm.model,
        "--base-url",
        local_llm.base_url,
        "--max-tokens",
        "64",
        "--no-cache",
        *CONFOUNDING_ATE,
    ]
    summary = run_eval(
        "cladder_pairs",
        "--out",
        str(tmp_path / "estimand"),
        "--limit",
        "1",
        "--feedback-rounds",
        "1",
        "--derivation",
        "--judge-model",
        local_llm.model,
        "--judge-base-url",
        local_llm.base_url,
        "--judge-max-tokens",
        "32",
        "--judge-attempts",
        "1",
        *common,
    )
    items = item_fields(tmp_path / "estimand")
    assert summary.status == "complete" and len(items) == 1
    for item in items:
        assert item["raw"] is not None and (item["equivalent"] is not None) != (item["error"] is not None)
        assert item["judge"] in (True, False) or item["judge_error"] in ("invalid_judge_answer", "no_expression")
        assert "derivation" in item and "valid_steps" in item["derivation"]
        assert (item["feedback"] == []) == (item["feedback_stop"] == "nothing_to_correct")  # graph-only feedback
        assert item["equivalent_after_feedback"] in (True, False, None)
    assert summary.metrics.judge is not None and summary.metrics.feedback["all"]["n"] == 1
    assert summary.usage["model"].calls == len(items) + sum(len(i["feedback"]) for i in items)
    assert summary.usage["judge"].calls == sum(len(i["judge_answers"]) for i in items)
    paper = run_eval("cladder_pairs", "--out", str(tmp_path / "paper"), "--limit", "1", "--prompt", "paper", *common)
    (item,) = item_fields(tmp_path / "paper")
    assert paper.status == "complete" and paper.metrics.answer_accuracy is not None
    assert item["graph_error"] in (None, "no_graph", "unreadable_graph", "cyclic_graph")
    assert (item["graph_error"] is None) == (
        item["own_graph_error"] != item["graph_error"] or item["graph_error"] is None
    )
    assert main(["report", str(tmp_path / "estimand"), str(tmp_path / "paper"), "--out", str(tmp_path / "report")]) == 0


def test_rescore_under_equivalence_credits_the_do_answers_of_an_identification_run(
    dataset_dir, tmp_path, questions, labels, capsys
):
    """A run scored under identification (the estimand prompt's default) whose model answers the confounding
    ATE with the do-difference: rescored under equivalence with no model, the do() answers are credited where
    they equal the estimand; the replies, the verifier's verdicts and the request count stay as they were."""

    def respond(request, index):
        return StubReply(body=completion_body(PAPER_ATE if index % 2 else PAPER_ADJUSTED))

    with StubServer(respond) as server:
        run = tmp_path / "run"
        assert (
            main(
                [
                    "eval",
                    "cladder_pairs",
                    "--prompt",
                    "paper",
                    "--scoring",
                    "identification",
                    *CONFOUNDING_ATE,
                    "--limit",
                    "4",
                    *stub_flags(server.base_url),
                    "--concurrency",
                    "1",
                    "--hub-dir",
                    str(dataset_dir),
                    "--out",
                    str(run),
                ]
            )
            == 0
        )
        asked = server.count
        assert main(["rescore", str(run), "--out", str(tmp_path / "again"), "--scoring", "equivalence"]) == 0
        assert server.count == asked == 4
    capsys.readouterr()
    before, after = read_summary(run), read_summary(tmp_path / "again")
    assert (
        before["metrics"]["scoring"] == "identification" and before["metrics"]["accuracy"] == 0.5
    )  # the adjusted ones
    assert after["metrics"]["scoring"] == "equivalence" and after["metrics"]["accuracy"] == 1.0  # the do() ones too
    assert after["metrics"]["equivalence_accuracy"] == before["metrics"]["equivalence_accuracy"] == 1.0
    assert (
        after["options"]["scoring"] == "equivalence"
        and after["rescored"]["options_before"]["scoring"] == "identification"
    )
    assert (
        after["selection"] == before["selection"] and before["selection"]["limit"] == 4
    )  # what --resume would continue
    old, new = item_fields(run), item_fields(tmp_path / "again")
    assert [i["raw"] for i in new] == [i["raw"] for i in old] and [i["scoring"] for i in new] == ["equivalence"] * 4
    assert [i["identified"] for i in new] == [True, False, True, False]  # verdicts kept; only the headline rule moved


def test_rescore_asks_only_the_judge_and_only_when_told(dataset_dir, tmp_path, capsys):
    """A run with a judge: another judge graph changes what the judge is asked, so rescore refuses without a
    judge model, and with one calls only the judge (the model's replies are read from the run); an option of
    the generation cannot change; the oracle's rounds are flagged under another rule."""
    own_graph = PAPER_ATE.replace("V1->X, V1->Y, X->Y", "V1->X, X->Y")  # the model drops an edge

    def respond(request, index):
        if is_judge(request):
            return StubReply(body=completion_body("Verdict: equivalent"))
        return StubReply(body=completion_body(own_graph))

    run = tmp_path / "run"
    summary, requests = stub_run(
        run,
        dataset_dir,
        respond,
        *CONFOUNDING_ATE,
        "--limit",
        "2",
        "--prompt",
        "paper",
        "--judge-graph",
        "generated",
        judge=True,
    )
    assert summary.status == "complete" and summary.usage["judge"].calls == 2  # the second from the response cache
    assert main(["rescore", str(run), "--out", str(tmp_path / "a"), "--judge-graph", "true"]) == 2
    assert "--judge-graph changes what the judge is asked: pass --judge-model" in capsys.readouterr().err
    assert main(["rescore", str(run), "--out", str(tmp_path / "b"), "--prompt", "estimand"]) == 2
    assert "--prompt describes how the transcripts were generated" in capsys.readouterr().err
    with StubServer(respond) as server:
        assert (
            main(
                [
                    "rescore",
                    str(run),
                    "--out",
                    str(tmp_path / "c"),
                    "--judge-graph",
                    "true",
                    "--judge-model",
                    "judge",
                    "--judge-base-url",
                    server.base_url,
                    "--judge-no-cache",
                ]
            )
            == 0
        )
        assert server.count == 2 and all(is_judge(r) for r in server.requests)
    capsys.readouterr()
    rescored = read_summary(tmp_path / "c")
    assert rescored["rescored"]["judge_calls"] == 2 and [i["judge_graph"] for i in item_fields(tmp_path / "c")] == [
        "true",
        "true",
    ]
    assert "Causal graph: V1 -> X, V1 -> Y, X -> Y" in server.requests[0]["messages"][1]["content"]


def test_rescore_flags_an_oracle_run_under_another_rule(dataset_dir, tmp_path, capsys):
    run = tmp_path / "run"
    stub_run(
        run,
        dataset_dir,
        lambda request, index: StubReply(body=completion_body(CONFOUNDED)),
        *CONFOUNDING_ATE,
        "--limit",
        "1",
        "--feedback-rounds",
        "1",
        "--feedback",
        "oracle",
    )
    assert main(["rescore", str(run), "--out", str(tmp_path / "again"), "--scoring", "equivalence"]) == 0
    assert "note: --feedback oracle chose its rounds by the identification verdict" in capsys.readouterr().err
    assert read_summary(tmp_path / "again")["rescored"]["notes"]


@pytest.mark.llm
def test_ten_items_on_the_local_model_with_default_options_are_all_scored_and_repeat(dataset_dir, tmp_path, local_llm):
    """``eval cladder_pairs --limit 10`` against the local server with default options (512 tokens, the server's
    one slot and its long timeout found by themselves): every item is scored, and a second run with its own
    cache gets every reply again from the server, identical."""
    replies = []
    for run in ("first", "second"):
        summary = run_eval(
            "cladder_pairs",
            "--limit",
            "10",
            "--model",
            local_llm.model,
            "--base-url",
            local_llm.base_url,
            "--hub-dir",
            str(dataset_dir),
            "--out",
            str(tmp_path / run),
            "--cache-dir",
            str(tmp_path / f"cache-{run}"),
        )
        assert summary.status == "complete" and summary.items.scored == 10 and summary.failures == {}
        assert summary.usage["model"].http_requests == 10  # no retry: each request had one copy
        replies.append({item["id"]: item["raw"] for item in item_fields(tmp_path / run)})
    assert replies[0] == replies[1]
