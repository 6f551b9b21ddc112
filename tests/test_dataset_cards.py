"""Every dataset card, rendered from a real build: sections, field tables, metadata, findings, BibTeX.

The five datasets are built once (CLadder-pairs with 1,100 synthetic positives, enough to meet
repeated pairs) from the released files; each card is then checked against its own Parquet files,
the Hub's offline metadata rules and the builder's findings, and each build is repeated to show
that rebuilding is byte-identical.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets.info import DatasetInfosDict
from huggingface_hub import DatasetCard

from causal_datasets.builder import BuildContext, Release
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.cladder_pairs.quality import distinct_synthetic, mismatched_brackets
from causal_datasets.cladder_pairs.records import Edge, SyntheticPair
from causal_datasets.cladder_pairs.rows import synthetic_rows
from causal_datasets.cli import build_parser
from causal_datasets.docalc.expr import variables
from causal_datasets.docalc.parser import parse
from causal_datasets.errors import BuilderRegistrationError
from causal_datasets.hub.card_sections import describe, findings_section
from causal_datasets.hub.citations import bibtex, bibtex_entries, paper
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.hub.metadata_rules import metadata_problems
from causal_datasets.recast.release import CHECKS
from causal_datasets.registry import builders, get_builder
from tests.support.data import SHARED_DATA_DIR

SOURCES = {
    "recast": SHARED_DATA_DIR / "recast" / "test.parquet",
    "cobe": SHARED_DATA_DIR / "cobe" / "category-examples.json",
    "shapeworld": None,
    "causalab": SHARED_DATA_DIR / "causalab" / "data",
    "cladder_pairs": SHARED_DATA_DIR / "cladder",
}
#: configs built from another kind of source than the one above (cobe's `variations`: a construction folder,
#: tests/cobe/test_cobe_construct.py)
OTHER_SOURCE_CONFIGS = {"cobe": {"variations"}}
SECTIONS = [
    "## Supported Tasks and Evaluation", "## Dataset Structure", "### Loading", "### Fields", "## Dataset Statistics",
    "## Data Quality", "## Upstream Defects Fixed", "## Bias, Risks, and Limitations", "### Recommendations",
    "## Licensing Information", "## Citation", "## Version History",
]  # fmt: skip
SYNTHETIC_POSITIVES = 1100  # seed 0 repeats 4 pairs within these (from row synthetic-01133 on)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """name → (builder, its BuildOutcome, the folder written from exactly that outcome)."""
    root = tmp_path_factory.mktemp("hub")
    result = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(cladder_build, "SYNTHETIC_POSITIVES", SYNTHETIC_POSITIVES)
        for name, source in SOURCES.items():
            builder = get_builder(name)
            context = BuildContext(seed=builder.default_seed, source=source)
            outcome = builder.build(context)
            once = dataclasses.replace(builder, build=lambda _, outcome=outcome: outcome)
            folder = build_to_folder(once, root, context).folder
            result[name] = (builder, outcome, folder)
        yield result


def card(folder: Path) -> str:
    return (folder / "README.md").read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = heading.split(" ")[0]
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    prose = re.sub(r"^```.*?^```$", lambda m: " " * len(m.group()), text[start:], flags=re.MULTILINE | re.DOTALL)
    ends = [m.start() for m in re.finditer(rf"^#{{1,{len(level)}}} ", prose, re.MULTILINE)]
    return text[start : start + ends[0]] if ends else text[start:]


def column_paths(schema: pa.Schema) -> list[str]:
    """Every column of a Parquet schema, nested struct fields as dotted paths (through lists)."""

    def nested(prefix: str, kind: pa.DataType):
        while pa.types.is_list(kind) or pa.types.is_large_list(kind):
            kind = kind.value_type
        if pa.types.is_struct(kind):
            for field in kind:
                yield f"{prefix}.{field.name}"
                yield from nested(f"{prefix}.{field.name}", field.type)

    return [path for field in schema for path in (field.name, *nested(field.name, field.type))]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_card_has_every_section_in_order_and_none_is_empty(built, name):
    text = card(built[name][2])
    positions = [text.index(f"\n{heading}\n") for heading in SECTIONS]
    assert positions == sorted(positions)
    for heading in SECTIONS:
        assert section(text, heading).strip(), heading
    assert "{{" not in text.split("## Citation")[0] and "{%" not in text  # nothing left unrendered


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_column_of_every_config_is_in_its_field_table(built, name):
    builder, _, folder = built[name]
    tables = section(card(folder), "### Fields").split("\n#### ")[1:]
    configs = sorted(p.parent.name for p in folder.glob("data/*/*.parquet"))
    # every source is given: every config is built
    assert configs == sorted(set(builder.configs) - OTHER_SOURCE_CONFIGS.get(name, set()))
    for config in configs:
        sharing = sum(model is builder.configs[config] for model in builder.configs.values())
        (table,) = [
            t for t in tables if f"`{config}`" in t.splitlines()[0] or f"({sharing} configs" in t.splitlines()[0]
        ]
        for path in column_paths(pq.read_schema(next((folder / "data" / config).glob("*.parquet")))):
            row = re.search(rf"^\| `{re.escape(path)}` \| [^|]+ \| (.+) \|$", table, re.MULTILINE)
            assert row and row.group(1).strip(), f"{config}: {path}"


def test_nested_class_labels_list_their_values(built):
    table = section(card(built["recast"][2]), "### Fields")
    assert "| `nodes.explicitness` | class label |" in table
    assert "0 = `explicit`, 1 = `implicit`, 2 = `absent`, 3 = `unlabeled`." in table
    for column in ("journal_issn", "num_duplicate_edges", "num_unlabeled_nodes"):
        assert f"| `{column}` |" in table


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_front_matter_passes_the_hubs_offline_rules_and_matches_the_parquet_files(built, name):
    builder, _, folder = built[name]
    data = DatasetCard.load(folder / "README.md").data
    assert metadata_problems(data) == []
    infos = DatasetInfosDict.from_dataset_card_data(data)
    for config, info in infos.items():
        files = sorted((folder / "data" / config).glob("*.parquet"))
        assert info.features == builder.configs[config].features()
        assert list(info.features) == pq.read_schema(files[0]).names
        assert info.download_size == sum(f.stat().st_size for f in files)
        assert {s.name: s.num_examples for s in info.splits.values()} == json.loads(
            (folder / "manifest.json").read_text()
        )["rows"][config]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_card_cites_the_papers_in_complete_bibtex(built, name):
    builder, _, folder = built[name]
    citation = section(card(folder), "## Citation")
    entries = re.findall(r"^@\w+\{([^,]+),", citation, re.MULTILINE)
    assert entries == list(builder.citations) and entries
    for entry in bibtex(builder.citations):
        facts = paper(entry)
        assert facts.title and facts.authors and facts.year and entry in citation
        assert f"- **Paper:** {facts.markdown()}" in card(folder)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_data_quality_section_is_what_the_builder_found(built, name):
    _, outcome, folder = built[name]
    quality = section(card(folder), "## Data Quality")
    assert findings_section(outcome.findings) in quality
    for finding in outcome.findings:
        assert f"| `{finding.config}` | {finding.issue} | {len(finding.ids)} {finding.unit} |" in quality
    notes = json.loads((folder / "manifest.json").read_text())["notes"]
    assert [f.note() for f in outcome.findings] == notes[len(notes) - len(outcome.findings) :]


def test_recast_findings_are_the_releases_quirks(built):
    _, outcome, folder = built["recast"]
    found = {f.issue: f.ids for f in outcome.findings}
    assert len(found[CHECKS["unlabeled"][0]]) == 77
    assert len(found[CHECKS["repeated_edges"][0]]) == 30
    assert found[CHECKS["self_loops"][0]] == ("54", "136", "183", "278", "286")
    quality = section(card(folder), "## Data Quality")
    assert "| 77 samples |" in quality and "| 30 samples |" in quality and ": 54, 136, 183, 278, 286\n" in quality


def test_cladder_card_counts_the_removed_repeats(built):
    _, outcome, folder = built["cladder_pairs"]
    generated = synthetic_rows(0, SYNTHETIC_POSITIVES)

    def identity(r):  # edges, nodes that are linked or named, the two sides in either order
        named = variables(parse(r.expr_a)) | variables(parse(r.expr_b))
        edges = sorted([e.source, e.target] for e in r.edges)
        return json.dumps([edges, sorted({n for e in edges for n in e} | named), sorted([r.expr_a, r.expr_b])])

    repeats = sum(count - 1 for count in Counter(map(identity, generated)).values())
    (finding,) = [f for f in outcome.findings if f.config == "synthetic"]
    assert repeats == len(finding.ids) > 0
    kept = outcome.records["synthetic"]["test"]
    assert len(kept) == 2 * SYNTHETIC_POSITIVES - repeats and not set(finding.ids) & {r.id for r in kept}
    assert f"| `synthetic` | {finding.issue} | {repeats} rows | removed;" in section(card(folder), "## Data Quality")


def test_cladder_spelling_findings_are_the_strings_that_carry_them(built):
    _, outcome, _ = built["cladder_pairs"]
    questions = {q.id: q for q in outcome.records["questions"]["test"]}
    found = {(f.config, f.issue.split(" ")[1]): set(f.ids) for f in outcome.findings}
    assert found[("questions", "minus")] == {i for i, q in questions.items() if "\u2212" in q.estimand + q.formal_form}
    assert len(found[("questions", "minus")]) == 103 and len(found[("questions", "bracket")]) == 83
    assert all(re.search(r"P\([^()\[\]]*\]", questions[i].formal_form) for i in found[("questions", "bracket")])


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_version_history_lists_every_release_newest_first(built, name):
    builder, _, folder = built[name]
    history = section(card(folder), "## Version History")
    versions = re.findall(r"^\| (\d+\.\d+\.\d+) \|", history, re.MULTILINE)
    assert versions == [r.version for r in reversed(builder.history)]
    assert f"- **Version:** {builder.version} " in card(folder)


def test_cladder_pairs_version_with_the_repeats_removed():
    history = get_builder("cladder_pairs").history
    assert "repeat an earlier pair" in next(r.changes for r in history if r.version == "1.3.0")
    assert "two sides swapped" in next(r.changes for r in history if r.version == "1.6.0")


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_evaluation_commands_of_the_card_are_real_commands(built, name):
    text = card(built[name][2])
    commands = [
        line
        for block in re.findall(r'^```bash(?: title="[^"]*")?\n(.*?)^```$', text, re.MULTILINE | re.DOTALL)
        for line in block.splitlines()
        if line.startswith("causal-datasets ")
    ]
    assert any(f"causal-datasets eval {name}" in c for c in commands)
    for command in commands:
        build_parser().parse_args(shlex.split(command)[1:])  # argparse exits on a bad command


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_rebuilding_is_byte_identical(built, name, tmp_path):
    builder, _, first = built[name]
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(cladder_build, "SYNTHETIC_POSITIVES", SYNTHETIC_POSITIVES)
        second = build_to_folder(
            builder, tmp_path, BuildContext(seed=builder.default_seed, source=SOURCES[name])
        ).folder
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for relative in files:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative


def test_every_field_of_every_config_is_described():
    for name, builder in builders().items():
        for config, model in builder.configs.items():
            undocumented = [doc.path for doc in model.field_docs() if not doc.description.strip()]
            assert not undocumented, f"{name}/{config}: {undocumented}"


def test_the_class_label_values_follow_the_description():
    (doc,) = [d for d in SyntheticPair.field_docs() if d.path == "negative_kind"]
    assert describe(doc).endswith(
        "Class label: 0 = `dropped_action`, 1 = `action_as_observation`, "
        "2 = `observation_as_action`, 3 = `dropped_observation`, 4 = `added_observation`."
    )


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("source_datasets", ["RyanSaklad/ReCast"], "source_datasets: 'RyanSaklad/ReCast' is not"),
        ("source_datasets", ["extended|not a hub id"], "source_datasets: 'extended|not a hub id' is not"),
        ("license", "cc-by-4", "license: 'cc-by-4' is not a value the Hub accepts"),
        ("task_categories", ["causal-reasoning"], "task_categories: 'causal-reasoning' is not"),
        ("size_categories", ["n<2K"], "size_categories: 'n<2K' is not"),
        ("language", ["english"], "language: 'english' is not"),
        ("annotations_creators", ["experts"], "annotations_creators: 'experts' is not"),
        ("tags", None, "missing 'tags'"),
        ("licence", "mit", "unknown key 'licence'"),
        (
            "configs",
            [{"config_name": "a", "data_files": "a/*"}, {"config_name": "b", "data_files": "b/*"}],
            "configs: no default config",
        ),
    ],
)
def test_the_offline_rules_reject_what_the_hub_would(built, key, value, problem):
    data = DatasetCard.load(built["recast"][2] / "README.md").data
    data[key] = value
    assert any(p.startswith(problem) for p in metadata_problems(data)), metadata_problems(data)


@pytest.mark.parametrize(
    ("line", "replacement", "message"),
    [
        ("license: apache-2.0", "license: apache", "license: 'apache' is not"),
        ("- original", "- original\npretty_name: mine", "sets computed keys ['pretty_name']"),
    ],
)
def test_a_card_template_that_breaks_the_rules_fails_the_build(tmp_path, line, replacement, message):
    builder = get_builder("shapeworld")
    template = tmp_path / "shapeworld.md"
    template.write_text(builder.card_path.read_text(encoding="utf-8").replace(line, replacement, 1), encoding="utf-8")
    with pytest.raises(BuilderRegistrationError, match=re.escape(message)):
        build_to_folder(dataclasses.replace(builder, card_template=template), tmp_path / "out", BuildContext(seed=0))
    assert not (tmp_path / "out" / "shapeworld").exists()


def test_history_must_grow_and_its_last_entry_is_the_version():
    builder = get_builder("shapeworld")
    assert dataclasses.replace(builder, history=(*builder.history, Release("99.0.0", "more"))).version == "99.0.0"
    for history in ((), (Release("1.0.0", "a"), Release("1.0.0", "b")), (Release("1.0", "short"),)):
        with pytest.raises(BuilderRegistrationError):
            dataclasses.replace(builder, history=history)


def test_an_unknown_citation_key_is_named():
    assert {
        "saklad2025recast",
        "feng2025causallink",
        "yang2026causalab",
        "raghavan2026cobe",
        "doverifier2025",
        "jin2023cladder",
    } <= set(bibtex_entries())
    with pytest.raises(BuilderRegistrationError, match="no BibTeX entry \\['nobody2099'\\]"):
        bibtex(["nobody2099"])


def test_repeated_synthetic_pairs_state_the_same_identity():
    """Same edges in any order, the two sides in either order, isolated nodes no expression names ignored."""

    def pair(number: int, edges: list[tuple[str, str]], b: str) -> SyntheticPair:
        return SyntheticPair(
            id=f"synthetic-{number:05d}", num_nodes=3, nodes=["V1", "V2", "V3"],
            edges=[Edge(source=s, target=t) for s, t in edges], expr_a="P(V1 | do(V2))", expr_b=b, equivalent=True,
            rule_applications=1, proof=[], negative_kind=None, counterexample_json=None,
        )  # fmt: skip

    rows = [
        pair(0, [("V2", "V1"), ("V3", "V1")], "P(V1 | V2)"),
        pair(1, [("V3", "V1"), ("V2", "V1")], "P(V1 | V2)"),
        pair(2, [("V2", "V1")], "P(V1 | V2)"),
        pair(3, [("V2", "V1"), ("V3", "V1")], "P(V1)"),
    ]
    swapped = pair(4, [("V2", "V1"), ("V3", "V1")], "P(V1 | do(V2))").model_copy(update={"expr_a": "P(V1 | V2)"})
    isolated = pair(5, [("V2", "V1")], "P(V1 | V2)").model_copy(
        update={"num_nodes": 4, "nodes": ["V1", "V2", "V3", "V4"]}
    )
    named = pair(6, [("V2", "V1")], "P(V1 | V2, V3)")  # V3 isolated but named: another identity
    kept, finding = distinct_synthetic([*rows, swapped, isolated, named])
    assert [r.id for r in kept] == ["synthetic-00000", "synthetic-00002", "synthetic-00003", "synthetic-00006"]
    assert finding.ids == ("synthetic-00001", "synthetic-00004", "synthetic-00005") and finding.config == "synthetic"


@pytest.mark.parametrize(
    ("text", "mismatched"),
    [
        ("P(Y = 1 | X = 1, V3 = 1] - P(Y = 1 | V3 = 1)", True),
        ("[P(Y|X)]", False),
        ("E[Y_{X=1}]", False),
        ("P(Y))", True),
    ],
)
def test_mismatched_brackets(text, mismatched):
    assert mismatched_brackets(text) is mismatched


def test_a_field_without_a_description_fails_the_build(tmp_path):
    from tests.support.tiny_dataset import TinyRow, tiny_builder

    class Undocumented(TinyRow):
        extra: int = 0

    builder = tiny_builder(tmp_path)
    build = builder.build

    def build_undocumented(context):
        built = build(context)
        splits = built.records["default"].items()
        records = {"default": {split: [Undocumented(**r.model_dump()) for r in rows] for split, rows in splits}}
        return dataclasses.replace(built, records=records)

    undocumented = dataclasses.replace(builder, configs={"default": Undocumented}, build=build_undocumented)
    with pytest.raises(BuilderRegistrationError, match=r"fields without a description: default\.extra"):
        build_to_folder(undocumented, tmp_path / "out", BuildContext(seed=7))
