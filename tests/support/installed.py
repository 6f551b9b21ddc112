"""A test package installed as a distribution would be: a ``dist-info`` folder (metadata and entry points) put on
``sys.path``, with the builder and task registries read afresh before and after."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from causal_datasets import registry
from causal_datasets.runners import registry as task_registry


@contextmanager
def installed_entry_points(site: Path, monkeypatch: pytest.MonkeyPatch, entry_points: str) -> Iterator[Path]:
    """``entry_points`` (an ``entry_points.txt``) registered by a distribution installed in ``site``; yields its
    ``dist-info`` folder."""
    info = site / "sixth_benchmark-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sixth-benchmark\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    monkeypatch.syspath_prepend(str(site))
    registry.builders.cache_clear()
    task_registry.tasks.cache_clear()
    try:
        yield info
    finally:
        monkeypatch.undo()
        registry.builders.cache_clear()
        task_registry.tasks.cache_clear()
