"""Importer of the CausaLab release: all 19 suites × 50 configurations, lossless round trip."""

from __future__ import annotations

import json

import pytest

from causal_datasets.causalab.lab import Lab
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.upstream import SUITES, UpstreamFormatError, export_config, import_config, load_suite
from causal_datasets.causalab.upstream_run import DATA_FILE, read_upstream_run
from tests.causalab.data import RELEASE
from tests.support.data import SHARED_DATA_DIR


def test_the_release_has_19_suites_of_50():
    assert sorted(p.stem for p in RELEASE.glob("*.jsonl")) == sorted(SUITES)
    assert sum(len(load_suite(RELEASE, s)) for s in SUITES) == 950


@pytest.mark.parametrize("suite", SUITES)
def test_round_trip_through_the_hub_row_gives_back_the_released_configuration(suite):
    features = CausaLabEpisode.features()
    lines = (RELEASE / f"{suite}.jsonl").read_text(encoding="utf-8").splitlines()
    episodes = load_suite(RELEASE, suite)
    assert len({e.id for e in episodes}) == 50
    for line, episode in zip(lines, episodes, strict=True):
        row = features.encode_example(episode.to_row())
        back = CausaLabEpisode.from_row(features.decode_example(row), features)
        assert export_config(back) == json.loads(line)


def test_import_keeps_what_the_release_states():
    quad = load_suite(RELEASE, "4nodes_quad_hard")[0]
    assert quad.family == "quadratic"
    assert [(b.name, b.value) for b in quad.reactor.bases] == [
        ("quantumSize", 51.0),
        ("density", 35.0),
        ("moisture", 53.0),
    ]
    freq = next(eq for eq in quad.equations if eq.node == "resonanceFreq")
    assert (freq.terms[0].parent, freq.terms[0].quadratic, freq.terms[0].linear) == ("density", 0.016, -1.73385)
    hidden = load_suite(RELEASE, "4nodes_hidden_n2")[0]
    assert hidden.disturbance.affected_nodes == ["moisture", "density"] and hidden.disturbance.value_space == [
        -5.0,
        0.0,
        5.0,
    ]
    golden = load_suite(RELEASE, "4nodes_golden")[0]
    # the authors' prompt shows the two observations of every episode, then the golden trace
    assert len(golden.prior_records) == 2 + 8 and golden.prior_records[4].intervention.target_value == 77.0
    assert [r.id for r in golden.prior_records[:3]] == ["0/prior", "1/prior", "0/bootstrap"]
    parent = load_suite(RELEASE, "4nodes_freqparent")[0]
    assert parent.frequency_can_be_parent and ("resonanceFreq", "temperatureC") in {
        (e.source, e.target) for e in parent.edges
    }


def test_crystals_are_seeded_not_hashed():
    first, again = load_suite(RELEASE, "5nodes"), load_suite(RELEASE, "5nodes")
    assert [e.manipulator for e in first] == [e.manipulator for e in again]
    other = load_suite(RELEASE, "5nodes", seed=1)
    assert [e.manipulator for e in first] != [e.manipulator for e in other]
    assert all(0 <= b.value <= 100 and b.value == int(b.value) for e in first for b in e.reactor.bases)


def test_a_malformed_configuration_names_the_file_and_line(tmp_path):
    config = json.loads((RELEASE / "3nodes.jsonl").read_text().splitlines()[0])
    del config["params"]["base_freq"]
    (tmp_path / "3nodes.jsonl").write_text(json.dumps(config) + "\n")
    with pytest.raises(UpstreamFormatError, match="3nodes.jsonl:1"):
        load_suite(tmp_path, "3nodes")
    with pytest.raises(KeyError):
        import_config(config, "3nodes")


def test_the_sample_runs_own_scorecard_agrees_with_the_import():
    folder = SHARED_DATA_DIR / "causalab" / "sample_run_4nodes_0_gpt-5-mini"
    statements = json.loads((folder / DATA_FILE).read_text())["metadata"]["final_scorecard"][0]["criticalHypotheses"]
    episode = read_upstream_run(folder).episode()
    edges = {tuple(s.removeprefix("Causal edge: ").split(" → ")) for s in statements if s.startswith("Causal edge: ")}
    assert edges == {(e.source, e.target) for e in episode.edges}
    assert f"Controllable variables: {', '.join(episode.controllable)}" in statements

    def crystal(prefix: str) -> dict[str, float]:
        line = next(s for s in statements if s.startswith(prefix)).split(": ", 1)[1]
        values = dict(item.split("=") for item in line.split(", "))
        return {k: float(v) for k, v in values.items() if k in episode.nodes}

    assert Lab(episode).manipulator_values() == crystal("quantum crystal (for property manipulation)")
    reactor = crystal("quantum crystal (for reactor activation)")
    assert reactor.pop("resonanceFreq") == episode.reactor_frequency
    assert reactor == {p.name: p.value for p in episode.reactor_properties}
