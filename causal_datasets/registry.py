"""The dataset builders installed with this package or any other, found through entry points.

A distribution registers a builder under the entry-point group ``causal_datasets.builders``::

    [project.entry-points."causal_datasets.builders"]
    shapeworld = "causal_datasets.builders.shapeworld:BUILDER"

so a third-party package adds a benchmark without editing this one. The entry point's name must
equal the builder's ``name``.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

from causal_datasets.builder import DatasetBuilder
from causal_datasets.errors import BuilderRegistrationError, UnknownDataset

ENTRY_POINT_GROUP = "causal_datasets.builders"


@cache
def builders() -> dict[str, DatasetBuilder]:
    """Every registered builder, by dataset name (sorted)."""
    found: dict[str, DatasetBuilder] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        builder = _load(entry)
        if builder.name in found:
            raise BuilderRegistrationError(f"two installed packages register a builder named {builder.name!r}")
        found[builder.name] = builder
    return dict(sorted(found.items()))


def get_builder(name: str) -> DatasetBuilder:
    known = builders()
    if name not in known:
        raise UnknownDataset(f"unknown dataset {name!r}; known: {', '.join(known) or 'none'}")
    return known[name]


def _load(entry: EntryPoint) -> DatasetBuilder:
    where = f"entry point {entry.name!r} ({entry.value}) of {entry.dist.name if entry.dist else 'an unknown package'}"
    try:
        builder = entry.load()
    except Exception as error:  # a broken third-party builder must name itself, not crash discovery silently
        raise BuilderRegistrationError(f"{where} failed to load: {type(error).__name__}: {error}") from error
    if not isinstance(builder, DatasetBuilder):
        raise BuilderRegistrationError(f"{where} is {type(builder).__name__}, not a DatasetBuilder")
    if builder.name != entry.name:
        raise BuilderRegistrationError(f"{where} builds {builder.name!r}; the entry point must carry the same name")
    return builder
