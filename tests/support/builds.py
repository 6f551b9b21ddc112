"""Small builds of datasets the tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

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
