"""Sharded generation: the same bytes for any number of workers, sizes as build options, multi-file splits."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from causal_datasets.builder import BuildContext
from causal_datasets.causalab import generator
from causal_datasets.causalab.suites import SUITE_SPECS
from causal_datasets.cladder_pairs import synthetic_latent
from causal_datasets.cladder_pairs.quality import distinct_synthetic
from causal_datasets.cladder_pairs.records import SyntheticPair
from causal_datasets.cladder_pairs.rows import SHARD_POSITIVES, synthetic_config, synthetic_rows
from causal_datasets.cli import main
from causal_datasets.hub.folder import build_to_folder, verify_folder
from causal_datasets.registry import get_builder
from causal_datasets.shapeworld import generate
from causal_datasets.shapeworld.generate import SHARD_GRAPHS
from causal_datasets.sharding import Sharded, generate_together

#: small generated configs over more than one shard (CausaLab's 19 configs: see the episode test below)
SMALL = {
    "cladder_pairs": ["--rows", str(2 * SHARD_POSITIVES + 40)],
    "shapeworld": ["--sizes", "4", "5", "--graphs-per-size", str(SHARD_GRAPHS + 2)],
}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_one_and_two_workers_write_the_same_bytes(tmp_path, monkeypatch, name):
    for module in (generator, generate):  # small sets: a worker for every shard, so the pool does run
        monkeypatch.setattr(module, "SHARDS_PER_WORKER", 1)
    folders = []
    for workers in (1, 2):
        hub = tmp_path / f"hub{workers}"
        assert main(["build", name, *SMALL[name], "--num-proc", str(workers), "--hub-dir", str(hub)]) == 0
        folders.append(_files(hub / name))
    assert folders[0] == folders[1]
    manifest = json.loads(folders[0]["manifest.json"])
    assert "num_proc" not in json.dumps(manifest)  # the workers are not part of the build's identity


def test_causalab_episodes_are_the_same_for_any_number_of_workers(monkeypatch):
    monkeypatch.setattr(generator, "SHARDS_PER_WORKER", 1)
    specs = [SUITE_SPECS["3nodes"], SUITE_SPECS["4nodes_golden"]]
    count = generator.SHARD_EPISODES + 3  # two shards per suite
    alone, pooled = generator.generate_suites(specs, 2, count, 1), generator.generate_suites(specs, 2, count, 2)
    assert alone == pooled == {spec.name: generator.generate_suite(spec, 2, count) for spec in specs}


def test_latent_queries_are_the_same_for_any_number_of_workers(monkeypatch):
    monkeypatch.setattr(synthetic_latent, "SHARD_QUERIES", 20)  # three shards, the last one short
    monkeypatch.setattr(synthetic_latent, "SHARDS_PER_WORKER", 1)  # so that two workers do run
    alone, pooled = synthetic_latent.synthetic_latent_rows(3, 50, 1), synthetic_latent.synthetic_latent_rows(3, 50, 2)
    assert alone == pooled
    assert [row.id for row in pooled] == [f"synthetic_latent-{i}" for i in range(50)]
    drawn = synthetic_latent.draw_queries(3, 50)
    assert [(row.nodes, row.query) for row in pooled] == [(nodes, query) for nodes, _, _, query in drawn]


def test_two_configs_in_one_pool_give_each_its_own_rows_in_order(monkeypatch):
    monkeypatch.setattr(synthetic_latent, "SHARD_QUERIES", 20)  # three shards, beside the synthetic config's two
    configs = [synthetic_config(5, SHARD_POSITIVES + 10), synthetic_latent.synthetic_latent_config(5, 50)]
    pooled = generate_together(configs, 2)
    assert pooled == [synthetic_rows(5, SHARD_POSITIVES + 10), synthetic_latent.synthetic_latent_rows(5, 50)]
    assert [len(rows) for rows in pooled] == [2 * (SHARD_POSITIVES + 10), 50]


def test_a_shard_of_another_row_type_is_refused():
    shards = [(0, synthetic_latent.draw_queries(0, 2))]
    with pytest.raises(TypeError, match="a shard gave a SyntheticLatentRow row, expected SyntheticPair"):
        generate_together([Sharded(synthetic_latent.identified_shard, shards, SyntheticPair)])


def test_synthetic_ids_are_unique_and_numbered_by_shard():
    rows = synthetic_rows(seed=4, count=SHARD_POSITIVES + 10)
    assert len(rows) == 2 * (SHARD_POSITIVES + 10) == len({r.id for r in rows})
    second = rows[2 * SHARD_POSITIVES :]  # the second shard: its 10 proved pairs, then their 10 mistakes
    assert [r.id for r in second] == [f"synthetic-{2 * SHARD_POSITIVES + i:05d}" for i in range(20)]
    assert [r.equivalent for r in second] == [True] * 10 + [False] * 10
    assert synthetic_rows(seed=4, count=10)[:10] != second[:10]  # each shard its own draws


def test_repeats_are_removed_across_shards():
    rows = synthetic_rows(seed=0, count=3 * SHARD_POSITIVES)
    kept, finding = distinct_synthetic(rows)
    key = lambda r: (tuple(r.nodes), tuple(sorted((e.source, e.target) for e in r.edges)), r.expr_a, r.expr_b)  # noqa: E731
    assert len({key(r) for r in kept}) == len(kept) == len(rows) - len(finding.ids)
    shard_of = {r.id: int(r.id.split("-")[1]) // (2 * SHARD_POSITIVES) for r in rows}
    first_shard = {}
    for r in rows:
        first_shard.setdefault(key(r), shard_of[r.id])
    across = [i for i in finding.ids if first_shard[key(next(r for r in rows if r.id == i))] < shard_of[i]]
    assert across, "no repeat of an earlier shard's pair was found"


def test_a_large_split_is_several_parquet_files_read_as_one_split(tmp_path):
    builder = get_builder("shapeworld")
    options = builder.options(sizes=[4], graphs_per_size=5)  # 30 advanced tasks
    written = build_to_folder(builder, tmp_path, BuildContext(seed=0, options=options), rows_per_file=8)
    files = sorted(p.name for p in (written.folder / "data" / "advanced").iterdir())
    assert files == [f"test-{i:05d}-of-00004.parquet" for i in range(4)]
    assert verify_folder(written.folder) == {
        "core": {"test": 84},
        "advanced": {"test": 30},
        "prompts": {"test": 4 * 114},
    }
    loaded = datasets.load_dataset(str(written.folder), "advanced", split="test")
    assert loaded["id"] == [f"advanced-n4-g{g:02d}-p{p}" for g in range(5) for p in range(6)]
    configs = DatasetCard.load(written.folder / "README.md").data["configs"]
    advanced = next(c for c in configs if c["config_name"] == "advanced")
    assert advanced["data_files"] == [{"split": "test", "path": [f"data/advanced/{f}" for f in files]}]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["cladder_pairs", "--rows", "7"], "--rows: Value error, must be even"),
        (["cladder_pairs", "--rows", "0"], "--rows: Input should be greater than or equal to 2"),
        (["cladder_pairs", "--rows", "many"], "--rows: Input should be a valid integer"),
        (["causalab", "--episodes-per-suite", "0"], "--episodes-per-suite: Input should be greater than or equal to 1"),
        (["cladder_pairs", "--num-proc", "0"], "argument --num-proc: 0 is below 1"),
        (["--all", "--rows", "10"], "--rows is an option of `build cladder_pairs` alone"),
    ],
)
def test_bad_sizes_and_workers_are_one_line_errors(tmp_path, capsys, argv, message):
    assert _exit_code(["build", *argv, "--hub-dir", str(tmp_path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert message in lines[-1] and len([line for line in lines if not line.startswith(("usage:", " "))]) == 1
    assert not (tmp_path / argv[0]).exists()


def _exit_code(argv: list[str]) -> int:
    """``main``'s return code, or argparse's exit code for a value it rejects itself."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code
