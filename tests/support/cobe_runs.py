"""``eval cobe`` on the CoBe release in the shared data: its dataset built once per test module, runs on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from causal_datasets.builder import BuildContext
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from causal_datasets.runners.records import RunSummary
from tests.support.data import SHARED_DATA_DIR
from tests.support.runs import run_eval

COBE_SOURCE = SHARED_DATA_DIR / "cobe" / "category-examples.json"


def build_cobe(hub: Path) -> Path:
    """``hub`` holding the cobe dataset built from the shared release (seed 0)."""
    build_to_folder(get_builder("cobe"), hub, BuildContext(seed=0, source=COBE_SOURCE))
    return hub


def run_cobe(out: Path, hub: Path, *argv: str) -> RunSummary[Any]:
    """``eval cobe ARGV`` through the engine on the dataset in ``hub`` (built from the shared release when it is
    not there yet), the run written to ``out``: the typed summary."""
    return run_eval("cobe", *argv, "--out", str(out), "--hub-dir", str(hub), "--source", str(COBE_SOURCE))
