"""The builder contract: one ``DatasetBuilder`` per dataset, declared in ``builders/<name>.py``.

Builders are registered as entry points (see :mod:`causal_datasets.registry`).

A builder turns a source (released files or a seeded generator) into typed records grouped by
config and split. Everything after that — Parquet, card, manifest, load-back check — is shared
machinery in :mod:`causal_datasets.hub`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_datasets.errors import SourceFormatError, SourceUnavailable
from causal_datasets.paths import card_template, sources_dir
from causal_datasets.records.base import Record

#: records of one build: config name → split name → rows
BuiltRecords = Mapping[str, Mapping[str, Sequence[Record]]]


@contextmanager
def reading_source(path: Path) -> Iterator[None]:
    """Turn any failure to read the released file ``path`` (corrupt, truncated, not the expected
    format) into one :class:`SourceFormatError` that names it; our own format errors pass as they are."""
    try:
        yield
    except SourceFormatError:
        raise
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
        raise SourceFormatError(f"{path} is not a usable source: {type(error).__name__}: {error}") from error


@dataclass(frozen=True)
class BuildContext:
    """What a build may depend on: the seed and the (optional) source path. Nothing else."""

    seed: int
    source: Path | None = None

    def require_source(self, hint: str, files: Sequence[str] = ()) -> Path:
        """The source path, or :class:`SourceUnavailable` explaining how to provide one.

        ``files``: paths the source folder must hold; a missing one is named in the error.
        """
        if self.source is None:
            raise SourceUnavailable(f"no source given; {hint}")
        if not self.source.exists():
            raise SourceUnavailable(f"source {self.source} does not exist; {hint}")
        missing = [name for name in files if not (self.source / name).is_file()]
        if missing:
            raise SourceUnavailable(f"source {self.source} lacks {', '.join(missing)}; {hint}")
        return self.source


@dataclass(frozen=True)
class DatasetBuilder:
    """Declaration of one dataset.

    ``build`` returns records per config and split; it may build only some of ``configs`` (e.g.
    configs that need a source) and must say in ``BuildOutcome.notes`` what it left out.
    ``card_context`` adds dataset-specific statistics (Markdown tables, figures) to the card.
    ``source_name`` is the folder or file looked up under ``--sources DIR`` by ``build --all``.
    """

    name: str
    version: str
    pretty_name: str
    configs: Mapping[str, type[Record]]
    build: Callable[[BuildContext], BuildOutcome]
    source_description: str
    default_seed: int = 0
    needs_source: bool = False
    source_name: str | None = None
    card_context: Callable[[BuiltRecords], Mapping[str, Any]] | None = None
    default_split: str = "test"
    card_template: Path | None = None

    @property
    def card_path(self) -> Path:
        """The card template: the package's ``cards/<name>.md`` unless the builder names another."""
        return self.card_template or card_template(self.name)

    def default_source(self) -> Path | None:
        """``$CAUSAL_DATASETS_SOURCES/<source_name>`` when that variable is set and the file is there."""
        root = sources_dir()
        if root is None or self.source_name is None or not (root / self.source_name).exists():
            return None
        return root / self.source_name


@dataclass(frozen=True)
class BuildOutcome:
    """Records of one build, plus notes for the user (skipped configs, data-quality findings)."""

    records: BuiltRecords
    notes: Sequence[str] = field(default_factory=tuple)
    source_description: str | None = None
