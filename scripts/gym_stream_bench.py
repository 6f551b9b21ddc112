"""Streaming rate of the gym generators: items per second through ``datasets.IterableDataset`` (docs/BENCHMARKS.md).

    python scripts/gym_stream_bench.py --items 100000 --generator causalab
    python scripts/gym_stream_bench.py --items 2000

Prints one Markdown row per generator: items, seconds, items per second (one process, default difficulty).
"""

from __future__ import annotations

import argparse
import time

from causal_datasets import gym
from causal_datasets.gym.streaming import iterable_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--generator", action="append", choices=gym.names(), help="default: every generator")
    args = parser.parse_args()
    print("| generator | items | seconds | items/s |\n|---|---|---|---|")
    for name in args.generator or gym.names():
        start = time.perf_counter()
        count = sum(1 for _ in iterable_dataset(name, seed=0, limit=args.items))
        seconds = time.perf_counter() - start
        print(f"| {name} | {count:,} | {seconds:.1f} | {count / seconds:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
