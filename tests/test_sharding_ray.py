"""The cluster recipe of docs/ARCHITECTURE.md ("Sharded generation"), run on a local Ray instance:
the same shard function gives the same rows, in order, as the build's own workers."""

from __future__ import annotations

import pyarrow as pa
import pytest
import ray

from causal_datasets.cladder_pairs.rows import SHARD_POSITIVES, synthetic_rows, synthetic_shard
from causal_datasets.sharding import chunks

SEED = 0


def shard_rows(item: dict) -> list[dict]:
    """One shard of the synthetic config as plain rows (the recipe's task)."""
    return [row.to_row() for row in synthetic_shard(SEED, (item["index"], item["count"]))]


@pytest.fixture
def local_ray(monkeypatch):
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")  # no report to Ray's servers: tests stay offline
    ray.init(num_cpus=2, object_store_memory=200 * 1024**2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_data_runs_the_shard_function_and_gives_the_builds_rows(local_ray):
    positives = 2 * SHARD_POSITIVES + 50  # two whole shards and a partial one
    ray.data.DataContext.get_current().execution_options.preserve_order = True  # rows in shard order
    shards = [{"index": i, "count": stop - start} for i, (start, stop) in enumerate(chunks(positives, SHARD_POSITIVES))]
    rows = ray.data.from_items(shards, override_num_blocks=len(shards)).flat_map(shard_rows)
    table = pa.concat_tables(ray.get(rows.to_arrow_refs()))
    expected = [record.to_row() for record in synthetic_rows(SEED, positives)]
    assert table.num_rows == len(expected) == 2 * positives
    assert table.to_pylist() == expected
