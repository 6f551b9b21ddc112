"""Reward latency per task, p50 and p99 (docs/BENCHMARKS.md): one completion per call, each row once (cold caches).

    python scripts/gym_reward_latency.py --hub-dir hub --rows 300

Every TRL reward of ``causal_datasets.rewards`` on the rows of its ``prompts`` config built under ``--hub-dir``
(the row's reference as the completion; a config not built there is reported as such), and every gym
generator's ``score_answer`` on its own entries' answers. Prints one Markdown row per task.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import datasets

from causal_datasets import gym
from causal_datasets.rewards import PROMPTS_CONFIGS


def percentiles(seconds: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(seconds, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[98] * 1000


def timed(calls: list[Callable[[], float]]) -> list[float]:
    seconds = []
    for call in calls:
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return seconds


def reward_calls(reward: Callable, rows: list[dict]) -> list[Callable[[], float]]:
    def call(row: dict) -> Callable[[], float]:
        columns = {key: [value] for key, value in row.items() if key != "prompt"}
        return lambda: reward([row["prompt"]], [row["reference"]], **columns)[0]

    return [call(row) for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub-dir", type=Path, default=Path("hub"))
    parser.add_argument("--rows", type=int, default=300)
    args = parser.parse_args()
    print("| task | reward | calls | p50 ms | p99 ms |\n|---|---|---|---|---|")
    for reward, (name, config) in PROMPTS_CONFIGS.items():
        folder = args.hub_dir / name
        if not (folder / "data" / config).is_dir():
            print(f"| {name}/{config} | {reward.__name__} | not built under {args.hub_dir} | | |")
            continue
        rows = list(datasets.load_dataset(str(folder), config, split="test"))[: args.rows]
        p50, p99 = percentiles(timed(reward_calls(reward, rows)))
        print(f"| {name}/{config} | {reward.__name__} | {len(rows)} | {p50:.3f} | {p99:.3f} |", flush=True)
    for name in gym.names():
        entries = list(gym.make(name, seed=0, size=args.rows))
        seconds = timed([lambda entry=entry: gym.score_answer(entry["answer"], entry) for entry in entries])
        p50, p99 = percentiles(seconds)
        print(f"| gym/{name} | score_answer | {len(entries)} | {p50:.3f} | {p99:.3f} |", flush=True)


if __name__ == "__main__":
    main()
