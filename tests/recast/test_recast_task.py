"""ReCAST generation task: prompts, answer parsing, the correction fallback, name-based scores, runner."""

from __future__ import annotations

import json

import evaluate
import pytest

from causal_datasets.graph import CausalGraph
from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.paths import metric_path
from causal_datasets.recast import release
from causal_datasets.recast.deterministic import deterministic_scores
from causal_datasets.recast.generation import generate
from causal_datasets.recast.parsing import AnswerFormatError, parse_graph_answer, read_prediction
from causal_datasets.recast.prompts import build_messages, correction_messages, node_ids
from causal_datasets.runners.results import read_summary
from tests.data.recast.helpers import ScriptedClient, run_recast_eval
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import item_fields
from tests.support.stub_flags import stub_flags

RELEASE = SHARED_DATA_DIR / "recast" / "test.parquet"


@pytest.fixture(scope="module")
def samples():
    return {s.id: s for s in release.read_release(RELEASE).samples}


@pytest.fixture(scope="module")
def hub(tmp_path_factory, samples):
    """A built recast folder for the runner and the evaluate module."""
    from causal_datasets.hub.location import DatasetLocation
    from causal_datasets.recast.dataset import load_samples

    root = tmp_path_factory.mktemp("hub")
    samples, manifest = load_samples(DatasetLocation(hub_dir=root, source=RELEASE))
    assert len(samples) == 292 and manifest["name"] == "recast"
    return root


def answer(edges: list[tuple[object, object]], think: str = "") -> str:
    body = json.dumps({"relationships": [{"source": s, "sink": t} for s, t in edges]})
    return f"<think>{think}</think>\nHere is the graph:\n```json\n{body}\n```"


def test_generation_prompt_states_the_node_count_and_carries_the_text(samples):
    sample = samples[91]
    system, user = build_messages(sample)
    assert f"exactly {sample.num_nodes} distinct nodes" in system["content"]
    assert '"relationships"' in system["content"] and user["content"] == sample.input_text
    assert build_messages(sample) == build_messages(sample)  # a pure function of the record


def test_name_assisted_prompt_lists_every_node_with_its_id(samples):
    sample = samples[91]
    system = build_messages(sample, name_assisted=True)[0]["content"]
    listed = json.loads(system.rsplit("```json\n", 1)[1].split("\n```", 1)[0])["nodes"]
    assert [(n["id"], n["name"]) for n in listed] == list(node_ids(sample).items())
    assert [n["name"] for n in listed] == sample.node_names()
    assert "NUM_NODES" not in system and "NODE_JSON" not in system


def test_parsing_takes_the_last_relationships_json_and_ignores_reasoning():
    text = answer([("A", "B")], think='draft {"relationships": [{"source": "Z", "sink": "Q"}]}')
    text += "\nCorrection:\n" + json.dumps(
        {"relationships": [{"source": "A", "sink": "C"}, {"source": "A", "sink": "C"}]}
    )
    parsed = parse_graph_answer(text)
    assert parsed.graph.edges == (("A", "C"),)  # the later answer wins, the repeat collapses
    with pytest.raises(AnswerFormatError, match="relationships"):
        parse_graph_answer("I think A causes B.")
    with pytest.raises(AnswerFormatError, match="malformed"):
        parse_graph_answer('{"relationships": [{"source": "A"}]}')


def test_name_assisted_ids_map_to_names_and_unknown_ids_are_reported(samples):
    sample = samples[91]
    names = node_ids(sample)
    parsed = parse_graph_answer(answer([(1, 2), ("3", 1), (99, 1)]), names)
    assert parsed.graph.edges == ((names[1], names[2]), (names[3], names[1]))
    assert parsed.unknown_ids == ["99"] and parsed.dropped_relationships == 1


def test_malformed_answer_goes_through_the_correction_prompt(samples):
    sample = samples[91]
    replies = iter(["Graph: A causes B; B causes C", answer([("A", "B"), ("B", "C")])])
    client = ScriptedClient(lambda messages: next(replies))
    outcome = generate(client, sample)
    assert outcome.error is None and outcome.corrected and outcome.edges == [("A", "B"), ("B", "C")]
    correction = client.calls[1]
    assert correction == correction_messages(sample, "Graph: A causes B; B causes C")
    assert "Graph: A causes B; B causes C" in correction[1]["content"]


@pytest.mark.parametrize(
    "replies, error",
    [
        (["no graph here", "still nothing", "nothing", "nope"], "format_error"),
        ([answer([])], "empty_graph"),
    ],
)
def test_failed_generations_are_classified(samples, replies, error):
    outcome = generate(ScriptedClient(replies), samples[91], max_attempts=3)
    assert outcome.error == error and outcome.error_detail


def test_unknown_ids_only_is_its_own_category(samples):
    outcome = generate(ScriptedClient([answer([(500, 501)])]), samples[91], name_assisted=True)
    assert outcome.error == "unknown_node_ids" and outcome.unknown_ids == ["500", "501"]


def test_a_failing_model_call_is_an_llm_error(samples):
    client = LLMClient(LLMConfig(model="m", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2))
    outcome = generate(client, samples[91])
    assert outcome.error == "llm_error" and outcome.raw_answer is None


def test_deterministic_scores_on_the_release_graphs(samples):
    # every ground-truth graph against itself: perfect under exact names
    for sample in samples.values():
        exact = deterministic_scores(sample.graph(), sample)["exact"]
        assert exact["edge_f1"] == 1.0 and exact["shd"] == 0 and exact["node_f1"] == 1.0
    # sample 91 with its first edge reversed and its last dropped, hand-counted: 25 distinct
    # reference edges; the prediction keeps 23 of them plus the reversed one
    sample = samples[91]
    edges = list(sample.graph().edges)
    assert len(edges) == 25 and (edges[0][1], edges[0][0]) not in edges
    predicted = CausalGraph.from_edges([(edges[0][1], edges[0][0]), *edges[1:-1]])
    scores = deterministic_scores(predicted, sample)["exact"]
    assert scores["edge_precision"] == pytest.approx(23 / 24)
    assert scores["edge_recall"] == pytest.approx(23 / 25)
    assert scores["shd"] == 2  # one reversal (counted once) + one missing edge
    assert deterministic_scores(predicted, sample, reversal_cost=2)["exact"]["shd"] == 3
    n = len(set(sample.graph().nodes))
    assert scores["normalized_shd"] == pytest.approx(2 / (n * (n - 1)))
    # lower-cased names: exact matching finds nothing, normalized matching everything
    lowered = CausalGraph.from_edges([(s.lower(), t.lower()) for s, t in edges])
    both = deterministic_scores(lowered, sample)
    if any(s != s.lower() or t != t.lower() for s, t in edges):
        assert both["exact"]["edge_f1"] < 1.0
    assert both["normalized"]["edge_f1"] == 1.0


def test_evaluate_module_deterministic_mode(hub, samples):
    metric = evaluate.load(metric_path("recast_judge"))
    truth = samples[91].graph().to_text()
    result = metric.compute(
        predictions=[truth, "not -> a -> graph"], references=[91, 98], mode="deterministic", hub_dir=str(hub)
    )
    assert result["n"] == 2
    assert result["items"][0]["deterministic"]["exact"]["edge_f1"] == 1.0
    assert result["errors"] == {"unreadable_prediction": 1}
    assert result["deterministic"]["exact"]["edge_f1"] == pytest.approx(0.5)
    assert read_prediction(truth).edges == samples[91].graph().edges


def test_id_references_without_a_dataset_are_refused_and_nothing_is_built_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    metric = evaluate.load(metric_path("recast_judge"))
    with pytest.raises(ValueError, match="references given as sample ids need the dataset they come from"):
        metric.compute(predictions=["A -> B"], references=[91], mode="deterministic")
    assert list(tmp_path.iterdir()) == []


def stub_model(sample_edges: dict[str, list[tuple[str, str]]]):
    """A stub endpoint: graph answers for generation prompts, a broken YAML then NO_MATCH labels for the judge."""
    judged: set[str] = set()

    def respond(request, index):
        system = request["messages"][0]["content"]
        user = request["messages"][-1]["content"]
        if "grading a causal graph" not in system:
            key = next((k for k in sample_edges if k in user), None)
            return StubReply(text=answer(sample_edges[key]) if key else "no idea")
        task = request["messages"][1]["content"]
        kind = task.rsplit("Answer with the ", 1)[1].split("_evaluations", 1)[0]
        if kind == "node_recall" and kind not in judged:
            judged.add(kind)
            return StubReply(text="```yaml\nnode_recall_evaluations: [oops\n```")
        return StubReply(text=_no_match_yaml(request["messages"][1]["content"], kind))

    return respond


def _no_match_yaml(user: str, kind: str) -> str:
    section = user.split("<response_graph>" if kind.endswith("precision") else "<ground_truth_graph>", 1)[1]
    nodes_part, edges_part = section.split("Edges:", 1)
    count = len(
        [
            line
            for line in (nodes_part if kind.startswith("node") else edges_part.split("</", 1)[0]).splitlines()
            if line[:1].isdigit()
        ]
    )
    number = "node_number" if kind.startswith("node") else "edge_number"
    if kind == "node_precision":
        block = "{presence_label: PRESENCE_NO_MATCH, semantic_label: SEMANTIC_NA, abstraction_label: ABSTRACTION_NA}"
        items = [
            f"  - {{{number}: {i}, graph_evaluation: {block}, text_evaluation: {block}}}" for i in range(1, count + 1)
        ]
    elif kind == "edge_precision":
        graph = (
            "{presence_label: PRESENCE_STRONG_MATCH, directionality_label: DIRECTION_CORRECT, "
            "abstraction_label: ABSTRACTION_ALIGNED}"
        )
        text = (
            "{presence_label: PRESENCE_GRAPH_ONLY, inference_label: INFERENCE_DIRECT, "
            "abstraction_label: ABSTRACTION_ALIGNED}"
        )
        items = [
            f"  - {{{number}: {i}, graph_evaluation: {graph}, text_evaluation: {text}}}" for i in range(1, count + 1)
        ]
    elif kind == "node_recall":
        items = [
            f"  - {{{number}: {i}, importance_label: IMPORTANCE_CORE, presence_label: PRESENCE_NO_MATCH, "
            "semantic_label: SEMANTIC_NA, abstraction_label: ABSTRACTION_NA}"
            for i in range(1, count + 1)
        ]
    else:
        items = [
            f"  - {{{number}: {i}, importance_label: IMPORTANCE_CENTRAL, presence_label: PRESENCE_STRONG_MATCH, "
            "directionality_label: DIRECTION_CORRECT, abstraction_label: ABSTRACTION_ALIGNED}"
            for i in range(1, count + 1)
        ]
    return f"```yaml\n{kind}_evaluations:\n" + "\n".join(items) + "\n```"


def test_runner_end_to_end_with_resume(hub, samples, tmp_path):
    s91 = samples[91]
    truth = list(s91.graph().edges)
    # sample 91: the model returns the true graph; sample 98: no usable answer at all
    responder = stub_model({s91.input_text[:200]: truth})
    out = tmp_path / "run"
    with StubServer(responder) as server:
        argv = [
            *stub_flags(server.base_url),
            *stub_flags(server.base_url, role="judge", model="stub-judge"),
            "--hub-dir",
            str(hub),
            "--ids",
            "91",
            "98",
            "--out",
            str(out),
            "--concurrency",
            "1",
        ]
        run_recast_eval(argv)
        calls = server.count
        results = {r["id"]: r for r in item_fields(out)}
        assert set(results) == {"91", "98"}
        unusable = results["98"]  # no readable graph: the worst scores, without a judge call
        n98 = len(samples[98].graph().nodes)
        assert unusable["error"] == "format_error" and unusable["deterministic"]["exact"]["edge_f1"] == 0.0
        assert unusable["deterministic"]["normalized"]["shd"] == n98 * (n98 - 1)
        assert unusable["judge"]["scores"]["f1"] == 0.0 and all(
            e["attempts"] == 0 for e in unusable["judge"]["evaluations"].values()
        )
        ok = results["91"]
        assert ok["error"] is None and ok["deterministic"]["exact"]["edge_f1"] == 1.0
        judge = ok["judge"]
        assert judge["evaluations"]["node_recall"]["attempts"] == 2  # broken YAML rejected, re-asked
        # node precision all NO_MATCH → 0; edge precision and recall all perfect → 1
        assert judge["scores"]["node_precision"] == 0.0 and judge["scores"]["edge_precision"] == 1.0
        assert judge["scores"]["edge_recall"] == 1.0 and judge["scores"]["node_recall"] == 0.0
        summary = read_summary(out)
        assert summary["metrics"]["generation"]["ok"] == 1 and summary["metrics"]["generation"]["format_error"] == 1
        assert summary["metrics"]["scored_share"] == 0.5 and summary["metrics"]["unparsable"] == 1
        exact = summary["metrics"]["deterministic"]["exact"]  # both samples in the means, the unusable one at 0
        assert exact["n"] == 2 and exact["edge_f1"] == pytest.approx(ok["deterministic"]["exact"]["edge_f1"] / 2)
        assert summary["metrics"]["judge"]["f1_n"] == 2
        assert summary["models"]["judge"] == "stub-judge" and summary["usage"]["model"]["calls"] >= 2
        bins = summary["slices"]["by_confounding"]
        ranges = {
            name: tuple(map(float, name.split("–"))) for name in bins
        }  # each bin's lowest and highest dataset values
        bin_of = {
            s.id: next(
                name for name, (low, high) in ranges.items() if low - 5e-4 <= s.confounding_lenient <= high + 5e-4
            )
            for s in (s91, samples[98])
        }
        assert sum(row["n"] for row in bins.values()) == 2  # the unusable sample is in its bin, at 0
        together = [r for r in (ok, unusable) if bin_of[int(r["id"])] == bin_of[91]]
        assert bins[bin_of[91]]["n"] == len(together)
        assert bins[bin_of[91]]["edge_f1_normalized"] == pytest.approx(1.0 / len(together))
        assert bins[bin_of[91]]["judge_f1"] == pytest.approx(ok["judge"]["scores"]["f1"] / len(together))
        assert (
            sum(row["dataset_n"] for row in bins.values()) == 292
            and min(row["dataset_n"] for row in bins.values()) >= 60
        )
        # resume: nothing left to do, no request sent
        run_recast_eval([*argv, "--resume"])
        assert server.count == calls


@pytest.mark.parametrize(
    "judge_reply, status, failure, evaluation",
    [
        # the server refuses the judge's node-recall call: the item fails with the client's category
        (StubReply(status=400, text="bad request"), "failed", ("judge", "request_rejected"), None),
        # the judge answers, but not in the requested format: a scored item with a judge error
        (StubReply(text="I cannot grade this."), "scored", None, "no_block"),
    ],
)
def test_a_judge_transport_failure_fails_the_item_and_a_malformed_reply_is_scored(
    hub, samples, tmp_path, judge_reply, status, failure, evaluation
):
    sample = samples[91]
    grade = stub_model({sample.input_text[:200]: list(sample.graph().edges)})

    def respond(request, index):
        node_recall = "Answer with the node_recall_evaluations" in request["messages"][-1]["content"]
        return judge_reply if node_recall else grade(request, index)

    out = tmp_path / "run"
    with StubServer(respond) as server:
        run_recast_eval(
            ["--model", "stub", "--base-url", server.base_url, "--judge-model", "stub-judge"]
            + ["--judge-base-url", server.base_url, "--no-cache", "--judge-no-cache", "--max-attempts", "1"]
            + ["--hub-dir", str(hub), "--ids", "91", "--out", str(out), "--concurrency", "1"]
        )
    (result,) = item_fields(out)
    assert result["status"] == status
    if failure is not None:
        assert (result["failure"]["role"], result["failure"]["category"]) == failure
        assert "judge" not in result  # a failed item has no scores
    else:
        assert result["failure"] is None and result["error"] == "judge_invalid: node_recall"
        assert result["judge"]["evaluations"]["node_recall"]["category"] == evaluation
        assert result["judge"]["scores"]["recall"] is None and result["judge"]["scores"]["edge_precision"] == 1.0


def test_evaluate_module_judge_mode_on_a_local_endpoint(samples):
    sample = samples[91]
    metric = evaluate.load(metric_path("recast_judge"))
    truth = sample.graph()
    with StubServer(stub_model({})) as server:
        result = metric.compute(
            predictions=[truth.to_text()],
            references=[sample.model_dump_json()],
            judge_model="stub-judge",
            judge_base_url=server.base_url,
            concurrency=1,
        )
        assert server.count == 5  # four evaluations, node recall asked twice
        user_messages = [r["messages"][1]["content"] for r in server.requests]
    # the stub's labels: predicted nodes NO_MATCH (0), edges perfect (1); recall nodes 0, edges 1
    judged = result["items"][0]["judge"]["scores"]
    n_nodes, n_edges = len(truth.nodes), len(truth.edges)
    assert judged["node_precision"] == 0.0 and judged["edge_precision"] == 1.0
    assert judged["precision"] == pytest.approx(n_edges / (n_nodes + n_edges))
    assert judged["recall"] == pytest.approx(n_edges / (n_nodes + n_edges))
    assert result["judge"]["f1"] == pytest.approx(judged["f1"]) and result["judge"]["f1_n"] == 1
    assert result["judge_usage"]["calls"] == 5
    assert all(m.count(sample.input_text) == 1 for m in user_messages)


def test_an_answer_left_inside_an_unclosed_think_block_is_still_found():
    text = '<think>long reasoning... final: {"relationships": [{"source": "A", "sink": "B"}]}'
    assert parse_graph_answer(text).graph.edges == (("A", "B"),)
    # a closed reasoning block never overrides the answer after it
    closed = (
        '<think>{"relationships": [{"source": "X", "sink": "Y"}]}</think> '
        '{"relationships": [{"source": "A", "sink": "B"}]}'
    )
    assert parse_graph_answer(closed).graph.edges == (("A", "B"),)


def test_edge_lines_with_a_node_named_relationships_are_not_an_empty_graph():
    # before: any text holding the word "relationships" was read as JSON and, finding none, as no graph
    graph = read_prediction("Trade relationships -> GDP\nGDP -> Social relationships")
    assert graph.edges == (("Trade relationships", "GDP"), ("GDP", "Social relationships"))
    assert read_prediction('{"relationships": [{"source": "A", "sink": "B"}]}').edges == (("A", "B"),)
    with pytest.raises(AnswerFormatError, match="malformed"):
        read_prediction('{"relationships": [{"source": "A"}]}')  # a JSON answer that is broken stays an error
