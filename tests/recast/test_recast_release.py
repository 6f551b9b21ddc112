"""ReCAST path 1: the published release → typed records → hub folder, checked against the paper."""

from __future__ import annotations

import datetime
import json
import statistics
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.errors import SourceUnavailable
from causal_datasets.hub.folder import build_to_folder, load_records, verify_folder
from causal_datasets.recast import release
from causal_datasets.recast.records import RecastSample
from causal_datasets.recast.statistics import domain_counts, pooled_absent_share
from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR

RELEASE = SHARED_DATA_DIR / "recast" / "test.parquet"


@pytest.fixture(scope="module")
def raw_rows() -> dict[int, dict]:
    """The release read directly with pyarrow: the independent reference for every check."""
    return {row["id"]: row for row in pq.read_table(RELEASE).to_pylist()}


@pytest.fixture(scope="module")
def imported() -> release.ReleaseImport:
    return release.read_release(RELEASE)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hub")
    return build_to_folder(get_builder("recast"), out, BuildContext(seed=0, source=RELEASE)).folder


def test_release_has_the_papers_292_samples(imported, raw_rows):
    assert len(imported.samples) == 292 == len(raw_rows)
    assert [s.id for s in imported.samples] == sorted(raw_rows)
    assert 63 not in raw_rows and 74 not in raw_rows  # the release skips these ids


def test_table1_ranges_and_means_match_the_paper(imported):
    samples = imported.samples
    lengths = [s.text_length for s in samples]
    nodes = [s.num_nodes for s in samples]
    edges = [s.num_edges for s in samples]
    assert (min(lengths), max(lengths)) == (684, 171_141)
    assert (min(nodes), max(nodes)) == (5, 140)
    assert (min(edges), max(edges)) == (6, 205)
    assert round(statistics.fmean(lengths)) == 40_541 and round(statistics.stdev(lengths)) == 17_722
    assert round(statistics.fmean(nodes), 1) == 25.0 and round(statistics.stdev(nodes), 1) == 15.8
    assert round(statistics.fmean(edges), 1) == 37.4 and round(statistics.stdev(edges), 1) == 24.3
    assert round(pooled_absent_share(samples), 3) == 0.123  # Table 1 "confounding per node"


def test_domains_and_dates_match_the_papers_statements(imported, raw_rows):
    counts = domain_counts(imported.samples)
    # every sample is an economics paper; the counts equal a direct count of the raw column
    assert counts["Economics & Public Policy"] == 292
    raw_counts = {d: sum(d in row["domains"] for row in raw_rows.values()) for d in counts}
    assert counts == raw_counts
    assert max(counts.items(), key=lambda item: item[1] if item[0] != "Economics & Public Policy" else 0)[0] == (
        "Engineering & Technology"
    )
    non_economics = statistics.fmean(len(s.domains) - 1 for s in imported.samples)
    assert abs(non_economics - 1.67) < 0.05  # the appendix: 1.67 non-economics domains per sample
    # dates parse to the raw strings' calendar days; the appendix counts 35 evaluated samples from
    # 2024 or later, the release holds one more
    recent = sum(s.publication_date >= datetime.date(2024, 1, 1) for s in imported.samples)
    assert recent == sum(row["publication_date"][:4] >= "2024" for row in raw_rows.values())
    assert recent - 35 in (0, 1)


def test_derived_fields_on_known_rows(imported, raw_rows):
    by_id = {s.id: s for s in imported.samples}
    first = by_id[1]
    raw = raw_rows[1]
    codes = json.loads(raw["node_explicitness"])
    assert first.source == "PLOS" and first.journal == "PLOS ONE" and first.journal_issn == "1932-6203"
    assert first.publication_date == datetime.date(2018, 3, 29)
    assert (first.num_nodes, first.num_edges) == (13, 27) == (raw["num_nodes"], raw["num_edges"])
    assert first.explicitness == pytest.approx(raw["explicitness"]) == pytest.approx(8 / 13)
    absent = sum(codes[n] == 3 for n in raw["nodes"])
    not_explicit = sum(codes[n] != 1 for n in raw["nodes"])
    assert first.confounding_strict == pytest.approx(absent / 13)
    assert first.confounding_lenient == pytest.approx(not_explicit / 13)
    assert [(e.source, e.target) for e in first.edges] == [(e["source"], e["target"]) for e in raw["edges"]]
    assert first.text_length == len(raw["input_text"])
    # feedback loops: the graph's cycle count agrees with networkx on the raw edges
    import networkx as nx

    graph = nx.DiGraph([(e["source"], e["target"]) for e in raw["edges"]])
    assert first.num_cycles == sum(1 for _ in nx.simple_cycles(graph))
    assert first.is_acyclic == nx.is_directed_acyclic_graph(graph)


def test_release_gaps_are_reported_not_hidden(imported, raw_rows):
    by_id = {s.id: s for s in imported.samples}
    # sample 3 has one node without an explicitness code in the release
    raw = raw_rows[3]
    missing = [n for n in raw["nodes"] if n not in json.loads(raw["node_explicitness"])]
    assert len(missing) == 1
    node = next(n for n in by_id[3].nodes if n.name == missing[0])
    assert node.explicitness == "unlabeled" and by_id[3].num_unlabeled_nodes == 1
    # repeated edges are kept as annotated and counted
    raw17 = raw_rows[17]["edges"]
    assert by_id[17].num_edges == len(raw17)
    assert by_id[17].num_duplicate_edges == len(raw17) - len({(e["source"], e["target"]) for e in raw17})
    found = {finding.issue: finding.ids for finding in imported.findings}
    assert "3" in found[release.CHECKS["unlabeled"][0]] and "17" in found[release.CHECKS["repeated_edges"][0]]


def test_build_writes_a_loadable_folder_with_the_paper_statistics(built):
    assert verify_folder(built) == {"default": {"test": 292}, "prompts": {"test": 584}}
    card = (built / "README.md").read_text(encoding="utf-8")
    assert "| Nodes per graph | 25.0 ± 15.8 | 5 | 140 |" in card
    assert "| Edges per graph | 37.4 ± 24.3 | 6 | 205 |" in card
    assert "| Engineering & Technology | 212 |" in card
    assert "license: cc-by-4.0" in card
    records = load_records(built, "default", "test", RecastSample)
    assert len(records) == 292
    first = next(r for r in records if r.id == 1)
    assert first.nodes[0].explicitness in {"explicit", "implicit", "absent", "unlabeled"}
    assert first.num_edges == len(first.edges) == 27


def test_rebuild_is_byte_identical(built, tmp_path):
    again = build_to_folder(get_builder("recast"), tmp_path, BuildContext(seed=0, source=RELEASE)).folder
    for path in sorted(p for p in built.rglob("*") if p.is_file()):
        assert (again / path.relative_to(built)).read_bytes() == path.read_bytes(), path.name


def test_missing_source_and_offline_hub_give_a_clear_error(tmp_path):
    with pytest.raises(SourceUnavailable, match="does not exist"):
        release.locate_release(tmp_path / "nope.parquet")

    def offline() -> Path:
        raise OSError("network unreachable")

    with pytest.raises(SourceUnavailable, match="could not download RyanSaklad/ReCast"):
        release.locate_release(None, download=offline)
    assert release.locate_release(RELEASE.parent) == RELEASE


def test_bad_release_rows_raise_a_typed_error(raw_rows):
    row = dict(raw_rows[1])
    row["node_explicitness"] = json.dumps({n: 7 for n in row["nodes"]})
    with pytest.raises(release.ReleaseFormatError, match="explicitness code 7"):
        release.sample_from_row(row, {})
    row = dict(raw_rows[1], edges=[{"source": "Nowhere", "target": row["nodes"][0]}])
    with pytest.raises(release.ReleaseFormatError, match="undeclared node 'Nowhere'"):
        release.sample_from_row(row, {})


# --- data fidelity (version 1.1.0) ----------------------------------------------------------------

#: the rows whose stored `explicitness` differs from the share of explicit nodes among the labelled ones
STORED_SHARE_ROWS = ["11", "22", "38", "52", "66", "70", "126", "131", "137", "147", "171"]


def _labelled_share(row: dict) -> float:
    codes = json.loads(row["node_explicitness"])
    labelled = [codes[n] for n in row["nodes"] if n in codes]
    return labelled.count(1) / len(labelled)


def test_explicitness_is_kept_as_released(imported, raw_rows):
    import pandas as pd

    assert all(s.explicitness == raw_rows[s.id]["explicitness"] for s in imported.samples)  # every row, exactly
    differing = [str(i) for i, row in raw_rows.items() if abs(row["explicitness"] - _labelled_share(row)) > 1e-6]
    assert differing == STORED_SHARE_ROWS
    found = {f.issue: f.ids for f in imported.findings}
    assert list(found[release.CHECKS["stored_share"][0]]) == STORED_SHARE_ROWS
    # recomputing the share (version 1.0.0) moved three samples to another quartile; keeping it moves none
    ids = sorted(raw_rows)
    released = pd.qcut([raw_rows[i]["explicitness"] for i in ids], 4, labels=False)
    recomputed = pd.qcut([_labelled_share(raw_rows[i]) for i in ids], 4, labels=False)
    kept = pd.qcut([s.explicitness for s in imported.samples], 4, labels=False)
    assert [i for i, a, b in zip(ids, released, recomputed, strict=True) if a != b] == [66, 73, 137]
    assert list(kept) == list(released)


def test_degrees_of_confounding_are_the_papers_over_all_nodes(imported, raw_rows):
    changed = []
    for sample in imported.samples:
        row = raw_rows[sample.id]
        codes = [json.loads(row["node_explicitness"]).get(name) for name in row["nodes"]]
        # DC = share of all nodes not explicit; DC_strict = share of all nodes absent (paper, Fig. 8)
        assert sample.confounding_lenient == pytest.approx(sum(c != 1 for c in codes) / len(codes))
        assert sample.confounding_strict == pytest.approx(codes.count(3) / len(codes))
        labelled = [c for c in codes if c is not None]
        if abs(sample.confounding_lenient - sum(c != 1 for c in labelled) / len(labelled)) > 1e-9:
            changed.append(sample.id)
    with_unlabelled = [s.id for s in imported.samples if s.num_unlabeled_nodes]
    assert len(changed) == 77 and changed == with_unlabelled  # version 1.0.0 counted labelled nodes only


def test_version_1_1_0_says_what_changed():
    release = next(release for release in get_builder("recast").history if release.version == "1.1.0")
    assert "explicitness" in release.changes and "77" in release.changes
