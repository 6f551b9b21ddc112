"""Ray, on a local runtime started once for the module: the cluster recipe of docs/ARCHITECTURE.md, ``build --ray``
(the local build's bytes, also when a worker dies mid-shard), ``rescore --ray`` and ``score_batch`` on Ray (the
local results)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import ray

from causal_datasets.batch_scoring import score_batch
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.cladder_pairs import rows as cladder_rows
from causal_datasets.cladder_pairs.rows import SHARD_POSITIVES, synthetic_rows, synthetic_shard
from causal_datasets.cli import main
from causal_datasets.cluster import RayCluster
from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm.config import LLMConfig
from causal_datasets.llm.options import ModelSpec
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.runners.rescore import rescore_run
from causal_datasets.runners.results import read_summary
from causal_datasets.sharding import chunks
from tests.support.benchmarks import eval_argv
from tests.support.ray_faults import exit_on_first_run

SEED = 0
#: small builds over more than one shard: the cladder_pairs synthetic config in 3 shards, shapeworld's advanced in 3
BUILDS = {
    "cladder_pairs": ["--rows", str(2 * (2 * SHARD_POSITIVES + 20))],
    "shapeworld": ["--sizes", "4", "5", "--graphs-per-size", "60"],
}


def shard_rows(item: dict) -> list[dict]:
    """One shard of the synthetic config as plain rows (the recipe's task)."""
    return [row.to_row() for row in synthetic_shard(SEED, (item["index"], item["count"]))]


@pytest.fixture(scope="module", autouse=True)
def few_latent_queries():
    """100 synthetic_latent queries (one shard) in every cladder_pairs build of the module: the shards are drawn
    in this process, so the Ray workers see the same."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cladder_build, "LATENT_QUERIES", 100)
        yield


@pytest.fixture(scope="module")
def local_ray():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")  # no report to Ray's servers: tests stay offline
        ray.init(num_cpus=2, object_store_memory=200 * 1024**2, include_dashboard=False, log_to_driver=False)
        try:
            yield
        finally:
            ray.shutdown()


@pytest.fixture(scope="module")
def local_hub(tmp_path_factory):
    """Each of :data:`BUILDS` built without Ray, one worker."""
    hub = tmp_path_factory.mktemp("local")
    for name, options in BUILDS.items():
        assert main(["build", name, *options, "--num-proc", "1", "--hub-dir", str(hub)]) == 0
    return hub


@pytest.fixture(scope="module")
def local_builds(local_hub):
    """The files of :func:`local_hub`'s builds: ``{name: {relative path: bytes}}``."""
    return {name: _files(local_hub / name) for name in BUILDS}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_ray_data_runs_the_shard_function_and_gives_the_builds_rows(local_ray):
    positives = SHARD_POSITIVES + 30  # a whole shard and a partial one
    ray.data.DataContext.get_current().execution_options.preserve_order = True  # rows in shard order
    shards = [{"index": i, "count": stop - start} for i, (start, stop) in enumerate(chunks(positives, SHARD_POSITIVES))]
    rows = ray.data.from_items(shards, override_num_blocks=len(shards)).flat_map(shard_rows)
    table = pa.concat_tables(ray.get(rows.to_arrow_refs()))
    expected = [record.to_row() for record in synthetic_rows(SEED, positives)]
    assert table.num_rows == len(expected) == 2 * positives
    assert table.to_pylist() == expected


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_build_on_ray_writes_the_bytes_and_manifest_of_the_local_build(local_ray, local_builds, tmp_path, name):
    assert main(["build", name, *BUILDS[name], "--ray", "--hub-dir", str(tmp_path)]) == 0
    built = _files(tmp_path / name)
    assert built == local_builds[name]
    generated = "synthetic" if name == "cladder_pairs" else "advanced"
    assert pq.read_metadata(tmp_path / name / "data" / generated / "test-00000-of-00001.parquet").num_rows >= 540


def test_a_worker_killed_mid_shard_is_retried_and_the_build_has_the_same_bytes(
    local_ray, local_builds, tmp_path, monkeypatch
):
    marker = tmp_path / "killed-once"
    monkeypatch.setattr(cladder_rows, "synthetic_shard", partial(exit_on_first_run, marker, synthetic_shard))
    hub = tmp_path / "hub"
    assert main(["build", "cladder_pairs", *BUILDS["cladder_pairs"], "--ray", "--hub-dir", str(hub)]) == 0
    assert marker.exists()  # a worker did die (the pid it wrote is a Ray worker's, not this process)
    assert int(marker.read_text()) != __import__("os").getpid()
    assert _files(hub / "cladder_pairs") == local_builds["cladder_pairs"]
    assert not [p for p in hub.rglob(".*")]  # no staging left behind


def reply(request, index: int) -> StubReply:
    return StubReply(body=completion_body(f"Answer: {'yes' if index % 3 else 'no'}"))


def test_rescore_on_ray_gives_the_local_rescore(local_ray, local_hub, tmp_path, capsys):
    """A ShapeWorld run scored again by this process and by Ray tasks: the same result lines and summary."""
    run = tmp_path / "run"
    with StubServer(reply) as server:
        argv = eval_argv("shapeworld", local_hub, run, server.base_url, "--model", "stub", "--no-cache", "--limit", "6")
        assert main(argv) == 0
    assert main(["rescore", str(run), "--out", str(tmp_path / "local")]) == 0
    assert main(["rescore", str(run), "--out", str(tmp_path / "ray"), "--ray"]) == 0
    capsys.readouterr()
    local, on_ray = (tmp_path / "local" / "results.jsonl"), (tmp_path / "ray" / "results.jsonl")
    assert on_ray.read_bytes() == local.read_bytes()
    assert len(local.read_text().splitlines()) == 6
    before, after = read_summary(tmp_path / "local"), read_summary(tmp_path / "ray")
    assert after["metrics"] == before["metrics"] and after["items"] == before["items"]
    judge = ModelSpec(LLMConfig(model="stub", base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(RunConfigurationError, match="replays the recorded calls only"):
        rescore_run(run, tmp_path / "asked", models={"judge": judge}, cluster=RayCluster())


def test_score_batch_on_ray_gives_the_local_rewards(local_ray, local_hub):
    """The identification reward (the verifier: ID, then equivalence on random models) of the small synthetic_latent
    rows, answered right, wrongly and not at all, scored here and by Ray tasks of 7 rows: the same rewards (small
    graphs only: a verdict not reached within the verifier's 1 s would differ by machine load, not by engine)."""
    table = pq.read_table(local_hub / "cladder_pairs" / "data" / "synthetic_latent" / "test-00000-of-00001.parquet")
    rows = [row for row in table.to_pylist() if row["num_nodes"] <= 5]
    right = [f"Reasoning.\nEstimand: {row['estimand'] or 'not identifiable'}" for row in rows]
    completions = right + ["Estimand: P(V1)"] * len(rows) + ["no idea"] * len(rows)
    items = rows * 3
    local = score_batch("identify_reward", completions, items)
    on_ray = score_batch("identify_reward", completions, items, on_ray=True, batch_size=7)
    assert on_ray == local
    assert len(rows) >= 10 and len(local) == len(items)
    assert local[: len(rows)] == [1.0] * len(rows)  # the build's own estimands (and hedges) earn the reward
    assert local[2 * len(rows) :] == [0.0] * len(rows)  # no answer at all
