"""``causal-datasets eval cladder_yes_no``: CLadder's own yes/no questions sent to a stub model and scored."""

import re
from types import SimpleNamespace

import datasets
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, get_model

from causal_datasets.cladder_pairs import yes_no_task
from causal_datasets.cladder_pairs.cladder import read_questions
from causal_datasets.cladder_pairs.rows import question_rows
from causal_datasets.cladder_pairs.yes_no import yes_no_prompt_rows
from causal_datasets.errors import RunConfigurationError
from causal_datasets.integrations import inspect_tasks
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.runners.results import read_summary
from tests.support.builds import built_once, small_cladder_build
from tests.support.data import SHARED_DATA_DIR
from tests.support.inspect_offline import use_offline_encoding
from tests.support.runs import item_fields, run_eval
from tests.support.stub_flags import stub_flags


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    return built_once(tmp_path_factory, "small-cladder", small_cladder_build)


@pytest.fixture(scope="module")
def answers(dataset_dir):
    """CLadder's answer to each yes/no request, by the request's text (two questions share a text and an answer)."""
    rows = datasets.load_dataset(str(dataset_dir / "cladder_pairs"), "yes_no_prompts", split="test")
    label = rows.features["answer"].int2str
    found = {(row["prompt"][-1]["content"], label(row["answer"])) for row in rows}
    assert len(rows) == 3627 and len(found) == 3626 == len({text for text, _ in found})
    return dict(found)


def stub_run(out, dataset_dir, reply, *flags):
    """``eval cladder_yes_no`` with the stub model answering ``reply(request text)``, one item at a time."""
    with StubServer(
        lambda request, index: StubReply(body=completion_body(reply(request["messages"][-1]["content"])))
    ) as server:
        summary = run_eval(
            "cladder_yes_no",
            "--out",
            str(out),
            "--hub-dir",
            str(dataset_dir),
            "--concurrency",
            "1",
            "--max-retries",
            "0",
            *stub_flags(server.base_url),
            *flags,
        )
    return summary, item_fields(out)


def test_an_oracle_scores_one_overall_and_in_every_slice_with_clustered_intervals(tmp_path, dataset_dir, answers):
    summary, items = stub_run(tmp_path / "run", dataset_dir, lambda text: f"Let me think.\nAnswer: {answers[text]}")
    assert summary.status == "complete" and summary.metrics.count == 3627
    assert summary.metrics.accuracy == 1.0 and summary.metrics.errors == {}
    assert summary.slices["by_rung"].keys() == {"1", "2", "3"}
    assert sum(entry["n"] for entry in summary.slices["by_query_type"].values()) == 3627
    assert all(entry["accuracy"] == 1.0 for name in summary.slices for entry in summary.slices[name].values())
    assert all(i["correct"] and i["answer"] == i["reference"] and i["error"] is None for i in items)
    intervals = summary.intervals
    assert intervals.unit == "CLadder story and causal model" and 1 < intervals.clusters < 3627
    assert intervals.metrics["accuracy"].estimate == 1.0
    assert intervals.slices["by_graph_family"].keys() == summary.slices["by_graph_family"].keys()
    assert read_summary(tmp_path / "run")["benchmark"] == "cladder_yes_no"


def test_always_yes_scores_the_yes_share_overall_and_per_rung(tmp_path, dataset_dir, answers):
    summary, items = stub_run(tmp_path / "run", dataset_dir, lambda text: "Yes, because the data say so.")
    yes = sum(i["reference"] == "yes" for i in items) / len(items)
    assert 0 < yes < 1 and len(items) == 3627
    assert summary.metrics.accuracy == pytest.approx(yes) == summary.metrics.reference_yes_share
    assert yes == pytest.approx(sum(answer == "yes" for answer in answers.values()) / len(answers), abs=1e-3)
    assert summary.metrics.yes_share == 1.0
    for rung, entry in summary.slices["by_rung"].items():
        references = [i["reference"] for i in items if str(i["rung"]) == rung]
        assert entry["accuracy"] == pytest.approx(references.count("yes") / len(references))
    interval = summary.intervals.metrics["accuracy"]
    assert interval.ci_low < yes < interval.ci_high


def test_unreadable_replies_are_typed_failures_scored_wrong(tmp_path, dataset_dir):
    replies = iter(["<think>yes</think>", "Maybe yes or no.", "It depends."] * 2)
    summary, items = stub_run(tmp_path / "run", dataset_dir, lambda text: next(replies), "--limit", "6")
    assert summary.status == "complete" and summary.metrics.count == 6
    assert summary.metrics.accuracy == 0.0 and summary.metrics.errors == {"empty_reply": 2, "no_answer": 4}
    assert all(i["answer"] is None and not i["correct"] for i in items)


def test_the_inspect_task_reads_and_scores_each_reply_as_the_engine_does(tmp_path, dataset_dir):
    """``inspect eval causal_datasets/cladder_yes_no`` with a mock model that always answers yes."""
    use_offline_encoding()
    always_yes = get_model(
        "mockllm/model", custom_outputs=[ModelOutput.from_content("mockllm/model", "Answer: yes")] * 5
    )
    [log] = inspect_eval(
        inspect_tasks.cladder_yes_no(hub_dir=str(dataset_dir)),
        model=always_yes,
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=5,
    )
    assert log.status == "success", log.error
    scored = [sample.scores["engine_scorer"] for sample in read_eval_log(log.location).samples]
    assert len(scored) == 5
    for score in scored:
        line = score.metadata["scores"]
        assert line["answer"] == "yes" and line["correct"] == (line["reference"] == "yes")
        assert score.value == {"accuracy": float(line["correct"])}


def test_a_yes_no_row_without_its_question_is_a_typed_error():
    questions = question_rows(read_questions(SHARED_DATA_DIR / "cladder"))[:6]
    configs = {"questions": questions[1:], "yes_no_prompts": yes_no_prompt_rows(questions)}
    context = SimpleNamespace(rows=lambda config, kind: configs[config])
    with pytest.raises(
        RunConfigurationError, match=f"1 yes_no_prompts rows have no questions row.*{re.escape(questions[0].id)}"
    ):
        yes_no_task.items(context)
    configs["questions"] = questions
    assert [item.row.causal_model for item in yes_no_task.items(context)] == [q.causal_model for q in questions]
