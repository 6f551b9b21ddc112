"""Deterministic sharded generation of a generated config, run by ``datasets``' own worker pool.

A generated config is cut into shards fixed by its size alone (never by the number of workers).
Each shard is a pure function of the seed and its shard key (e.g. ``(seed, shard index)`` seeds
the shard's ``random.Random`` through a string, never ``hash()``), and the rows come back in shard
order, so the output is byte-identical whatever the number of workers.

With ``num_proc > 1`` the shards run in ``Dataset.from_generator(..., num_proc=N)``: ``datasets``
hands each worker a contiguous run of the ``shards`` list and concatenates the workers' Arrow files
in order. Inside :func:`on_ray` (``build --ray``) the same ``make_rows(shard)`` runs as one Ray task per
shard instead (:func:`causal_datasets.cluster.ray_map`), the rows again in shard order: the same bytes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import datasets

from causal_datasets.cluster import RayCluster, connected, ray_map
from causal_datasets.records.base import Record, records_from_dataset


def available_cpus() -> int:
    """CPUs this process may run on (the default number of build workers)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


#: the Ray cluster the shards of this context run on (:func:`on_ray`), or None: this machine's pool
_RAY: ContextVar[RayCluster | None] = ContextVar("causal_datasets_ray", default=None)


@contextmanager
def on_ray(cluster: RayCluster) -> Iterator[None]:
    """Every :func:`generate_sharded` in the block runs its shards as Ray tasks on ``cluster`` (connected once
    for the block)."""
    with connected(cluster):
        token = _RAY.set(cluster)
        try:
            yield
        finally:
            _RAY.reset(token)


def generate_sharded(
    make_rows: Callable[[Any], Sequence[Record]],
    shards: Sequence[Any],
    model: type[Record],
    num_proc: int = 1,
    shards_per_worker: int = 1,
) -> list[Record]:
    """``make_rows(shard)`` for every shard, concatenated in shard order.

    One worker runs the shards in this process; more run them in ``datasets``' pool
    (``make_rows`` must then be picklable: a module-level function or a ``functools.partial`` of one),
    at most one worker per ``shards_per_worker`` shards: the pool takes about a second to start and
    each row goes to Arrow and back into a record, more than cheap shards take. The pool's cache goes to a
    temporary folder, so a rebuild never reuses rows of older code. Inside :func:`on_ray`, one Ray task per
    shard instead."""
    cluster = _RAY.get()
    if cluster is not None:
        return [row for rows in ray_map(make_rows, shards, cluster) for row in rows]
    num_proc = min(num_proc, len(shards) // shards_per_worker)
    if num_proc <= 1:
        return [row for shard in shards for row in make_rows(shard)]
    with tempfile.TemporaryDirectory(prefix="causal-datasets-shards-") as cache:
        dataset = datasets.Dataset.from_generator(
            _shard_rows,
            gen_kwargs={"shards": list(shards), "make_rows": make_rows},
            features=model.features(),
            num_proc=num_proc,
            cache_dir=cache,
        )
        return records_from_dataset(dataset, model)


def _shard_rows(shards: Sequence[Any], make_rows: Callable[[Any], Sequence[Record]]) -> Iterator[dict]:
    for shard in shards:
        for row in make_rows(shard):
            yield row.to_row()


def chunks(total: int, size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges of at most ``size`` covering ``range(total)``: the shards of a config of
    ``total`` items."""
    return [(start, min(start + size, total)) for start in range(0, total, size)]
