"""verl: every single-turn task as rows of verl's Parquet layout, and the ``compute_score`` its reward loader calls.

A row (:func:`prompts_rows` for a built ``prompts`` config a reward in :data:`~causal_datasets.rewards.PROMPTS_CONFIGS`
scores, :func:`gym_rows` for a :mod:`causal_datasets.gym` generator) is ``data_source``
(``causal_datasets/<dataset>/<config>`` or ``causal_datasets/gym/<generator>``), ``prompt`` (chat messages),
``ability``, ``reward_model`` ``{"style": "rule", "ground_truth": ...}`` (the row's reference answer) and
``extra_info`` ``{"split", "index", "id", "columns"}``, where ``columns`` is the JSON of what the reward reads.
verl loads :func:`compute_score` from this file (``custom_reward_function.path=<this file>``,
``custom_reward_function.name=compute_score``); it dispatches on ``data_source`` to the package's rewards, so
the ground truth scores 1.0 and an empty completion 0.0. ``causal-datasets export-rl`` writes the rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from causal_datasets import gym
from causal_datasets.errors import CausalDatasetsError
from causal_datasets.gym.streaming import stream
from causal_datasets.records.base import Record
from causal_datasets.rewards import PROMPTS_CONFIGS

PREFIX = "causal_datasets"
ABILITY = "causal_reasoning"
#: (dataset, config) → the reward that scores it
REWARDS = {source: reward for reward, source in PROMPTS_CONFIGS.items()}


class UnknownDataSource(CausalDatasetsError, ValueError):
    """A ``data_source`` no reward of the package scores."""


def _row(data_source: str, prompt: Any, ground_truth: str, split: str, index: int, row_id: str, columns: Any) -> dict:
    return {
        "data_source": data_source,
        "prompt": prompt,
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": ground_truth},
        "extra_info": {"split": split, "index": index, "id": row_id, "columns": json.dumps(columns, sort_keys=True)},
    }


def prompts_rows(dataset: str, config: str, records: Sequence[Record], split: str = "test") -> list[dict[str, Any]]:
    """The rows of a built ``prompts`` config (its reference the ground truth, its other columns the reward's)."""
    if (dataset, config) not in REWARDS:
        raise UnknownDataSource(f"no reward scores {dataset}/{config}; the scored configs: {_scored()}")
    rows = []
    for index, record in enumerate(records):
        fields = record.model_dump(mode="json")
        prompt, reference, row_id = fields.pop("prompt"), fields.pop("reference"), fields.pop("id")
        rows.append(_row(f"{PREFIX}/{dataset}/{config}", prompt, reference, split, index, row_id, fields))
    return rows


def gym_rows(name: str, *, seed: int, size: int, **difficulty: Any) -> list[dict[str, Any]]:
    """``size`` entries of gym generator ``name`` (its answer the ground truth, its metadata the reward's)."""
    rows = []
    for index, entry in enumerate(stream(name, seed=seed, limit=size, **difficulty)):
        metadata = dict(entry["metadata"])
        prompt = metadata.pop("prompt")
        rows.append(
            _row(f"{PREFIX}/gym/{name}", prompt, entry["answer"], "train", index, f"{name}-{seed}-{index}", metadata)
        )
    return rows


def compute_score(
    data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> float:
    """The reward in [0, 1] of ``solution_str`` for a row written by :func:`prompts_rows` or :func:`gym_rows`
    (verl's custom reward function signature; ``kwargs`` verl may add are ignored)."""
    columns = json.loads((extra_info or {}).get("columns") or "{}")
    parts = data_source.split("/")
    if len(parts) == 3 and parts[0] == PREFIX and parts[1] == "gym" and parts[2] in gym.GENERATORS:
        return gym.score_answer(solution_str, {"question": "", "answer": ground_truth, "metadata": columns})
    if len(parts) == 3 and parts[0] == PREFIX and (parts[1], parts[2]) in REWARDS:
        reward = REWARDS[(parts[1], parts[2])]
        values = columns | {"reference": ground_truth}
        return reward([None], [solution_str], **{name: [value] for name, value in values.items()})[0]
    raise UnknownDataSource(
        f"no reward for data_source {data_source!r}; the scored ones: {_scored()}, {PREFIX}/gym/<name>"
    )


def _scored() -> str:
    return ", ".join(f"{PREFIX}/{dataset}/{config}" for dataset, config in REWARDS)
