"""Throughput of the generated sets and of ``build --all``, side by side in one run.

* verified synthetic CLadder pairs (proved pairs and refuted mistakes) per second, with 1 and 2
  workers (``datasets``' ``num_proc``), per core and the speed-up;
* CausaLab episodes and ShapeWorld advanced tasks per second with 1 and 2 workers;
* ``causal-datasets build --all`` (no sources) wall time with 1 and 2 workers, checked
  byte-identical, and, with ``--baseline-tree DIR`` (an unpacked earlier commit that has
  ``--num-proc``, run with 2 workers, e.g. ``git archive 1d5ce8a | tar -x -C /tmp/base``, then
  ``ln -s /tmp/base/X /tmp/base/causal_datasets/X`` for ``builders``, ``cards`` and ``metrics``, so that its
  own load rather than the installed ones), the same command run on that code.

Each generation is timed in a fresh process, as a user's ``build`` runs. CPU seconds are that
process's and its workers' (``os.times``), so a busy machine shows in the gap between wall and CPU
time; the load average is printed with the figures.

    .venv/bin/python scripts/bench_generation.py [--pairs 2000] [--episodes 200] [--graphs 1000] [--baseline-tree DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from causal_datasets.causalab.generator import generate_suites
from causal_datasets.causalab.suites import SUITE_SPECS
from causal_datasets.cladder_pairs.rows import synthetic_rows
from causal_datasets.cli import tune_garbage_collector
from causal_datasets.markdown import markdown_table
from causal_datasets.shapeworld.generate import ADVANCED_SIZES, advanced_tasks

ROOT = Path(__file__).resolve().parents[1]


def cpu_seconds() -> float:
    """User + system time of this process and its finished children."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def timed(function) -> tuple[object, float, float]:
    wall, cpu = time.perf_counter(), cpu_seconds()
    result = function()
    return result, time.perf_counter() - wall, cpu_seconds() - cpu


CASES = {
    "verified synthetic pairs": lambda size, workers: synthetic_rows(0, size // 2, workers),
    "CausaLab episodes": lambda size, workers: [
        e for suite in generate_suites(list(SUITE_SPECS.values()), 0, size, workers).values() for e in suite
    ],
    "ShapeWorld advanced tasks": lambda size, workers: advanced_tasks(0, ADVANCED_SIZES, size, workers),
}


def measure_case(name: str, size: int, workers: int) -> None:
    """One generation timed in this (fresh) process, its garbage collector set as the CLI sets it;
    prints items, wall, CPU and a digest of the items."""
    tune_garbage_collector()
    items, wall, cpu = timed(lambda: CASES[name](size, workers))
    digest = hashlib.sha256("\n".join(item.model_dump_json() for item in items).encode()).hexdigest()
    print(json.dumps({"items": len(items), "wall": wall, "cpu": cpu, "digest": digest}))


def generation_rows(args: argparse.Namespace) -> list[list]:
    """Each case with 1 and 2 workers, each in a fresh process (a forked pool of a process that
    already holds a large run's rows and caches starts slower than a user's ``build`` does)."""
    sizes = {
        "verified synthetic pairs": args.pairs,
        "CausaLab episodes": args.episodes,
        "ShapeWorld advanced tasks": args.graphs,
    }
    rows = []
    for name, size in sizes.items():
        runs = []
        for workers in (1, 2):
            command = [sys.executable, __file__, "--case", name, "--size", str(size), "--workers", str(workers)]
            done = subprocess.run(
                command, check=True, capture_output=True, text=True, env={**os.environ, "HF_DATASETS_OFFLINE": "1"}
            )
            run = json.loads(done.stdout.strip().splitlines()[-1])
            runs.append(run)
            wall, cpu, items = run["wall"], run["cpu"], run["items"]
            rows.append(
                [
                    name,
                    workers,
                    items,
                    f"{wall:.1f}",
                    f"{cpu:.1f}",
                    f"{items / wall:,.0f}",
                    f"{items / wall / workers:,.0f}",
                    f"{items / cpu:,.0f}" if cpu else "—",
                    f"{runs[0]['wall'] / wall:.2f}×",
                    "—" if workers == 1 else str(runs[0]["digest"] == run["digest"]),
                ]
            )
    return rows


def build_all(hub: Path, workers: int | None, tree: Path | None = None) -> tuple[float, str]:
    """Wall seconds of ``build --all`` into ``hub`` and a digest of every file written."""
    command = [sys.executable, "-m", "causal_datasets.cli", "build", "--all", "--hub-dir", str(hub)]
    if workers is not None:
        command += ["--num-proc", str(workers)]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", **({"PYTHONPATH": str(tree)} if tree else {})}
    env.pop("CAUSAL_DATASETS_SOURCES", None)
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, cwd=tree or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    digest = hashlib.sha256()
    for path in sorted(p for p in hub.rglob("*") if p.is_file()):
        digest.update(path.relative_to(hub).as_posix().encode() + path.read_bytes())
    return wall, digest.hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--pairs", type=int, default=2000, help="synthetic rows to generate (half proved, half refuted)"
    )
    parser.add_argument("--episodes", type=int, default=200, help="CausaLab episodes per suite (19 suites)")
    parser.add_argument("--graphs", type=int, default=1000, help="ShapeWorld graphs per size (4 sizes, 6 tasks each)")
    parser.add_argument("--baseline-tree", type=Path, help="an unpacked earlier commit to time `build --all` on")
    parser.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)  # one timing, run by the bench itself
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        measure_case(args.case, args.size, args.workers)
        return
    print(f"CPUs: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.1f}\n")
    header = [
        "generated",
        "workers",
        "items",
        "wall s",
        "CPU s",
        "items/s",
        "items/s per core",
        "items per CPU s",
        "speed-up",
        "same output",
    ]
    print(markdown_table(header, generation_rows(args)))
    print()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        if args.baseline_tree:
            wall, digest = build_all(Path(scratch) / "before", 2, args.baseline_tree)
            rows.append(["before (baseline tree)", "2", f"{wall:.1f}", digest])
        for workers in (1, 2):
            wall, digest = build_all(Path(scratch) / f"w{workers}", workers)
            rows.append(["now", str(workers), f"{wall:.1f}", digest])
    print(markdown_table(["`build --all` (no sources)", "workers", "wall s", "sha256 of the files"], rows))
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
