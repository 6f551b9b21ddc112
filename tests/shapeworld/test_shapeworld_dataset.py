"""The ``shapeworld`` dataset end to end: generated records, hub folder, card, load-back."""

import json
from collections import Counter

import datasets
import networkx as nx
import pytest
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main
from causal_datasets.hub.folder import build_to_folder, load_records, verify_folder
from causal_datasets.registry import get_builder
from causal_datasets.shapeworld.generate import advanced_graph, advanced_tasks, core_tasks, world_of
from causal_datasets.shapeworld.records import ShapeWorldTask


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    return build_to_folder(get_builder("shapeworld"), out, BuildContext(seed=0))


def test_core_loads_back_with_declared_features(built):
    core = datasets.load_dataset(str(built.folder), "core", split="test")
    assert core.num_rows == 84
    assert core.features == ShapeWorldTask.features()
    assert core.features["answer"] == datasets.ClassLabel(names=["yes", "no"])
    assert set(core.features["structure"].names) >= {"direct", "mediation", "confounder", "confounder_with_edge"}
    answers = Counter(core.features["answer"].int2str(v) for v in core["answer"])
    assert answers == {"yes": 37, "no": 47}
    assert verify_folder(built.folder) == {"core": {"test": 84}, "advanced": {"test": 1200}, "prompts": {"test": 5136}}


def test_records_round_trip_through_parquet(built):
    assert load_records(built.folder, "core", "test", ShapeWorldTask) == core_tasks(0)
    assert load_records(built.folder, "advanced", "test", ShapeWorldTask) == advanced_tasks(0)


def test_card_reports_the_composition(built):
    card = DatasetCard.load(built.folder / "README.md")
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert list(configs) == ["core", "advanced", "prompts"] and configs.get_default_config_name() == "core"
    body = card.text
    assert "| all |  | 84 | 4 | 16 | 37 | 47 |" in body
    assert "| all |  | 1200 | 200 | 200 |" in body


def test_rebuild_is_byte_identical(built, tmp_path):
    again = build_to_folder(get_builder("shapeworld"), tmp_path, BuildContext(seed=0)).folder
    for path in sorted(p for p in built.folder.rglob("*") if p.is_file()):
        assert (again / path.relative_to(built.folder)).read_bytes() == path.read_bytes(), path


def test_core_composition_matches_the_paper():
    tasks = core_tasks(0)
    per_structure = Counter(t.structure for t in tasks)
    assert per_structure == {"direct": 6, "mediation": 24, "confounder_with_edge": 24, "confounder": 30}
    setups = {s: {tuple(t.initially_moving) for t in tasks if t.structure == s} for s in per_structure}
    assert {s: len(v) for s, v in setups.items()} == {
        "direct": 3,
        "mediation": 4,
        "confounder_with_edge": 4,
        "confounder": 5,
    }
    assert setups["mediation"] == {(), (2,), (1, 2), (0, 1, 2)}
    for task in tasks:
        pairs = {
            (t.cause, t.effect)
            for t in tasks
            if t.graph_id == task.graph_id and t.initially_moving == task.initially_moving
        }
        assert (task.effect, task.cause) in pairs


def test_answers_agree_with_networkx_paths_and_records_are_replayable():
    for task in core_tasks(0) + advanced_tasks(0):
        graph = nx.DiGraph([(e.source, e.target) for e in task.edges])
        graph.add_nodes_from(range(task.num_variables))
        assert (task.answer == "yes") == nx.has_path(graph, task.cause, task.effect) and task.cause != task.effect
        assert task.step_limit == 2 * task.num_variables
        assert len(set(task.shapes)) == task.num_variables
        assert world_of(task).descendant_closed(task.initially_moving)
        assert task.shapes[task.cause] in task.question and task.shapes[task.effect] in task.question


def test_advanced_graphs_follow_the_generator_rules():
    tasks = advanced_tasks(0)
    assert Counter(t.num_variables for t in tasks) == {4: 300, 5: 300, 6: 300, 7: 300}
    by_graph: dict[str, list[ShapeWorldTask]] = {}
    for task in tasks:
        by_graph.setdefault(task.graph_id, []).append(task)
    assert len(by_graph) == 200
    for graph_id, group in by_graph.items():
        first = group[0]
        assert len(group) == 6 and len({(t.cause, t.effect) for t in group}) == 6
        assert all(t.cause < t.effect and t.initially_moving == list(range(t.num_variables)) for t in group)
        assert all(e.source < e.target for e in first.edges)
        regenerated_id, world, pairs = advanced_graph(first.seed, first.num_variables, int(graph_id[-2:]))
        assert regenerated_id == graph_id
        assert list(world.shapes) == first.shapes and [(e.source, e.target) for e in first.edges] == list(world.edges)
        assert pairs == [(t.cause, t.effect) for t in group]


def test_complement_rule_keeps_or_flips_the_upper_triangle():
    # every stored graph either lets node 0 reach all nodes or is the complement of one that did not
    for task in advanced_tasks(0)[::6]:
        n = task.num_variables
        edges = {(e.source, e.target) for e in task.edges}
        complement = {(i, j) for i in range(n) for j in range(i + 1, n)} - edges
        reaches_all = world_of(task).closures[0] == frozenset(range(n))
        graph = nx.DiGraph(list(complement))
        graph.add_nodes_from(range(n))
        assert reaches_all or nx.descendants(graph, 0) != set(range(1, n))


def test_seed_changes_the_advanced_set():
    assert [t.edges for t in advanced_tasks(1)] != [t.edges for t in advanced_tasks(0)]
    assert [t.model_dump() for t in core_tasks(5)] == [t.model_dump() for t in core_tasks(5)]


def test_advanced_sizes_and_graph_counts_are_build_options_recorded_in_the_manifest(tmp_path, capsys):
    hub = tmp_path / "hub"
    argv = ["build", "shapeworld", "--sizes", "4", "8", "--graphs-per-size", "3", "--hub-dir", str(hub)]
    assert main(argv) == 0
    manifest = json.loads((hub / "shapeworld" / "manifest.json").read_text())
    assert (
        manifest["options"] == {"sizes": [4, 8], "graphs_per_size": 3}
        and manifest["rows"]["advanced"]["test"] == 2 * 3 * 6
    )
    rows = {t.id: t for t in load_records(hub / "shapeworld", "advanced", "test", ShapeWorldTask)}
    default = [t for t in advanced_tasks(0) if t.num_variables == 4][: 3 * 6]
    assert [rows[t.id] for t in default] == default  # seeded per graph: a smaller set is a prefix of a larger one
    files = {p.name: p.read_bytes() for p in (hub / "shapeworld").rglob("*.parquet")}
    assert main(argv) == 0 and {p.name: p.read_bytes() for p in (hub / "shapeworld").rglob("*.parquet")} == files
    capsys.readouterr()
    assert main(["build", "shapeworld", "--sizes", "9", "--hub-dir", str(hub)]) == 2
    assert "--sizes: Value error, sizes must be distinct numbers of variables from 2 to 8" in capsys.readouterr().err
    assert main(["build", "causalab", "--graphs-per-size", "3", "--hub-dir", str(hub)]) == 2
    assert "--graphs-per-size is an option of `build shapeworld` alone" in capsys.readouterr().err
