"""``causal-datasets eval shapeworld``: agents and models through the same runner, resume, errors, summary."""

import json
import re

import evaluate
import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main
from causal_datasets.errors import ResultsExist, RunConfigurationError
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm import LLMConfigError
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.paths import metric_path
from causal_datasets.registry import get_builder
from causal_datasets.runners.records import RunSummary
from causal_datasets.runners.results import read_summary
from causal_datasets.shapeworld.agents import StrategyAgent
from causal_datasets.shapeworld.episode import Turn
from causal_datasets.shapeworld.scoring import score_episodes
from causal_datasets.shapeworld.task import TASK
from tests.support.runs import item_fields, run_eval
from tests.support.stub_flags import stub_flags


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build_to_folder(get_builder("shapeworld"), out, BuildContext(seed=0))
    return out


def run(*argv: str) -> RunSummary:
    """``causal-datasets eval shapeworld ARGV`` through the engine."""
    return run_eval("shapeworld", *argv)


def test_oracle_run_writes_results_and_the_metric_summary(dataset_dir, tmp_path):
    out = tmp_path / "run"
    summary = run("--out", str(out), "--agent", "oracle", "--hub-dir", str(dataset_dir))
    items = item_fields(out)
    assert len(items) == 84 and all(item["correct"] and item["status"] == "scored" for item in items)
    assert summary.metrics.accuracy == 1.0 and summary.metrics.true_cases == 37
    assert TASK.summary_model.model_validate(read_summary(out)) == summary
    assert summary.status == "complete" and summary.items.scored == 84 and summary.failures == {}
    assert (summary.solver, summary.dataset.configs) == ("agent:oracle", ["core"])
    assert summary.dataset.version == get_builder("shapeworld").version
    metric = evaluate.load(metric_path("shapeworld_accuracy"))
    from_module = metric.compute(
        predictions=[i["prediction"] or "" for i in items],
        references=[i["gold"] for i in items],
        structures=[i["structure"] for i in items],
        num_variables=[i["num_variables"] for i in items],
        steps=[i["steps"] for i in items],
        errors=[i["error"] for i in items],
        invalid_actions=[i["invalid_actions"] for i in items],
        failure_patterns=[i["failure_pattern"] for i in items],
        setups=[i["setup"] for i in items],
        all_moving=[i["all_moving"] for i in items],
    )
    from_module["count"] = from_module.pop("episodes")  # the module's own name for the run's count
    assert from_module == summary.metrics.model_dump(exclude={"benchmark"}) | summary.slices


def test_advanced_oracle_and_resume_after_an_interruption(dataset_dir, tmp_path):
    out = tmp_path / "run"
    common = ["--out", str(out), "--agent", "oracle", "--config", "advanced", "--hub-dir", str(dataset_dir)]
    run(*common, "--limit", "40")
    first = (out / "results.jsonl").read_text()
    with open(out / "results.jsonl", "a") as handle:
        handle.write('{"id": "advanced-n4-g09-p5", "tor')  # a crash mid-line
    with pytest.raises(ResultsExist, match="--resume"):
        run(*common)
    summary = run(*common, "--extend", "--limit", "100", "--concurrency", "3")
    text = (out / "results.jsonl").read_text()
    assert text.startswith(first)  # the finished episodes were kept, not played again
    assert len(item_fields(out)) == 100 == len(text.splitlines()) and summary.metrics.accuracy == 1.0
    sizes = summary.slices["by_num_variables"]
    assert sum(entry["episodes"] for entry in sizes.values()) == 100 and summary.invocations == 2
    assert len(sizes) > 1  # the limit spreads the episodes over the initial setups, of several sizes


def test_exactly_one_of_agent_or_model(dataset_dir, tmp_path):
    with pytest.raises(RunConfigurationError, match="exactly one"):
        run("--out", str(tmp_path / "a"), "--hub-dir", str(dataset_dir))
    with pytest.raises(RunConfigurationError, match="exactly one"):
        run("--out", str(tmp_path / "b"), "--agent", "random", "--model", "m", "--hub-dir", str(dataset_dir))
    with pytest.raises(LLMConfigError, match="NO_SUCH_KEY_VARIABLE"):  # a remote model needs its key
        run(
            "--out",
            str(tmp_path / "c"),
            "--model",
            "m",
            "--api-key-env",
            "NO_SUCH_KEY_VARIABLE",
            "--base-url",
            "https://api.example.com/v1",
            "--hub-dir",
            str(dataset_dir),
        )
    assert not (tmp_path / "c").exists()


def test_dataset_is_built_when_missing(tmp_path):
    summary = run(
        "--out", str(tmp_path / "run"), "--agent", "random", "--limit", "5", "--hub-dir", str(tmp_path / "hub")
    )
    assert (tmp_path / "hub" / "shapeworld" / "manifest.json").exists()
    assert summary.metrics.count == 5 and summary.options["agent_seed"] == 0


def text_strategy_responder():
    """A fake model that reads only the prompt text and plays the strategy agent with it."""
    agents: dict[str, StrategyAgent] = {}

    def respond(request, index):
        messages = request["messages"]
        last = messages[-1]["content"]
        observed = [m["content"] for m in messages if m["role"] == "user" and " is " in m["content"]][-1]
        observation = tuple(
            (s, state == "moving") for s, state in re.findall(r"^(\w+) is (moving|static)$", observed, re.M)
        )
        cause, effect = re.search(r"Does the (\w+) moving cause the (\w+) to move\?", messages[1]["content"]).groups()
        phase = "action" if '"shape"' in last else "choice" if '"next"' in last else "answer"
        turn = Turn(phase, tuple(messages), observation, cause, effect, tuple(s for s, _ in observation), 0, 0)
        agent = agents.setdefault(messages[1]["content"], StrategyAgent())
        return StubReply(body=completion_body(agent.respond(turn), prompt_tokens=10, completion_tokens=5))

    return respond


def test_a_model_through_the_same_loop_with_cache_and_concurrency(dataset_dir, tmp_path):
    with StubServer(text_strategy_responder()) as server:
        args = [
            *stub_flags(server.base_url, cache=True),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--hub-dir",
            str(dataset_dir),
            "--concurrency",
            "4",
        ]
        summary = run("--out", str(tmp_path / "a"), *args)
        calls = server.count
        again = run("--out", str(tmp_path / "b"), *args)
        assert server.count == calls  # the second run came entirely from the response cache
    assert summary.metrics.accuracy == 1.0 and summary.metrics.error_total == 0
    assert summary.solver == "model:stub" and summary.usage["model"].calls == calls
    assert summary.usage_total.prompt_tokens == 10 * calls
    assert again.metrics == summary.metrics and again.usage["model"].cached_prompt_tokens == 10 * calls


def test_transport_failures_are_failed_items_replayed_on_resume(dataset_dir, tmp_path, capsys):
    out = tmp_path / "run"
    args = ["--out", str(out), "--hub-dir", str(dataset_dir), "--no-cache", "--max-retries", "0", "--limit", "6"]
    with StubServer(lambda request, index: StubReply(status=500, text="down")) as broken:
        first = run(*args, *stub_flags(broken.base_url, cache=True))
    assert first.status == "failed" and first.items.failed == 6 and first.items.scored == 0
    assert (
        first.failures == {"model": {"retries_exhausted": 6}} and first.metrics.count == 0
    )  # not scored as wrong answers
    with StubServer(lambda request, index: StubReply(text="I think the circle moves.")) as chatty:
        second = run(*args, "--resume", *stub_flags(chatty.base_url, cache=True))
        assert chatty.count == 6
    assert second.status == "complete" and second.metrics.errors["invalid_format"] == 6
    assert second.usage["model"].calls == 6 + 6 and second.invocations == 2  # both invocations counted
    lines = item_fields(out)  # one line per item: the latest
    assert [i["error"] for i in lines] == ["invalid_format"] * 6 and len({i["id"] for i in lines}) == 6


def test_a_run_that_reaches_no_server_exits_non_zero_and_says_so(dataset_dir, tmp_path, capsys):
    with StubServer() as server:
        dead = server.base_url  # nothing listens there once the server stopped
    code = main(
        [
            "eval",
            "shapeworld",
            "--model",
            "m",
            "--base-url",
            dead,
            "--max-retries",
            "0",
            "--limit",
            "3",
            "--no-cache",
            "--out",
            str(tmp_path / "run"),
            "--hub-dir",
            str(dataset_dir),
            "--json",
        ]
    )
    captured = capsys.readouterr()
    assert code == 1 and json.loads(captured.out)["status"] == "failed"
    assert captured.err.splitlines()[-1].startswith(
        "shapeworld: failed: 0 of 3 items scored, 3 failed (3 model retries_exhausted)"
    )


def test_metric_counts_by_mode_and_group():
    items = [
        {
            "gold": "yes",
            "prediction": "yes",
            "structure": "direct",
            "num_variables": 2,
            "steps": 1,
            "error": None,
            "invalid_actions": 0,
        },
        {
            "gold": "no",
            "prediction": "yes",
            "structure": "direct",
            "num_variables": 2,
            "steps": 3,
            "error": None,
            "invalid_actions": 2,
        },
        {
            "gold": "no",
            "prediction": None,
            "structure": "mediation",
            "num_variables": 3,
            "steps": 6,
            "error": "too_many_attempts",
            "invalid_actions": 0,
        },
        {
            "gold": "yes",
            "prediction": None,
            "structure": "mediation",
            "num_variables": 3,
            "steps": 0,
            "error": "invalid_format",
            "invalid_actions": 0,
        },
    ]
    scores = score_episodes(items)
    assert (scores["accuracy"], scores["accuracy_true"], scores["accuracy_false"]) == (0.25, 0.5, 0.0)
    assert scores["mean_steps"] == 2.0 and scores["answered"] == 2
    assert scores["errors"] == {
        "invalid_action": 2,
        "invalid_format": 1,
        "too_many_attempts": 1,
        "invalid_answer": 0,
        "llm_error": 0,
    }
    assert scores["by_structure"]["mediation"]["accuracy"] == 0.0 and scores["by_num_variables"]["2"]["accuracy"] == 0.5
    with pytest.raises(ValueError, match="unknown error modes"):
        score_episodes([items[0] | {"error": "timeout"}])


def test_command_line_prints_a_short_table_of_the_headline_scores(dataset_dir, tmp_path, capsys):
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "shapeworld",
                "--agent",
                "oracle",
                "--limit",
                "12",
                "--out",
                str(out),
                "--hub-dir",
                str(dataset_dir),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    summary = read_summary(out)
    interval = summary["intervals"]["metrics"]["accuracy"]  # the summary's own interval, to 3 places
    assert summary["metrics"]["accuracy"] == 1.0 and interval["ci_low"] < 1.0 and interval["ci_high"] == 1.0
    assert printed.splitlines() == [
        "shapeworld core, agent:oracle:",
        "",
        "| score | mean | 95% interval | items |",
        "|---|---|---|---|",
        f"| accuracy | 1.000 | [{interval['ci_low']:.3f}, 1.000] | 12 |",
        "",
        "items: 12 selected, 12 scored, 0 failed, 0 not run",
        f"run folder: {out} (summary.json: every metric and slice; results.jsonl: every item)",
    ]


def test_command_line_prints_the_summary_with_json(dataset_dir, tmp_path, capsys):
    code = main(
        [
            "eval",
            "shapeworld",
            "--agent",
            "strategy",
            "--variant",
            "instructed_cot",
            "--limit",
            "12",
            "--no-system-role",
            "--out",
            str(tmp_path / "run"),
            "--hub-dir",
            str(dataset_dir),
            "--json",
        ]
    )
    captured = capsys.readouterr()
    printed = json.loads(captured.out)
    assert code == 0 and printed["metrics"]["count"] == 12 and printed["options"]["variant"] == "instructed_cot"
    assert captured.err.splitlines()[-1] == "shapeworld: complete: 12 of 12 items scored"
    assert (
        printed["options"]["system_role"] is False
        and item_fields(tmp_path / "run")[0]["transcript"][0]["role"] == "user"
    )
    assert (
        main(["eval", "shapeworld", "--agent", "oracle", "--out", str(tmp_path / "run"), "--hub-dir", str(dataset_dir)])
        == 2
    )  # results exist and --resume was not given
