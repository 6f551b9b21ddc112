"""CoBe's training-ready prompts config: exactly the runner's request, the representative answer."""

import datasets

from causal_datasets.builder import BuildContext
from causal_datasets.cobe.prompts import build_messages
from causal_datasets.cobe.records import CoBeQuery
from causal_datasets.hub.folder import build_to_folder, load_records
from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR


def test_prompts_rows_are_the_runner_requests(tmp_path):
    source = SHARED_DATA_DIR / "cobe" / "category-examples.json"
    folder = build_to_folder(get_builder("cobe"), tmp_path, BuildContext(seed=0, source=source)).folder
    prompts = datasets.load_dataset(str(folder), "prompts", split="test")
    queries = {q.id: q for q in load_records(folder, "queries", "test", CoBeQuery)}
    assert prompts.num_rows == len(queries) == 127  # the website file asks each scenario in one phrasing
    for row in prompts:
        query = queries[row["id"]]
        assert row["prompt"] == build_messages(query)
        assert row["prompt"][0]["role"] == "user" and query.query in row["prompt"][0]["content"]
        assert row["reference"] == query.representative_answer
    assert prompts.features["phrasing"].names == ["A", "B", "C"]
