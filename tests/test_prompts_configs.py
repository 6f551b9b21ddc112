"""The training-ready ``prompts`` configs: TRL's conversational format, exactly the runners' requests,
references that parse back into the ground truth."""

import datasets
import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.task import build_messages as cladder_messages
from causal_datasets.hub.folder import build_to_folder, load_records
from tests.support.data import SHARED_DATA_DIR
from causal_datasets.recast.parsing import parse_graph_answer
from causal_datasets.recast.prompts import build_messages as recast_messages
from causal_datasets.recast.prompts import node_ids
from causal_datasets.records.cladder_pairs import CladderQuestionRow
from causal_datasets.records.prompts import ChatMessage, PromptRow
from causal_datasets.records.recast import RecastSample
from causal_datasets.registry import get_builder


@pytest.fixture(scope="module")
def recast_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build_to_folder(get_builder("recast"), out, BuildContext(seed=0, source=SHARED_DATA_DIR / "recast" / "test.parquet"))
    return out / "recast"


@pytest.fixture(scope="module")
def cladder_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    builder = get_builder("cladder_pairs")
    with pytest.MonkeyPatch.context() as monkeypatch:  # the synthetic config is not under test: keep it tiny
        monkeypatch.setitem(builder.build.__globals__, "SYNTHETIC_POSITIVES", 5)
        build_to_folder(builder, out, BuildContext(seed=0, source=SHARED_DATA_DIR / "cladder"))
    return out / "cladder_pairs"


def load_prompts(folder):
    return datasets.load_dataset(str(folder), "prompts", split="test")


def assert_conversational(rows):
    """TRL's conversational format: ``messages`` is a list of {"role": str, "content": str} dicts."""
    for messages in rows["messages"]:
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
        assert row["messages"] == recast_messages(sample, name_assisted=name_assisted)
        parsed = parse_graph_answer(row["reference"], node_ids(sample) if name_assisted else None)
        assert not parsed.unknown_ids
        assert set(parsed.graph.edges) == set(sample.graph().edges)  # node names as the graph normalizes them
        assert row["num_edges"] == sample.num_edges and row["confounding_lenient"] == sample.confounding_lenient
    assert sorted(variants.int2str(v) for v in rows["variant"][:2]) == ["name_assisted", "standard"]


def test_cladder_prompts_are_the_runner_requests_with_the_estimand(cladder_folder):
    rows = load_prompts(cladder_folder)
    questions = {q.id: q for q in load_records(cladder_folder, "questions", "test", CladderQuestionRow)}
    assert len(rows) == len(questions) == 3627
    assert_conversational(rows)
    query_types = rows.features["query_type"]
    for row in rows:
        question = questions[row["id"]]
        assert row["messages"] == cladder_messages(question)
        assert row["reference"] == question.estimand and parse(row["reference"]) == parse(question.estimand)
        assert row["rung"] == question.rung and query_types.int2str(row["query_type"]) == question.query_type


def test_prompt_rows_reject_unknown_roles():
    with pytest.raises(ValueError, match="role must be one of"):
        ChatMessage(role="tool", content="x")
    features = PromptRow.features()
    assert features["messages"].feature["role"] == datasets.Value("string")  # a string, not a class label
