"""ReCAST samples for runners and metrics, in id order, from a local build or a Hub dataset."""

from __future__ import annotations

from typing import Any

from causal_datasets.hub.location import DatasetLocation
from causal_datasets.recast.records import RecastSample

DATASET = "recast"
CONFIG = "default"
SPLIT = "test"


def load_samples(location: DatasetLocation) -> tuple[list[RecastSample], dict[str, Any]]:
    """Samples of the ``recast`` dataset at ``location`` in id order, and its manifest (a local build is
    made first when missing).

    Raises :class:`causal_datasets.errors.SourceUnavailable` when it must be built and no release
    can be found.
    """
    loaded = location.load(DATASET, CONFIG, SPLIT)
    return sorted(loaded.records, key=lambda s: s.id), loaded.manifest
