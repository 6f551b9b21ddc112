"""Large completion sets scored by the reward functions of :mod:`causal_datasets.rewards` (the verifier-backed
estimand and identification rewards among them), in batches, in this process or over a Ray cluster.

``score_batch(task, completions, items)`` gives one reward per completion, in order: ``task`` is a reward
function (or its name, e.g. ``"estimand_equivalence_reward"``), ``items`` the dataset rows the completions
answer (the columns the reward reads, e.g. rows of its ``prompts`` config). The rows are cut into batches of
``batch_size``; each batch is one call of the reward, here or (given an ``address``, or ``on_ray``) one Ray task
(:func:`causal_datasets.cluster.ray_map`), so the rewards are the same either way. The verifier's rewards give
0.0 to a pair it cannot decide within its time limit (1 s): on a loaded machine that one verdict can differ
between any two runs, local or not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from causal_datasets.cluster import RayCluster, ray_map
from causal_datasets.errors import UnknownName
from causal_datasets.rewards import PROMPTS_CONFIGS
from causal_datasets.sharding import chunks

#: completions per reward call (per Ray task)
BATCH_SIZE = 1000

Reward = Callable[..., list[float]]


def score_batch(
    task: Reward | str,
    completions: Sequence[Any],
    items: Sequence[Mapping[str, Any]],
    address: str | None = None,
    *,
    on_ray: bool = False,
    batch_size: int = BATCH_SIZE,
) -> list[float]:
    """The reward ``task`` gives each completion for its item (see the module); on Ray at ``address``
    (``auto``, ``HOST:PORT``, ``ray://HOST:10001``) or, with ``on_ray`` and no address, on a local Ray runtime."""
    reward = reward_named(task) if isinstance(task, str) else task
    if len(completions) != len(items):
        raise ValueError(f"{len(completions)} completions for {len(items)} items: give one item per completion")
    batches = [(completions[start:stop], items[start:stop]) for start, stop in chunks(len(items), batch_size)]
    score = partial(_score, reward)
    if address is None and not on_ray:
        scored = [score(batch) for batch in batches]
    else:
        scored = ray_map(score, batches, RayCluster(address))
    return [reward for rewards in scored for reward in rewards]


def reward_named(name: str) -> Reward:
    """The reward function of that name (:data:`~causal_datasets.rewards.PROMPTS_CONFIGS`'s)."""
    known = {function.__name__: function for function in PROMPTS_CONFIGS}
    if name not in known:
        raise UnknownName(f"no reward function {name!r}; known: {', '.join(sorted(known))}")
    return known[name]


def _score(reward: Reward, batch: tuple[Sequence[Any], Sequence[Mapping[str, Any]]]) -> list[float]:
    """One reward call over a batch: the items' columns as TRL passes them (a list per column)."""
    completions, items = batch
    names = sorted({name for item in items for name in item})
    columns = {name: [item.get(name) for item in items] for name in names}
    return reward(columns.pop("prompt", [None] * len(items)), list(completions), **columns)
