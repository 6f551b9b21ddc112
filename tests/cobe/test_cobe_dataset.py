"""CoBe dataset: both source formats, the real website file, labels, data-quality findings, the built folder."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main
from causal_datasets.cobe.dataset import query_records
from causal_datasets.cobe.formats import CoBeFormatError, parse_paper, parse_website, read_source
from causal_datasets.cobe.labels import normalize_domain, normalize_graph_type
from causal_datasets.cobe.quality import occurrence_problem
from causal_datasets.cobe.records import CoBeQuery, CoBeResponse, CoBeScenario
from causal_datasets.errors import SourceUnavailable
from causal_datasets.hub.folder import build_to_folder, load_records, verify_folder
from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR

WEBSITE = SHARED_DATA_DIR / "cobe" / "category-examples.json"
EXCERPT = SHARED_DATA_DIR / "cobe" / "category-examples.excerpt.json"
PAPER = Path(__file__).parent.parent / "data" / "cobe" / "paper_format.json"
BENCHMARK_FIELDS = {
    "id",
    "core_set_id",
    "variation_id",
    "text",
    "representative_answer",
    "should_not_change",
    "should_change",
    "numerical_change",
    "latent_factors",
}


@pytest.fixture(scope="module")
def website():
    return read_source(WEBSITE)


def test_website_file_counts_match_its_source_notes(website):
    # SOURCE.md: 130 listings, 127 distinct ids (101v1, 314v14, 501v20 twice); verdicts over the
    # distinct scenarios: wrong 647, correct 444, unknown 52; 9 models
    assert len(website.scenarios) == 127
    assert website.duplicates == ["101v1", "314v14", "501v20"]
    assert sum(len(s.source_groups) for s in website.scenarios) == 130
    assert len(website.models) == 9 and len(website.responses) == 127 * 9
    assert Counter(r.verdict for r in website.responses) == {"wrong": 647, "correct": 444, "unknown": 52}
    assert len({r.id for r in website.responses}) == len(website.responses)


def test_duplicates_are_merged_with_both_labels(website):
    merged = {s.id: s for s in website.scenarios}["101v1"]
    assert merged.domain == "Human Activities and Behavior"
    assert (merged.graph_type, merged.graph_type_raw) == ("diamond", "Diamond-like")
    assert merged.source_groups == ["by_domain/Human Activities and Behavior", "by_graph/Diamond-like"]


def test_labels_are_normalized_and_raw_spelling_kept(website):
    by_id = {s.id: s for s in website.scenarios}
    assert (by_id["403v28"].graph_type, by_id["403v28"].graph_type_raw) == ("hybrid", "Hydrid")
    assert (by_id["112v8"].domain, by_id["112v8"].domain_raw) == (
        "History and Geography",
        "History, Geography and Agriculture",
    )
    assert Counter(s.graph_type for s in website.scenarios if s.graph_type) == dict.fromkeys(
        ["chain", "collider", "correlated", "diamond", "fork", "hybrid"], 10
    )
    assert normalize_graph_type("Chain-like") == "chain" and normalize_graph_type("Spiral") is None
    assert normalize_domain("Music") == "Arts and Entertainment" and normalize_domain("Cooking") is None


def test_website_query_index_gives_the_phrasing(website):
    queries = {q.id: q for q in query_records(website.scenarios)}
    assert queries["102v17-A"].query.startswith("Rewrite the original text")
    assert queries["119v6-B"].query.startswith("Based on the preceding text")
    assert queries["143v10-C"].query.startswith("Rewrite the above passage")
    assert Counter(q.phrasing for q in queries.values()) == {"A": 43, "B": 42, "C": 42}


def test_quality_findings_on_the_real_file(website):
    by_id = {s.id: s for s in website.scenarios}
    kinds_403v28 = {i.kind for i in by_id["403v28"].quality_issues}
    assert {"criterion_not_in_text", "criterion_in_both_lists", "query_off_template"} <= kinds_403v28
    assert any(
        "313v6" == s.id and i.kind == "criterion_not_in_text" for s in website.scenarios for i in s.quality_issues
    )
    assert by_id["102v17"].quality_issues == []  # paraphrased criteria are not findings
    assert all(s.quality_issues == [] for s in website.scenarios if s.id in {"119v6", "143v10", "114v14"})


def test_occurrence_check_on_hand_examples():
    text = "I went to lunch. I skipped having a snack beforehand."
    assert occurrence_problem("I skipped having a snack beforehand.", text) is None
    assert "opposite polarity" in occurrence_problem("I had a snack beforehand.", text)
    assert "content words" in occurrence_problem("Nina tested a new smartphone.", text)


def test_excerpt_and_full_file_agree(website):
    excerpt = read_source(EXCERPT)
    full = {s.id: s for s in website.scenarios}
    assert [s.id for s in excerpt.scenarios] == ["102v17", "119v6", "143v10", "403v28", "406v29"]
    for scenario in excerpt.scenarios:
        assert scenario.model_dump(include=BENCHMARK_FIELDS | {"queries"}) == full[scenario.id].model_dump(
            include=BENCHMARK_FIELDS | {"queries"}
        )
    assert excerpt.responses == []


def _as_paper_entry(scenario: CoBeScenario) -> dict:
    """The website scenario written in the paper's format (its one query in its phrasing's slot)."""
    query = scenario.queries[0]
    slots = {"A": 0, "B": 1, "C": 2}
    queries = ["(other phrasing)"] * 3
    queries[slots[query.phrasing]] = query.text
    return {
        "Core Set ID": scenario.core_set_id,
        "Variation ID": scenario.variation_id,
        "Domain": scenario.domain_raw,
        "Variation text": scenario.text,
        "Query": queries,
        "Representative answer": scenario.representative_answer,
        "Evaluation criteria": [f"Should NOT change: {scenario.should_not_change[0]}", scenario.should_change[0]],
    }


def test_both_formats_parse_into_the_same_records(website):
    chosen = [s for s in website.scenarios if s.id in {"102v17", "119v6", "143v10", "403v28"}]
    paper = {s.id: s for s in parse_paper([_as_paper_entry(s) for s in chosen]).scenarios}
    for scenario in chosen:
        twin = paper[scenario.id]
        assert twin.model_dump(include=BENCHMARK_FIELDS) == scenario.model_dump(include=BENCHMARK_FIELDS)
        assert twin.domain == scenario.domain and twin.source_format == "paper_json"
        query = scenario.queries[0]
        assert next(q for q in twin.queries if q.phrasing == query.phrasing).text == query.text
        assert {i.kind for i in twin.quality_issues} - {"query_off_template"} == {
            i.kind for i in scenario.quality_issues
        } - {"query_off_template"}


def test_paper_fixture_from_the_appendix():
    parsed = read_source(PAPER)
    assert parsed.source_format == "paper_json" and parsed.responses == []
    by_id = {s.id: s for s in parsed.scenarios}
    sample = by_id["307v8"]
    assert (sample.domain, sample.domain_raw, sample.graph_type) == ("Arts and Entertainment", "Music", None)
    assert [q.phrasing for q in sample.queries] == ["A", "B", "C"]
    assert sample.should_change == ["There was a terrible audience experience."]
    assert by_id["315v14"].numerical_change == ["Opening weekend box office revenues were lower than $150 million."]
    assert len(query_records(parsed.scenarios)) == 6
    assert all(not s.quality_issues for s in parsed.scenarios)


@pytest.mark.parametrize(
    ("entry_change", "message"),
    [
        ({"Evaluation criteria": ["a", "b", "an unlabelled third criterion"]}, "has no label"),
        ({"Query": []}, "1-3 phrasings"),
        ({"Variation text": None}, "missing field"),
    ],
)
def test_bad_paper_entries_raise_a_named_error(entry_change, message):
    entry = json.loads(PAPER.read_text(encoding="utf-8"))[0] | entry_change
    if entry_change.get("Variation text", "") is None:
        del entry["Variation text"]
    with pytest.raises(CoBeFormatError, match=message):
        parse_paper([entry])


def test_bad_website_entries_raise_a_named_error():
    entry = json.loads(EXCERPT.read_text(encoding="utf-8"))["examples"][0]
    with pytest.raises(CoBeFormatError, match="102v17: unknown query_idx 4"):
        parse_website({"examples": [entry | {"query_idx": 4}]})
    with pytest.raises(CoBeFormatError, match="listed twice with different contents"):
        parse_website(
            {"by_domain": {"Engineering": [entry]}, "by_graph": {"Fork-like": [entry | {"gold_answer": "x"}]}}
        )
    outputs = {"gpt": {"response": "r", "verdict": "maybe"}}
    with pytest.raises(CoBeFormatError, match="no verdict"):
        parse_website({"models": ["gpt"], "examples": [entry | {"model_outputs": outputs}]})


def test_builder_needs_a_source_and_says_where_to_get_it(tmp_path):
    with pytest.raises(SourceUnavailable, match="cobe-benchmark.github.io"):
        build_to_folder(get_builder("cobe"), tmp_path, BuildContext(seed=0))


def test_built_folder_loads_back_typed_and_rebuilds_identically(tmp_path, website):
    builder = get_builder("cobe")
    written = build_to_folder(builder, tmp_path / "a", BuildContext(seed=0, source=WEBSITE))
    assert verify_folder(written.folder) == {
        "scenarios": {"test": 127},
        "queries": {"test": 127},
        "responses": {"test": 1143},
        "prompts": {"test": 127},
    }
    assert load_records(written.folder, "scenarios", "test", CoBeScenario) == website.scenarios
    assert load_records(written.folder, "responses", "test", CoBeResponse)[:9] == website.responses[:9]
    assert load_records(written.folder, "queries", "test", CoBeQuery) == query_records(website.scenarios)
    card = (written.folder / "README.md").read_text(encoding="utf-8")
    assert "`Hydrid` → `hybrid`" in card and "403v28" in card
    assert "| `scenarios` | listed more than once in the source (identical copies) | 3 scenarios |" in card
    again = build_to_folder(builder, tmp_path / "b", BuildContext(seed=0, source=WEBSITE))
    assert (
        json.loads((again.folder / "manifest.json").read_text())["files"]
        == json.loads((written.folder / "manifest.json").read_text())["files"]
    )


def test_paper_source_builds_without_a_responses_config(tmp_path):
    written = build_to_folder(get_builder("cobe"), tmp_path, BuildContext(seed=0, source=PAPER))
    assert set(written.row_counts) == {"scenarios", "queries", "prompts"}
    assert any("'responses' not built" in note for note in written.notes)


def test_paper_entries_as_json_lines_and_unusable_sources(tmp_path):
    entries = json.loads(PAPER.read_text(encoding="utf-8"))
    lines = tmp_path / "paper.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    assert read_source(lines).scenarios == read_source(PAPER).scenarios
    for name, content in [("empty.json", "[]"), ("other.json", '{"rows": []}'), ("broken.json", "{not json")]:
        bad = tmp_path / name
        bad.write_text(content, encoding="utf-8")
        with pytest.raises(SourceUnavailable, match="not a usable CoBe source"):
            build_to_folder(get_builder("cobe"), tmp_path / "out", BuildContext(seed=0, source=bad))
    assert main(["build", "cobe", "--source", str(tmp_path / "broken.json"), "--hub-dir", str(tmp_path / "out")]) == 2
