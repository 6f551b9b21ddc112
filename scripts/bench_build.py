"""``causal-datasets build`` from an empty folder, this checkout beside another one, side by side.

Each run is a fresh ``causal-datasets build ... --hub-dir <empty folder>`` process (imports, generation,
Parquet, card, manifest and the load-back: the README's main job for ``--all``); the two checkouts take
turns, the order swapped every repeat, so a change in the machine's load falls on both. Wall time and
CPU time (the build's process and its joined workers, user + system) are printed per run and as
medians, with the load average before each run. Every Parquet file of the two sides' builds is then
compared by the sha256 its manifest records.

The other checkout needs its own virtual environment with its code installed (``DIR/.venv``), e.g.::

    git worktree add /tmp/old f29bd4a && python3 -m venv /tmp/old/.venv \\
      && echo "$PWD/.venv/lib/python3.11/site-packages" > /tmp/old/.venv/lib/python3.11/site-packages/main.pth \\
      && /tmp/old/.venv/bin/pip install -q --no-deps -e /tmp/old
    .venv/bin/python scripts/bench_build.py --old /tmp/old [--repeats 3] [--builds cladder_pairs shapeworld all]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def timed_build(checkout: Path, build: str, hub: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and the 1-minute load average before it, of one build into ``hub``."""
    target = ["--all"] if build == "all" else [build]  # every dataset that needs no source, or one
    command = [str(checkout / ".venv" / "bin" / "causal-datasets"), "build", *target, "--hub-dir", str(hub)]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, load


def parquet_hashes(hub: Path) -> dict[str, str]:
    """``dataset/file`` → sha256 of every Parquet file the manifests under ``hub`` record."""
    return {
        f"{manifest.parent.name}/{name}": digest
        for manifest in sorted(hub.glob("*/manifest.json"))
        for name, digest in json.loads(manifest.read_text(encoding="utf-8"))["files"].items()
        if name.endswith(".parquet")
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, required=True, help="the other checkout (with its own .venv)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--builds", nargs="+", default=["cladder_pairs", "shapeworld", "all"], help="all: --all")
    args = parser.parse_args()
    sides = {"before": args.old.resolve(), "after": HERE}
    times: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-build-") as root:
        for repeat in range(args.repeats):
            order = list(sides) if repeat % 2 == 0 else list(reversed(sides))
            for build in args.builds:
                for side in order:
                    hub = Path(root) / f"{side}-{build}-{repeat}"
                    wall, cpu, load = timed_build(sides[side], build, hub)
                    times.setdefault((build, side), []).append((wall, cpu, load))
                    print(f"run {repeat + 1} {build} {side}: wall {wall:.1f} s, CPU {cpu:.1f} s, load {load:.1f}")
                    sys.stdout.flush()
        print("\n| build | code | runs | wall s (median) | CPU s (median) | walls | load before |")
        print("|---|---|---|---|---|---|---|")
        for (build, side), runs in times.items():
            walls, cpus, loads = zip(*runs, strict=True)
            print(
                f"| {build} | {side} | {len(runs)} | {statistics.median(walls):.1f} | "
                f"{statistics.median(cpus):.1f} | {', '.join(f'{w:.1f}' for w in walls)} | "
                f"{min(loads):.1f}–{max(loads):.1f} |"
            )
        for build in args.builds:
            before, after = (parquet_hashes(Path(root) / f"{side}-{build}-0") for side in sides)
            differing = sorted(f for f in before.keys() | after.keys() if before.get(f) != after.get(f))
            print(
                f"\n{build}: {len(after)} Parquet files after, {len(before)} before; "
                + (f"differing: {', '.join(differing)}" if differing else "every one the same bytes")
            )


if __name__ == "__main__":
    main()
