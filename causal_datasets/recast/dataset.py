"""ReCAST samples for runners and metrics, in id order, from a local build or a Hub dataset."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from causal_datasets.hub.location import DatasetLocation
from causal_datasets.recast.records import RecastSample
from causal_datasets.records.base import Record

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
    return sorted(samples_of(loaded.records), key=lambda s: s.id), loaded.manifest


def samples_of(records: Sequence[Record]) -> list[RecastSample]:
    """``records`` as the samples they are; a ``TypeError`` names the first that is not a :class:`RecastSample`."""
    samples = [record for record in records if isinstance(record, RecastSample)]
    if len(samples) != len(records):
        stranger = next(record for record in records if not isinstance(record, RecastSample))
        raise TypeError(f"expected ReCAST samples, got a {type(stranger).__name__}")
    return samples
