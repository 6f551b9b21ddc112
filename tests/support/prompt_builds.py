"""One small hub folder of the datasets the reward and lm-eval tests read (their ``prompts`` configs and siblings)."""

from __future__ import annotations

from pathlib import Path

from causal_datasets.builder import BuildContext
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from tests.support.builds import small_cladder_build
from tests.support.data import SHARED_DATA_DIR

SOURCES = {
    "recast": SHARED_DATA_DIR / "recast" / "test.parquet",
    "cobe": SHARED_DATA_DIR / "cobe" / "category-examples.json",
    "shapeworld": None,
}


def prompt_builds(hub_dir: Path) -> Path:
    """``hub_dir`` with cladder_pairs (5 synthetic pairs, the CLadder configs in full), recast, cobe and shapeworld."""
    small_cladder_build(hub_dir)
    for name, source in SOURCES.items():
        build_to_folder(get_builder(name), hub_dir, BuildContext(seed=0, source=source))
    return hub_dir
