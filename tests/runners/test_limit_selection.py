"""``--limit N`` runs N items spread over the benchmark's clusters (seeded, the same everywhere), so a small run
has intervals; where none can be computed the table says why; ``--resume`` / ``--extend`` keep the items a run
already has."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm.stub_server import StubServer
from causal_datasets.registry import get_builder
from causal_datasets.runners.results import read_results
from causal_datasets.runners.selection import spread_limit
from tests.support.builds import small_cladder_build
from tests.support.stub_flags import stub_flags

clusterings = st.lists(st.integers(0, 6), min_size=1, max_size=40)  # item i belongs to cluster clusters[i]


def select(clusters, limit, keep=()):
    items = list(range(len(clusters)))
    return spread_limit(items, limit, lambda i: f"c{clusters[i]}", lambda i: f"item{i}", keep=keep)


@given(clusterings, st.integers(1, 45))
def test_a_limit_takes_every_cluster_before_a_second_item_of_any(clusters, limit):
    chosen = select(clusters, limit)
    assert len(chosen) == min(limit, len(clusters)) and chosen == sorted(chosen)  # in the dataset's order
    taken, sizes = Counter(clusters[i] for i in chosen), Counter(clusters)
    rounds = max(taken.values())
    assert all(taken[c] >= min(sizes[c], rounds - 1) for c in sizes)  # no cluster left behind by two rounds


@given(clusterings, st.integers(1, 44))
def test_a_higher_limit_holds_the_lower_ones_items(clusters, limit):
    assert set(select(clusters, limit)) <= set(select(clusters, limit + 1))
    assert select(clusters, limit) == select(list(clusters), limit)  # deterministic


@given(clusterings, st.integers(1, 45), st.sets(st.integers(0, 39)))
def test_a_continued_run_keeps_the_items_it_has(clusters, limit, had):
    keep = {f"item{i}" for i in had if i < len(clusters)}
    chosen = select(clusters, limit, keep)
    assert len(chosen) == min(limit, len(clusters))
    if len(keep) <= limit:
        assert keep <= {f"item{i}" for i in chosen}


def test_the_first_items_of_one_story_are_not_what_a_limit_takes():
    clusters = [0] * 10 + [1] * 10 + [2] * 10  # as CLadder's first questions: ten of one story
    assert len({clusters[i] for i in select(clusters, 10)}) == 3
    firsts = [i % 4 for i in select([c for c in range(30) for _ in range(4)], 30)]  # 30 clusters of 4: one each
    assert len(set(firsts)) > 1  # not always a cluster's first item (CLadder's first query type of each model)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = small_cladder_build(tmp_path_factory.mktemp("hub"))
    build_to_folder(get_builder("shapeworld"), root, BuildContext(seed=0))
    return root


def interval_cells(out: str) -> list[str]:
    rows = [line.split("|")[1:-1] for line in out.splitlines() if line.startswith("| ") and "score" not in line]
    return [cells[2].strip() for cells in rows]


def test_ten_shapeworld_core_items_by_the_oracle_print_intervals(hub, tmp_path, capsys):
    argv = ["eval", "shapeworld", "--config", "core", "--limit", "10", "--agent", "oracle"]
    assert main([*argv, "--hub-dir", str(hub), "--out", str(tmp_path / "run")]) == 0
    cells = interval_cells(capsys.readouterr().out)
    assert cells and all(cell.startswith("[") for cell in cells), cells
    assert len({line["cluster"] for line in read_results(tmp_path / "run")}) == 10  # ten initial setups


def test_ten_cladder_items_span_stories_and_print_intervals(hub, tmp_path, capsys):
    with StubServer() as server:  # echoes: every answer unparsable, scored 0, yet an interval over the stories
        argv = ["eval", "cladder_pairs", "--limit", "10", *stub_flags(server.base_url, cache=True)]
        assert main([*argv, "--no-cache", "--hub-dir", str(hub), "--out", str(tmp_path / "run")]) == 0
    cells = interval_cells(capsys.readouterr().out)
    assert cells and all(cell.startswith("[") for cell in cells), cells
    assert len({line["cluster"] for line in read_results(tmp_path / "run")}) == 10


def test_without_an_interval_the_table_says_why(hub, tmp_path, capsys):
    argv = ["eval", "shapeworld", "--config", "core", "--limit", "1", "--agent", "oracle", "--hub-dir", str(hub)]
    assert main([*argv, "--out", str(tmp_path / "run")]) == 0
    (cell,) = interval_cells(capsys.readouterr().out)
    assert cell.startswith("none: fewer than two clusters (1 ")  # in the interval's place, why there is none


def test_extend_raises_a_spread_limit_and_keeps_the_items_already_run(hub, tmp_path, capsys):
    base = ["eval", "shapeworld", "--config", "core", "--agent", "oracle", "--hub-dir", str(hub)]
    run = ["--out", str(tmp_path / "run")]
    assert main([*base, *run, "--limit", "4"]) == 0
    first = {line["id"]: line for line in read_results(tmp_path / "run")}
    assert main([*base, *run, "--resume"]) == 0
    assert {line["id"]: line for line in read_results(tmp_path / "run")} == first
    assert main([*base, *run, "--limit", "9", "--extend"]) == 0
    lines = {line["id"]: line for line in read_results(tmp_path / "run")}
    assert len(lines) == 9 and all(lines[item] == line for item, line in first.items())
    assert main([*base, "--limit", "9", "--out", str(tmp_path / "fresh")]) == 0  # the same nine as a fresh run
    assert {line["id"] for line in read_results(tmp_path / "fresh")} == set(lines)
    capsys.readouterr()
