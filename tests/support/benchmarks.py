"""Every benchmark built small and run briefly: the options that keep an eval of each one short, and the build."""

from __future__ import annotations

from pathlib import Path

import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR

#: per benchmark, the eval options of a short run
TASK_ARGS = {
    "shapeworld": ["--config", "core"],
    "causalab": ["--config", "3nodes", "--max-turns", "2"],
    "cladder_pairs": [],
    "cladder_yes_no": [],
    "recast": ["--ids", "91", "98", "--max-attempts", "1"],
    "cobe": ["--config", "queries", "--max-attempts", "1"],
}
#: per benchmark, its released source files under the shared data folder (None: generated)
SOURCES = {
    "causalab": None,
    "cladder_pairs": "cladder",
    "recast": "recast/test.parquet",
    "cobe": "cobe/category-examples.json",
    "shapeworld": None,
}
NAMES = sorted(TASK_ARGS)


def build_every_dataset(root: Path) -> Path:
    """Every dataset built into ``root`` (the synthetic CLadder config cut to 5 pairs: the task reads questions)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cladder_build, "SYNTHETIC_POSITIVES", 5)
        for name, source in SOURCES.items():
            build_to_folder(get_builder(name), root, BuildContext(seed=0, source=source and SHARED_DATA_DIR / source))
    return root


def eval_argv(name: str, hub: Path, out: Path, base_url: str, *extra: str) -> list[str]:
    """``eval NAME`` of 2 items, one at a time and without retries, against ``base_url``, reading the datasets
    built in ``hub``, into ``out``; then ``extra`` (the model: ``--model`` or ``--model-config``)."""
    return [
        "eval",
        name,
        *TASK_ARGS[name],
        "--limit",
        "2",
        "--base-url",
        base_url,
        "--max-retries",
        "0",
        "--concurrency",
        "1",
        "--hub-dir",
        str(hub),
        "--out",
        str(out),
        *extra,
    ]
