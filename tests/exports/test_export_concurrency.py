"""Concurrent ``export-runs`` into one folder, as real processes: none loses a run with exit 0.

Two and four exports are started together, then 1.5 s apart; each either lands (exit 0, its run in the final
export) or is refused with exit 2 and one line, and with the default wait every one lands.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from causal_datasets.cli import main
from causal_datasets.exports.folder import read_export

NAME = "together"
AGENTS = {
    "oracle": ["oracle"],
    "random": ["random"],
    "random-1": ["random", "--agent-seed", "1"],
    "random-2": ["random", "--agent-seed", "2"],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    """Four ShapeWorld runs of 12 items with distinct results."""
    root = tmp_path_factory.mktemp("runs")
    for name, (agent, *more) in AGENTS.items():
        argv = ["eval", "shapeworld", "--config", "core", "--agent", agent, *more, "--limit", "12"]
        assert main([*argv, "--hub-dir", str(root / "hub"), "--out", str(root / name)]) in (0, 3)
    return [root / name for name in AGENTS]


def _exports(runs: list[Path], hub: Path, gap: float) -> list[subprocess.CompletedProcess[str]]:
    """One ``export-runs`` process per run into ``hub/NAME``, started ``gap`` seconds apart, all waited for."""
    env = os.environ | {
        "HF_DATASETS_CACHE": str(hub.parent / "hf-cache"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    }
    started = []
    for run in runs:
        command = [sys.executable, "-m", "causal_datasets.cli", "export-runs", str(run), "--name", NAME]
        started.append(
            subprocess.Popen(
                [*command, "--hub-dir", str(hub)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
        time.sleep(gap)
    finished = []
    for process in started:
        out, err = process.communicate()
        finished.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return finished


@pytest.mark.parametrize("count", [2, 4])
@pytest.mark.parametrize("gap", [0.0, 1.5], ids=["together", "1.5s-apart"])
def test_concurrent_exports_lose_no_run(runs, tmp_path, count, gap):
    hub = tmp_path / "hub"
    finished = _exports(runs[:count], hub, gap)
    added = []
    for process in finished:
        assert process.returncode in (0, 2), process.stderr
        if process.returncode == 2:  # refused: one line, nothing claimed
            assert process.stderr.count("\n") == 1 and process.stderr.startswith("error: "), process.stderr
            continue
        claimed = re.search(r": 1 run\(s\) added \(([0-9a-f]{16})\)", process.stdout)
        assert claimed, process.stdout
        added.append(claimed[1])
    exported = read_export(hub / NAME)
    assert sorted(run.run_id for run in exported.runs) == sorted(added)  # every run claimed is there
    assert len(added) == count  # with the default wait, every export landed, one after the other
    assert len(exported.details) == 12 * count
    assert exported.version == f"1.{count - 1}.0"
    assert sorted(path.name for path in hub.iterdir()) == sorted([NAME, f".{NAME}.lock"])  # no staging left
