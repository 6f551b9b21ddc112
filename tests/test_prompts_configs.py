"""The training-ready ``prompts`` configs: TRL's conversational ``prompt`` column, exactly the runners'
requests (ShapeWorld: the answer request of an episode; CLadder's yes/no: CLadder's question), references
that parse back into the ground truth and earn the reward."""

import json

import datasets
import pytest

from causal_datasets import rewards
from causal_datasets.builder import BuildContext
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.cladder_pairs.estimand_task import build_messages as cladder_messages
from causal_datasets.cladder_pairs.estimand_task import reference_unobserved
from causal_datasets.cladder_pairs.records import CladderQuestionRow
from causal_datasets.cladder_pairs.yes_no import build_messages as yes_no_messages
from causal_datasets.docalc.parser import parse
from causal_datasets.hub.folder import build_to_folder, load_records
from causal_datasets.recast.parsing import parse_graph_answer
from causal_datasets.recast.prompts import build_messages as recast_messages
from causal_datasets.recast.prompts import node_ids
from causal_datasets.recast.records import RecastSample
from causal_datasets.records.prompts import ChatMessage, PromptRow
from causal_datasets.registry import get_builder
from causal_datasets.shapeworld.agents import StrategyAgent
from causal_datasets.shapeworld.episode import run_episode
from causal_datasets.shapeworld.prompts import answer_prompt, system_prompt
from causal_datasets.shapeworld.records import ShapeWorldTask
from tests.support.data import SHARED_DATA_DIR


@pytest.fixture(scope="module")
def recast_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build_to_folder(
        get_builder("recast"), out, BuildContext(seed=0, source=SHARED_DATA_DIR / "recast" / "test.parquet")
    )
    return out / "recast"


@pytest.fixture(scope="module")
def cladder_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    builder = get_builder("cladder_pairs")
    with pytest.MonkeyPatch.context() as monkeypatch:  # the synthetic config is not under test: keep it tiny
        monkeypatch.setattr(cladder_build, "SYNTHETIC_POSITIVES", 5)
        build_to_folder(builder, out, BuildContext(seed=0, source=SHARED_DATA_DIR / "cladder"))
    return out / "cladder_pairs"


def load_prompts(folder):
    return datasets.load_dataset(str(folder), "prompts", split="test")


def assert_conversational(rows):
    """TRL's conversational prompt-only format: ``prompt`` is a list of {"role": str, "content": str} dicts
    that ends with a user turn (the model answers it)."""
    assert "messages" not in rows.column_names  # TRL's trainers would read it as a conversation to imitate
    for messages in rows["prompt"]:
        assert messages[-1]["role"] == "user"
        assert isinstance(messages, list) and messages
        for message in messages:
            assert set(message) == {"role", "content"}
            assert message["role"] in ("system", "user", "assistant") and isinstance(message["content"], str)


def test_recast_prompts_are_the_runner_requests_with_parsable_references(recast_folder):
    rows = load_prompts(recast_folder)
    samples = {s.id: s for s in load_records(recast_folder, "default", "test", RecastSample)}
    assert len(rows) == 2 * len(samples) == 584
    assert_conversational(rows)
    variants = rows.features["variant"]
    for row in rows:
        sample = samples[row["sample_id"]]
        name_assisted = variants.int2str(row["variant"]) == "name_assisted"
        assert row["prompt"] == recast_messages(sample, name_assisted=name_assisted)
        parsed = parse_graph_answer(row["reference"], node_ids(sample) if name_assisted else None)
        assert not parsed.unknown_ids
        assert set(parsed.graph.edges) == set(sample.graph().edges)  # node names as the graph normalizes them
        assert row["num_edges"] == sample.num_edges and row["confounding_lenient"] == sample.confounding_lenient
    assert sorted(variants.int2str(v) for v in rows["variant"][:2]) == ["name_assisted", "standard"]


def test_cladder_prompts_are_the_runner_requests_with_the_estimand(cladder_folder):
    rows = load_prompts(cladder_folder)
    questions = {q.id: q for q in load_records(cladder_folder, "questions", "test", CladderQuestionRow)}
    unasked = {q.id for q in questions.values() if reference_unobserved(q)}
    assert len(questions) == 3627 and len(unasked) == 217
    assert {(questions[i].graph_id, questions[i].query_type) for i in unasked} == {
        ("arrowhead", "nde"),
        ("arrowhead", "nie"),
    }
    assert set(rows["id"]) == set(questions) - unasked and len(rows) == 3410  # the questions eval asks
    assert_conversational(rows)
    query_types = rows.features["query_type"]
    for row in rows:
        question = questions[row["id"]]
        assert row["prompt"] == cladder_messages(question)
        assert row["reference"] == question.estimand and parse(row["reference"]) == parse(question.estimand)
        assert row["rung"] == question.rung and query_types.int2str(row["query_type"]) == question.query_type


def test_cladder_yes_no_prompts_are_cladders_questions_with_its_answer(cladder_folder):
    rows = datasets.load_dataset(str(cladder_folder), "yes_no_prompts", split="test")
    questions = {q.id: q for q in load_records(cladder_folder, "questions", "test", CladderQuestionRow)}
    assert len(rows) == len(questions) == 3627  # every question has CLadder's answer, the 217 included
    assert_conversational(rows)
    answers = rows.features["answer"]
    for row in rows:
        question = questions[row["id"]]
        (turn,) = row["prompt"]
        assert row["prompt"] == yes_no_messages(question) and turn["role"] == "user"
        assert turn["content"].startswith("Imagine a self-contained, hypothetical world")
        assert question.given_info in turn["content"] and question.question in turn["content"]
        assert answers.int2str(row["answer"]) == question.answer and row["reference"] == f"Answer: {question.answer}"


def test_shapeworld_prompts_end_with_the_answer_request_after_the_strategy_agents_experiment(tmp_path):
    folder = build_to_folder(get_builder("shapeworld"), tmp_path, BuildContext(seed=0)).folder
    rows = load_prompts(folder)
    tasks = {
        config: {t.id: t for t in load_records(folder, config, "test", ShapeWorldTask)}
        for config in ("core", "advanced")
    }
    assert len(rows) == 4 * (84 + 1200)
    assert_conversational(rows)
    features = rows.features
    for row in rows.select(range(0, len(rows), 7)):  # every seventh row: all configs, variants and both answers
        config, variant = features["config"].int2str(row["config"]), features["variant"].int2str(row["variant"])
        task = tasks[config][row["task_id"]]
        episode = run_episode(task, StrategyAgent(), variant, "agent:strategy")  # the runner's loop, replayed
        assert row["prompt"] == episode.transcript[:-1] and row["id"] == f"{task.id}-{variant}"
        assert row["prompt"][0]["content"] == system_prompt(variant)
        assert row["prompt"][-1]["content"] == answer_prompt(task.question, variant)
        assert row["reference"] == json.dumps({"answer": task.answer})
        assert features["answer"].int2str(row["answer"]) == task.answer
        turns = sum(m["role"] == "assistant" for m in row["prompt"])
        assert turns == 2 * row["steps"] == 2 * episode.steps  # per step an action and a choice
        assert rewards.shapeworld_answer_reward(
            prompts=[row["prompt"]], completions=[row["reference"]], answer=[row["answer"]]
        ) == [1.0]


def test_prompt_rows_reject_unknown_roles():
    with pytest.raises(ValueError, match="role must be one of"):
        ChatMessage(role="tool", content="x")
    features = PromptRow.features()
    assert features["prompt"].feature["role"] == datasets.Value("string")  # a string, not a class label
