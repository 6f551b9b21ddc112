"""``eval cladder_pairs --limit 10`` against ``serve-local`` with default options, twice, here and in another tree.

    .venv/bin/python scripts/bench_local_model.py --hub-dir HUB [--other-tree DIR]

HUB must hold a cladder_pairs build with its CLadder configs. For each tree, one ``serve-local`` is
started and ``eval`` runs twice against it, each run with a fresh response cache (so every reply
comes from the server); the table gives the seconds, how the run ended, the retry lines on stderr
and how many replies both runs share. ``--other-tree`` is the source folder of another version of the
package (e.g. ``git archive`` of main, with ``builders``, ``cards`` and ``metrics`` linked inside
``causal_datasets/``), put first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from causal_datasets.llm.local import MODEL_ALIAS
from causal_datasets.markdown import markdown_table

ITEMS = 10


def cli(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "causal_datasets.cli", *arguments]


def replies(run: Path) -> dict[str, str | None]:
    lines = [json.loads(text) for text in (run / "results.jsonl").read_text().splitlines()]
    return {line["id"]: line.get("raw") for line in lines}


def bench(label: str, tree: Path | None, hub: Path, work: Path) -> list[list]:
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    server = subprocess.Popen(cli("serve-local"), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env=env, cwd=work)
    base_url = server.stdout.readline().split(" at ")[-1].strip()
    rows, seen = [], []
    try:
        for attempt in (1, 2):
            out = work / f"{label}-{attempt}"
            start = time.perf_counter()
            done = subprocess.run(cli("eval", "cladder_pairs", "--limit", str(ITEMS), "--model", MODEL_ALIAS,
                                      "--base-url", base_url, "--hub-dir", str(hub), "--out", str(out),
                                      "--cache-dir", str(work / f"{label}-cache-{attempt}")),
                                  capture_output=True, text=True, env=env, cwd=work)
            seconds = time.perf_counter() - start
            seen.append(replies(out))
            rows.append([label, attempt, f"{seconds:.0f}", done.stderr.strip().splitlines()[-1],
                         done.stderr.count("retrying"), round(os.getloadavg()[0], 1)])
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=600)
    same = sum(1 for key, text in seen[0].items() if text is not None and seen[1].get(key) == text)
    rows[-1].append(f"{same} of {len(seen[0])}")
    rows[0].append("")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub-dir", type=Path, required=True,
                        help="root holding a cladder_pairs build with its CLadder configs")
    parser.add_argument("--other-tree", type=Path, help="source folder of another version to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        rows = bench("other", args.other_tree.resolve(), args.hub_dir.resolve(), work) if args.other_tree else []
        rows += bench("this", None, args.hub_dir.resolve(), work)
    headers = ["code", "run", "seconds", "how it ended", "retry lines", "load average", "replies as in run 1"]
    print(markdown_table(headers, rows))


if __name__ == "__main__":
    main()
