"""``causal-datasets build cladder_pairs --rows N`` on this machine's pool and on Ray, one run each, side by side.

Four fresh build processes into empty folders: the shards in the build's own process (1 worker), on the local
pool of 2 workers (``--num-proc 2``), and as Ray tasks on a local Ray runtime of 1 and of 2 CPUs (``--ray
--num-proc 1|2``; the runtime's start and stop are in the time, as a user of ``--ray`` sees it). Each build is
the whole command: the synthetic config's N rows (in shards of 500), the synthetic_latent config's 2,000 queries
(in shards of 100), Parquet, card, manifest and the load-back. Printed per run: wall seconds, rows per second
(both configs' rows over the wall time) and the load average before it; then Ray's overhead ratio (Ray's wall
time over the local one with the same number of workers) and whether every file of the four builds is the
same (sha256). One run each: a figure of a loaded machine, not a median.

    .venv/bin/python scripts/bench_ray.py [--rows 6000]

``--rows 200000`` is the issue's size: 11–17 minutes a build on this 2-CPU machine (four builds).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = Path(sys.executable).with_name("causal-datasets")
MODES = {
    "local, 1 worker": ["--num-proc", "1"],
    "local pool, 2 workers": ["--num-proc", "2"],
    "Ray, 1 CPU": ["--ray", "--num-proc", "1"],
    "Ray, 2 CPUs": ["--ray", "--num-proc", "2"],
}


def build(rows: int, options: list[str], hub: Path) -> tuple[float, float]:
    """Wall seconds of one build into ``hub`` and the 1-minute load average before it."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    command = [str(CLI), "build", "cladder_pairs", "--rows", str(rows), *options, "--hub-dir", str(hub)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, load


def digests(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=6000, help="rows of the synthetic config (default 6000)")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    total = args.rows + 2000  # the synthetic rows and the synthetic_latent queries
    seconds: dict[str, float] = {}
    files = []
    print(f"build cladder_pairs --rows {args.rows} ({total} rows in all), {os.cpu_count()} CPUs")
    print(f"{'mode':24} {'wall s':>8} {'rows/s':>8} {'load':>6}")
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as root:
        for number, (mode, options) in enumerate(MODES.items()):
            hub = Path(root) / str(number)
            wall, load = build(args.rows, options, hub)
            seconds[mode] = wall
            files.append(digests(hub / "cladder_pairs"))
            print(f"{mode:24} {wall:8.1f} {total / wall:8.0f} {load:6.2f}", flush=True)
    print(f"Ray overhead, 1 worker: {seconds['Ray, 1 CPU'] / seconds['local, 1 worker']:.2f}x the local time")
    print(f"Ray overhead, 2 workers: {seconds['Ray, 2 CPUs'] / seconds['local pool, 2 workers']:.2f}x the pool's time")
    print(f"Ray speed-up, 2 CPUs over 1: {seconds['Ray, 1 CPU'] / seconds['Ray, 2 CPUs']:.2f}x")
    print(f"same files in all four builds: {all(f == files[0] for f in files)} ({len(files[0])} files)")


if __name__ == "__main__":
    main()
