"""Seeded generator: statistics of every family against the release, determinism, the built dataset."""

from __future__ import annotations

import collections
import itertools

import networkx as nx
import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.causalab.generator import generate_suite
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.suites import SUITE_SPECS
from causal_datasets.causalab.upstream import load_suite
from causal_datasets.hub.folder import build_to_folder, load_records
from causal_datasets.registry import get_builder
from tests.causalab.data import RELEASE


@pytest.fixture(scope="module")
def generated():
    return {name: generate_suite(spec) for name, spec in SUITE_SPECS.items()}


def edge_range(n: int) -> tuple[int, int]:
    return n - 1, min(n * (n - 1) // 2, 2 * n)


@pytest.mark.parametrize(
    "suite", ["3nodes", "4nodes", "5nodes", "6nodes", "7nodes", "4nodes_freqparent", "6nodes_freqparent"]
)
def test_edge_counts_cover_the_range_the_release_uses(generated, suite):
    n = SUITE_SPECS[suite].nodes
    released = collections.Counter(len(e.edges) for e in load_suite(RELEASE, suite))
    ours = collections.Counter(len(e.edges) for e in generated[suite])
    assert (min(released), max(released)) == edge_range(n)  # the release's range, read from the data
    assert set(ours) <= set(range(edge_range(n)[0], edge_range(n)[1] + 1))
    assert len(ours) >= len(released) - 2  # nearly every count of the range occurs in 50 draws


def test_every_family_keeps_the_released_invariants(generated):
    for name, episodes in generated.items():
        spec = SUITE_SPECS[name]
        assert len(episodes) == 50 and len({e.id for e in episodes}) == 50
        for e in episodes:
            graph = nx.DiGraph([(x.source, x.target) for x in e.edges])
            assert nx.is_directed_acyclic_graph(graph)
            assert len(e.nodes) == spec.nodes and e.budget == 4 * (spec.nodes - 1)
            assert graph.in_degree("resonanceFreq") >= 1
            assert e.frequency_can_be_parent or graph.out_degree("resonanceFreq") == 0
            freq = next(eq for eq in e.equations if eq.node == "resonanceFreq")
            terms = [t for eq in e.equations for t in eq.terms]
            if spec.family == "linear":
                assert 15 <= freq.base <= 25 and freq.base == int(freq.base)
                assert {t.linear for t in terms} <= {1.0, 2.0, 3.0} and all(t.quadratic == 0 for t in terms)
            else:
                assert {t.quadratic for t in terms} <= {0.008, 0.012, 0.016}
                assert all(-2 * 0.016 * 65 <= t.linear <= -2 * 0.008 * 35 for t in terms)  # w = -2u·vertex
                assert all(35 <= -t.linear / (2 * t.quadratic) <= 65.0001 for t in terms)
            assert all(0 <= b.value <= 100 for c in (e.manipulator, e.reactor) for b in c.bases)
            if spec.hidden:
                assert len(e.disturbance.affected_nodes) == spec.hidden.count
                assert ("resonanceFreq" in e.disturbance.affected_nodes) == spec.hidden.includes_target
                assert e.disturbance.value_space == [-spec.hidden.magnitude, 0.0, spec.hidden.magnitude]
            else:
                assert e.disturbance is None
            interventions = [r for r in e.prior_records if r.intervention]
            # a designed Golden chain visits each orienting target twice (tests/causalab/test_causalab_golden.py)
            assert len(interventions) <= (2 * (spec.nodes - 1) if spec.golden else 0) and len(e.prior_records) >= 2


def test_quadratic_weights_span_the_released_range(generated):
    ours = [t.linear for e in generated["4nodes_quad_hard"] for eq in e.equations for t in eq.terms]
    released = [t.linear for e in load_suite(RELEASE, "4nodes_quad_hard") for eq in e.equations for t in eq.terms]
    assert min(released) < -2.0 and max(released) > -0.6  # the range REFERENCE.md states
    assert min(ours) < -1.8 and max(ours) > -0.7


def test_matched_suites_share_their_graphs(generated):
    for a, b in itertools.combinations(["4nodes", "4nodes_quad_hard", "4nodes_hidden_n1", "4nodes_golden"], 2):
        assert [e.edges for e in generated[a]] == [e.edges for e in generated[b]]


def test_generation_is_seeded(generated):
    assert generate_suite(SUITE_SPECS["5nodes"]) == generated["5nodes"]
    assert generate_suite(SUITE_SPECS["5nodes"], seed=1) != generated["5nodes"]


def test_dataset_builds_byte_identically_without_source_and_loads_back(tmp_path):
    builder = get_builder("causalab")
    first = build_to_folder(builder, tmp_path / "a", BuildContext(seed=0))
    build_to_folder(builder, tmp_path / "b", BuildContext(seed=0))
    folder_a, folder_b = tmp_path / "a" / "causalab", tmp_path / "b" / "causalab"
    files = sorted(p.relative_to(folder_a) for p in folder_a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(folder_b) for p in folder_b.rglob("*") if p.is_file())
    assert all((folder_a / f).read_bytes() == (folder_b / f).read_bytes() for f in files)
    assert not any(str(f).startswith("data/upstream_") for f in files)
    assert any("upstream_<suite> configs skipped" in note for note in first.notes)
    episodes = load_records(folder_a, "6nodes_golden", "test", CausaLabEpisode)
    assert episodes == generate_suite(SUITE_SPECS["6nodes_golden"])
    card = (folder_a / "README.md").read_text()
    assert "| 7nodes | 50 | 7 |" in card and "Not included in this build" in card
