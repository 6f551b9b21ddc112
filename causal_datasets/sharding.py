"""Deterministic sharded generation of generated configs, run by a local process pool or on Ray.

A generated config is cut into shards fixed by its size alone (never by the number of workers).
Each shard is a pure function of the seed and its shard key (e.g. ``(seed, shard index)`` seeds
the shard's ``random.Random`` through a string, never ``hash()``), and the rows come back in shard
order, so the output is byte-identical whatever the number of workers.

With ``num_proc > 1`` the shards run in a pool of forked worker processes, one task per shard, each
shard's records pickled back; several configs' shards (:func:`generate_together`) share one pool, so a
cheap config's shards fill the workers beside a costly one's. Inside :func:`on_ray` (``build --ray``) the
same ``make_rows(shard)`` runs as one Ray task per shard instead (:func:`causal_datasets.cluster.ray_map`),
the rows again in shard order: the same bytes.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from causal_datasets.cluster import RayCluster, connected, ray_map
from causal_datasets.records.base import Record


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


@dataclass(frozen=True)
class Sharded:
    """One generated config: ``make_rows(shard)`` for every shard, records of ``model``; worth a pool worker
    per ``shards_per_worker`` shards (fewer run in the calling process). ``make_rows`` must be picklable for a
    pool: a module-level function or a ``functools.partial`` of one."""

    make_rows: Callable[[Any], Sequence[Record]]
    shards: Sequence[Any]
    model: type[Record]
    shards_per_worker: int = 1


def generate_sharded(
    make_rows: Callable[[Any], Sequence[Record]],
    shards: Sequence[Any],
    model: type[Record],
    num_proc: int = 1,
    shards_per_worker: int = 1,
) -> list[Record]:
    """``make_rows(shard)`` for every shard, concatenated in shard order, on up to ``num_proc`` workers
    (see :func:`generate_together`)."""
    return generate_together([Sharded(make_rows, shards, model, shards_per_worker)], num_proc)[0]


def generate_together(configs: Sequence[Sharded], num_proc: int = 1) -> list[list[Record]]:
    """Every config's rows (its shards' rows in shard order), their shards run together: on Ray inside
    :func:`on_ray`, else in this process or in one pool of at most ``num_proc`` forked workers, and at most one
    worker per ``shards_per_worker`` shards of each config (a shard's rows pickled back cost far less than
    the shard). Tasks go out in the order given, so list the costly config first."""
    tasks = [(config.make_rows, shard) for config in configs for shard in config.shards]
    cluster = _RAY.get()
    workers = min(num_proc, sum(len(config.shards) // config.shards_per_worker for config in configs))
    if cluster is not None:
        results = ray_map(_shard_rows, tasks, cluster)
    elif workers <= 1:
        results = [_shard_rows(task) for task in tasks]
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_shard_rows, tasks))
    rows: list[list[Record]] = []
    for config in configs:
        done, results = results[: len(config.shards)], results[len(config.shards) :]
        rows.append([_checked(row, config.model) for shard_rows in done for row in shard_rows])
    return rows


def _shard_rows(task: tuple[Callable[[Any], Sequence[Record]], Any]) -> Sequence[Record]:
    make_rows, shard = task
    return make_rows(shard)


def _checked(row: Record, model: type[Record]) -> Record:
    if not isinstance(row, model):
        raise TypeError(f"a shard gave a {type(row).__name__} row, expected {model.__name__}")
    return row


def chunks(total: int, size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges of at most ``size`` covering ``range(total)``: the shards of a config of
    ``total`` items."""
    return [(start, min(start + size, total)) for start in range(0, total, size)]
