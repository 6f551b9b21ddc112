"""Small builds of datasets the tests share."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from causal_datasets.builder import BuildContext
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR


def small_cladder_build(hub_dir: Path) -> Path:
    """``hub_dir`` with a cladder_pairs folder whose synthetic config has 5 pairs and synthetic_latent 40 queries
    (the CLadder configs in full)."""
    builder = get_builder("cladder_pairs")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(cladder_build, "SYNTHETIC_POSITIVES", 5)
        monkeypatch.setattr(cladder_build, "LATENT_QUERIES", 40)
        build_to_folder(builder, hub_dir, BuildContext(seed=0, source=SHARED_DATA_DIR / "cladder"))
    return hub_dir


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """The folder ``build`` filled, built once per test run for every test file that reads it: under pytest-xdist
    the first worker to ask builds it in the run's temporary folder (which all workers share) under a file lock
    while the others wait, then all read it. Only for builds the tests read and never change."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # this run's folder, holding each worker's own; a new one every run
    folder, done = root / f"shared-{name}", root / f"shared-{name}.built"
    with FileLock(root / f"shared-{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed build left
            build(folder)
            done.touch()
    return folder
