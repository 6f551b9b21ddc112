"""Which items ``--limit N`` runs: N items spread over the benchmark's clusters, so a small run has an interval.

The first N items of a dataset are often one cluster (CLadder's first ten questions are one story), and
with one cluster no interval can be computed. :func:`spread_limit` takes one item of each cluster, then a
second of each, and so on. Clusters and the items within a cluster come in a seeded order (the sha256 of
``LIMIT_SEED`` and the name, never Python's ``hash()``), so the first item of every cluster is not always
the same kind (CLadder's first query type of each model, CoBe's first model of each scenario). The
selection is the same on every machine, N+1 items hold the N, and the selected items run in the dataset's
order. A run continued with ``--resume`` / ``--extend`` keeps the items it already has and fills up from there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from itertools import zip_longest
from typing import Any, TypeVar

from causal_datasets.runners.estimates import item_cluster
from causal_datasets.runners.task import Item, Task

#: the seed of the cluster order (part of what a limit selects: changing it changes every limited run)
LIMIT_SEED = "causal-datasets limit 0"

T = TypeVar("T")


def spread_limit(
    items: Sequence[T],
    limit: int,
    cluster: Callable[[T], str],
    item_id: Callable[[T], str],
    keep: Collection[str] = (),
) -> list[T]:
    """At most ``limit`` of ``items`` (in their order): those whose id is in ``keep`` first, then one per
    cluster round by round, clusters and the items of each in the seeded order."""
    members: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        members.setdefault(str(cluster(item)), []).append(index)
    for indices in members.values():
        indices.sort(key=lambda index: _rank(item_id(items[index])))
    order = sorted(members, key=_rank)
    rounds = (
        index for layer in zip_longest(*(members[name] for name in order)) for index in layer if index is not None
    )
    chosen = [index for index, item in enumerate(items) if item_id(item) in keep][:limit]
    taken = set(chosen)
    for index in rounds:
        if len(chosen) >= limit:
            break
        if index not in taken:
            chosen.append(index)
            taken.add(index)
    return [items[index] for index in sorted(chosen)]


def _rank(name: str) -> str:
    return hashlib.sha256(f"{LIMIT_SEED}\0{name}".encode()).hexdigest()


def limited_items(
    task: Task[Any, Any, Any], items: Sequence[Item], limit: int, keep: Collection[str] = ()
) -> list[Item]:
    """``spread_limit`` over ``task``'s clusters: the items a run with ``--limit limit`` works on (``keep``: the
    ids of the items it already has, when it is continued or scored again)."""
    return spread_limit(items, limit, lambda item: item_cluster(task, item), lambda item: item.id, keep=keep)
