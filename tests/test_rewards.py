"""TRL reward functions, called exactly as TRL's GRPOTrainer calls them, on rows of the real built datasets."""

import functools
import json
import logging

import datasets
import pytest

from causal_datasets import rewards
from causal_datasets.cladder_pairs.cladder import formal_expression
from causal_datasets.cladder_pairs.records import CladderQuestionRow
from causal_datasets.recast.parsing import parse_graph_answer
from causal_datasets.scoring.graph_compare import compare_graphs
from tests.support.prompt_builds import prompt_builds

LOGGER = "causal_datasets.rewards"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return prompt_builds(tmp_path_factory.mktemp("hub"))


def rows_of(hub, name, config, keep=lambda row: True, n=None):
    """Rows as TRL sees them (class labels as integers), optionally filtered, the first ``n``."""
    loaded = datasets.load_dataset(str(hub / name), config, split="test")
    rows = [row for row in loaded if keep(row)]
    return rows[:n] if n else rows


def trl_call(reward, rows, completions, *, conversational=True):
    """``reward`` called as GRPOTrainer does: the dataset's ``prompt`` (the last user turn in the standard
    format; the question for a config without prompts), the completions, ``completion_ids``, every other
    column as a list with one value per completion, and ``trainer_state``, ``log_extra``, ``log_metric``."""
    assert len(rows) == len(completions)
    inputs = []
    for row in rows:
        example = dict(row)
        messages = example.pop("prompt", None) or [{"role": "user", "content": example.get("question", "?")}]
        example["prompt"] = messages if conversational else messages[-1]["content"]
        inputs.append(example)
    if conversational:
        completions = [[{"role": "assistant", "content": text}] for text in completions]
    kwargs = {
        key: [example[key] for example in inputs]
        for key in inputs[0]
        if key not in ("prompt", "completion", "completion_ids")
    }
    kwargs |= {"trainer_state": object(), "log_extra": lambda *args, **kw: None, "log_metric": lambda *args, **kw: None}
    return reward(
        prompts=[example["prompt"] for example in inputs],
        completions=completions,
        completion_ids=[[1, 2, 3]] * len(completions),
        **kwargs,
    )


def warnings_of(caplog):
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]


def question_of(row, features):
    return CladderQuestionRow.from_row(row, features)


@pytest.mark.parametrize("conversational", [True, False])
def test_equivalence_on_the_cladder_prompts_config(hub, caplog, conversational):
    questions = datasets.load_dataset(str(hub / "cladder_pairs"), "questions", split="test")
    by_id = {row["id"]: question_of(row, questions.features) for row in questions.select(range(200))}
    prompts = rows_of(hub, "cladder_pairs", "prompts", keep=lambda row: row["rung"] >= 2 and row["id"] in by_id, n=30)
    assert len({row["graph_id"] for row in prompts}) >= 3
    group = []  # four generations per prompt, as GRPO samples them
    for row in prompts:
        reference = row["reference"]
        group += [
            (row, f"The back door is blocked.\nEstimand: {reference}", 1.0),
            (row, f"Estimand: ({reference}) + P(X=1)", 0.0),  # a strictly positive term more: never equal
            (row, f"Estimand: {formal_expression(by_id[row['id']]).text}", 0.0),  # the asked quantity, restated
            (row, "I cannot tell.", 0.0),
        ]
    with caplog.at_level(logging.WARNING, LOGGER):
        got = trl_call(
            rewards.estimand_equivalence_reward,
            [g[0] for g in group],
            [g[1] for g in group],
            conversational=conversational,
        )
    assert got == [g[2] for g in group]
    (warning,) = warnings_of(caplog)
    assert "60 of 120 completions" in warning and "not_identified: 30" in warning and "no_expression: 30" in warning


def test_equivalence_reads_each_graph_column(hub, caplog):
    questions = rows_of(hub, "cladder_pairs", "questions")
    features = datasets.load_dataset(str(hub / "cladder_pairs"), "questions", split="test").features
    families = features["graph_id"].names
    confounding = next(r for r in questions if families[r["graph_id"]] == "confounding" and r["query_type"] == 3)
    iv = next(r for r in questions if families[r["graph_id"]] == "IV" and r["query_type"] == 3)
    naive = "Estimand: P(Y=1|X=1) - P(Y=1|X=0)"  # ignores the confounder V1
    rewritten = "Estimand: \\sum_{V1} P(Y=1|X=1,V1)*P(V1) - \\sum_{V1} P(V1)*P(Y=1|V1,X=0)"
    assert trl_call(rewards.estimand_equivalence_reward, [confounding] * 2, [rewritten, naive]) == [1.0, 0.0]
    # the same columns given as edge-list text, then as another graph: there V1 is no confounder
    as_text = {k: v for k, v in confounding.items() if k not in ("nodes", "edges", "latent", "graph_id")}
    assert trl_call(
        rewards.estimand_equivalence_reward, [as_text | {"graph": "V1->X, V1->Y, X->Y"}] * 2, [rewritten, naive]
    ) == [1.0, 0.0]
    assert trl_call(rewards.estimand_equivalence_reward, [as_text | {"graph": "V1->X, X->Y"}], [naive]) == [1.0]
    # the whole completion as a bare expression; an unobserved V1 is no estimand
    adjusted = "\\sum_{V1} P(V1) * [P(Y=1|V1,X=1) - P(Y=1|V1,X=0)]"
    with caplog.at_level(logging.WARNING, LOGGER):
        assert trl_call(rewards.estimand_equivalence_reward, [iv, iv], [iv["estimand"], adjusted]) == [1.0, 0.0]
    assert "unobserved_variable: 1" in warnings_of(caplog)[0]


def test_the_scoring_rule_of_the_estimand_reward(hub, caplog):
    """Identification by default (the asked quantity copied back earns nothing); DoVerifier's equivalence
    rule on request, under which a right do() answer or an adjustment for the unobserved V1 earns 1.0."""
    questions = rows_of(hub, "cladder_pairs", "questions")
    families = datasets.load_dataset(str(hub / "cladder_pairs"), "questions", split="test").features["graph_id"].names
    frontdoor = next(r for r in questions if families[r["graph_id"]] == "frontdoor" and r["query_type"] == 3)
    completions = [
        "Estimand: E[Y | do(X = 1)] - E[Y | do(X = 0)]",
        "Estimand: \\sum_{V1} P(V1) * [P(Y=1|V1,X=1) - P(Y=1|V1,X=0)]",  # V1 is unobserved here
        "Estimand: P(Y=1|X=1) - P(Y=1|X=0)",
    ]
    with caplog.at_level(logging.WARNING, LOGGER):
        assert trl_call(rewards.estimand_equivalence_reward, [frontdoor] * 3, completions) == [0.0, 0.0, 0.0]
    assert "not_identified: 1" in warnings_of(caplog)[0] and "unobserved_variable: 1" in warnings_of(caplog)[0]
    equivalence = functools.partial(rewards.estimand_equivalence_reward, scoring="equivalence")
    assert trl_call(equivalence, [frontdoor] * 3, completions) == [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="scoring must be one of equivalence, identification"):
        trl_call(functools.partial(rewards.estimand_equivalence_reward, scoring="strict"), [frontdoor], ["x"])


def test_odd_completions_and_columns_get_the_lowest_reward_and_one_warning(hub, caplog):
    row = rows_of(hub, "cladder_pairs", "prompts", n=1)[0]
    good = f"Estimand: {row['reference']}"
    completions = [
        None,
        42,
        [{"role": "user", "content": good}],
        [{"content": good}],
        good,
        good,
        good,
        good,
        good,
        good,
    ]
    columns = {
        "reference": [row["reference"]] * 4 + [None, "P(Y=1|", row["reference"], row["reference"], row["reference"]],
        "graph_id": [row["graph_id"]] * 6 + [99, None, row["graph_id"]],  # the last completion has no column value
        "trainer_state": object(),
    }
    with caplog.at_level(logging.WARNING, LOGGER):
        got = rewards.estimand_equivalence_reward(prompts=[row["prompt"]] * 10, completions=completions, **columns)
    assert got == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]  # [{"content": ...}]: TRL's documented shape
    (warning,) = warnings_of(caplog)
    for reason in (
        "8 of 10",
        "malformed completion: 3",
        "no reference or estimand column: 2",
        "bad reference: 1",
        "graph_id not one of",
        "no graph column",
    ):
        assert reason in warning
    odd_edges = rewards.estimand_equivalence_reward(
        prompts=[None] * 3,
        completions=[good] * 3,
        reference=[row["reference"]] * 3,
        edges=["X->Y", [{"source": "X"}], [("X", "Y", "Z")]],
    )
    assert odd_edges == [0.0, 0.0, 0.0]


def recast_rows(hub):
    return rows_of(hub, "recast", "prompts", n=8)  # standard and name-assisted variants of four papers


def relationships(edges, think="<think>Reading the paper.</think>\n"):
    body = json.dumps({"relationships": [{"source": s, "sink": t} for s, t in edges]})
    return f"{think}Here is the graph.\n```json\n{body}\n```"


def test_recast_rewards_against_the_reference_graph(hub, caplog):
    rows = recast_rows(hub)
    assert {row["variant"] for row in rows} == {0, 1}  # name-assisted rows compare ids on both sides
    group, expected = [], []
    for row in rows:
        reference = parse_graph_answer(row["reference"]).graph
        edges = list(reference.edges)
        many = edges + [(s, f"{t} extra {i}") for i, (s, t) in enumerate(edges * 2)]

        def compared(answer_edges, reference=reference):
            comparison = compare_graphs(
                answer_edges, reference, node_matching="normalized", normalization="reference_edges"
            )
            return comparison.edge_f1, max(0.0, 1 - comparison.shd / len(reference.edges))

        for answer, scores in [
            (relationships(edges), (1.0, 1.0)),
            (relationships([(s.upper(), t) for s, t in edges]), (1.0, 1.0)),  # node names are matched normalized
            (relationships(edges[: len(edges) // 2]), compared(edges[: len(edges) // 2])),
            (relationships([(t, s) for s, t in edges]), compared([(t, s) for s, t in edges])),
            (relationships(many), (compared(many)[0], 0.0)),  # more wrong edges than the reference has: floored at 0
            (relationships([]), (0.0, 0.0)),
            ("The graph has no clear structure.", (0.0, 0.0)),
        ]:
            group.append((row, answer))
            expected.append(scores)
    rows_, answers = [g[0] for g in group], [g[1] for g in group]
    with caplog.at_level(logging.WARNING, LOGGER):
        f1s = trl_call(rewards.recast_edge_f1_reward, rows_, answers)
        shds = trl_call(rewards.recast_shd_reward, rows_, answers, conversational=False)
    assert f1s == pytest.approx([e[0] for e in expected]) and shds == pytest.approx([e[1] for e in expected])
    assert 0 < f1s[2] < 1
    assert [w.split(":")[0] for w in warnings_of(caplog)] == ["recast_edge_f1_reward", "recast_shd_reward"]
    assert "8 of 56 completions got the lowest reward (no relationships JSON: 8)" in warnings_of(caplog)[0]


def test_shapeworld_answer_reward_on_the_prompts_config(hub, caplog):
    rows = rows_of(hub, "shapeworld", "prompts", keep=lambda row: row["config"] == 0 and row["variant"] == 0)
    assert len(rows) == 84 and {row["answer"] for row in rows} == {0, 1}  # the core set, basic; labels: yes, no
    names = ("yes", "no")
    group, expected = [], []
    for row in rows:
        right, wrong = names[row["answer"]], names[1 - row["answer"]]
        for text, reward in [
            (f'I moved the shapes.\n```json\n{{"answer": "{right.upper()}."}}\n```', 1.0),
            (row["reference"], 1.0),
            (f'{{"answer": "{wrong}"}}', 0.0),
            ('{"answer": "perhaps"}', 0.0),
            ("yes", 0.0),
        ]:
            group.append(row)
            expected.append((text, reward))
    with caplog.at_level(logging.WARNING, LOGGER):
        got = trl_call(rewards.shapeworld_answer_reward, group, [e[0] for e in expected])
    assert got == [e[1] for e in expected]
    (warning,) = warnings_of(caplog)
    assert f"invalid_answer: {len(rows)}" in warning and f"invalid_format: {len(rows)}" in warning


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Answer: Yes", "yes"),
        ('{"answer": "no"}', "no"),
        ("No, because the effect runs the other way.", "no"),
        ("There is no confounding here, so the answer is **yes**.", "yes"),
        ("<think>answer: yes</think>\nFinal answer - No.", "no"),
        ("Yes at first sight; on reflection the answer is no", "no"),
        ("The answer to this question is yes.", "yes"),
        ("Thus, the answer for the question is: No", "no"),
        ("The answer to the question is yes or no depending on Z.", None),
        ("Maybe.", None),
        ("", None),
    ],
)
def test_reading_a_cladder_answer(text, answer):
    assert rewards.cladder_answer(text) == answer


def test_cladder_answer_reward_on_the_yes_no_prompts_config(hub, caplog):
    rows = rows_of(hub, "cladder_pairs", "yes_no_prompts", n=40)
    names = ("yes", "no")
    assert {row["answer"] for row in rows} == {0, 1}
    completions = [
        f"Answer: {names[row['answer']].title()}" if i % 2 else f"{names[1 - row['answer']]}, it does not."
        for i, row in enumerate(rows)
    ]
    assert trl_call(rewards.cladder_answer_reward, rows, completions) == [float(i % 2) for i in range(len(rows))]
    references = [f"Thinking.\n{row['reference']}" for row in rows]
    assert trl_call(rewards.cladder_answer_reward, rows, references) == [1.0] * 40
    unlabeled = dict(rows[0]) | {"answer": None}
    with caplog.at_level(logging.WARNING, LOGGER):
        assert trl_call(rewards.cladder_answer_reward, [unlabeled, rows[0]], ["Answer: yes", "It depends."]) == [
            0.0,
            0.0,
        ]
    assert "no answer column: 1" in warnings_of(caplog)[0] and "no yes/no answer: 1" in warnings_of(caplog)[0]
