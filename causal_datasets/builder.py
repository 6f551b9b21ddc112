"""The builder contract: one ``DatasetBuilder`` per dataset, declared in ``builders/<name>.py``.

Builders are registered as entry points (see :mod:`causal_datasets.registry`).

A builder turns a source (released files or a seeded generator) into typed records grouped by
config and split. Everything after that — Parquet, card, manifest, load-back check — is shared
machinery in :mod:`causal_datasets.hub`.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from causal_datasets.errors import BuilderRegistrationError, SourceFormatError, SourceUnavailable
from causal_datasets.paths import SOURCES_ENV, card_template, sources_dir
from causal_datasets.records.base import Record

#: records of one build: config name → split name → rows
BuiltRecords = Mapping[str, Mapping[str, Sequence[Record]]]


#: the deepest bracket nesting a JSON source may have (the CoBe, CausaLab and CLadder releases nest 4–6
#: deep); deeper is refused
#: before the recursive parser sees it
MAX_SOURCE_NESTING = 100
_JSON_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"?')  # an unclosed one runs to the end: never a failed search
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


@contextmanager
def reading_source(path: Path) -> Iterator[None]:
    """Turn any failure to read the released file ``path`` (corrupt, truncated, not the expected
    format, nested too deeply) into one :class:`SourceFormatError` that names it; our own format
    errors pass as they are."""
    try:
        yield
    except SourceFormatError:
        raise
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as error:
        raise SourceFormatError(f"{path} is not a usable source: {type(error).__name__}: {error}") from error


def load_source_json(text: str) -> Any:
    """``json.loads`` of source text nested at most :data:`MAX_SOURCE_NESTING` deep (brackets inside
    strings do not count); ``ValueError`` before parsing otherwise, or for text that is not JSON."""
    brackets = _NOT_BRACKETS.sub("", _JSON_STRINGS.sub("", text))
    deepest = max(itertools.accumulate(1 if bracket in "[{" else -1 for bracket in brackets), default=0)
    if deepest > MAX_SOURCE_NESTING:
        raise ValueError(f"JSON nested {deepest} deep, more than the {MAX_SOURCE_NESTING} levels a source may have")
    return json.loads(text)


@dataclass(frozen=True)
class BuildContext:
    """What a build may depend on: the seed, the (optional) source path and the builder's own
    options (an instance of its ``options`` model, recorded in the manifest). Nothing else:
    ``num_proc``, the workers a generated config may use (:mod:`causal_datasets.sharding`), never
    changes the rows."""

    seed: int
    source: Path | None = None
    options: BaseModel | None = None
    num_proc: int = 1

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
class Release:
    """One version of a dataset: its number and what changed in it, and why."""

    version: str
    changes: str


@dataclass(frozen=True)
class DatasetBuilder:
    """Declaration of one dataset.

    ``build`` returns records per config and split; it may build only some of ``configs`` (e.g.
    configs that need a source) and must say in ``BuildOutcome.notes`` what it left out.
    ``history`` lists every version, oldest first; the last one is the dataset's ``version``, so a
    new version is one more :class:`Release`. ``citations`` are BibTeX keys of the metric cards
    (:mod:`causal_datasets.hub.citations`), ``metrics`` the evaluate modules the card shows.
    ``card_context`` adds dataset-specific statistics (Markdown tables, figures) to the card, ``card_metadata``
    front matter keys the rows decide (over the template's; e.g. an export's licence, from the benchmarks it holds).
    ``source_name`` is the folder or file looked up under ``--sources DIR`` by ``build --all`` (and under
    ``$CAUSAL_DATASETS_SOURCES``); ``source_configs`` are the configs built only from those released files
    (every config when ``needs_source``), ``source_hint`` says what ``--source`` names, and
    ``downloads_source`` that a build without one fetches the release when online.
    ``options`` is the pydantic model of the build's own options (e.g. the sizes of a generated set):
    ``build`` offers its fields as flags, and the manifest records the values a build used.
    """

    name: str
    history: Sequence[Release]
    pretty_name: str
    configs: Mapping[str, type[Record]]
    build: Callable[[BuildContext], BuildOutcome]
    source_description: str
    default_seed: int = 0
    needs_source: bool = False
    source_name: str | None = None
    source_configs: Sequence[str] = ()
    source_hint: str = "PATH, the released files"
    downloads_source: bool = False
    card_context: Callable[[BuiltRecords], Mapping[str, Any]] | None = None
    card_metadata: Callable[[BuiltRecords], Mapping[str, Any]] | None = None
    default_split: str = "test"
    card_template: Path | None = None
    citations: Sequence[str] = ()
    metrics: Sequence[str] = ()
    options: type[BaseModel] | None = None

    def __post_init__(self) -> None:
        numbers = [_version_key(self.name, release.version) for release in self.history]
        if not numbers or any(a >= b for a, b in itertools.pairwise(numbers)):
            raise BuilderRegistrationError(
                f"dataset {self.name!r}: history must list at least one version, oldest first, each newer than the last"
            )

    @property
    def version(self) -> str:
        """The current version: the last entry of ``history``."""
        return self.history[-1].version

    @property
    def card_path(self) -> Path:
        """The card template: the package's ``cards/<name>.md`` unless the builder names another."""
        return self.card_template or card_template(self.name)

    def configs_from_source(self) -> tuple[str, ...]:
        """The configs built from released files (every config of a builder that needs a source)."""
        return tuple(c for c in self.configs if self.needs_source or c in self.source_configs)

    def source_help(self) -> str:
        """How to give the released files, in one line: ``--source`` and the environment variable."""
        where = f", or set ${SOURCES_ENV} to a folder holding {self.source_name}" if self.source_name else ""
        return f"pass --source {self.source_hint}{where}"

    def default_source(self) -> Path | None:
        """``$CAUSAL_DATASETS_SOURCES/<source_name>`` when that variable is set and the file is there."""
        root = sources_dir()
        if root is None or self.source_name is None or not (root / self.source_name).exists():
            return None
        return root / self.source_name


def _version_key(name: str, version: str) -> tuple[int, ...]:
    parts = version.split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise BuilderRegistrationError(f"dataset {name!r}: version {version!r} is not MAJOR.MINOR.PATCH")
    return tuple(int(part) for part in parts)


@dataclass(frozen=True)
class Finding:
    """A data-quality finding of one build: in which config, what is wrong, what the build did about
    it, and the ids it concerns (row ids, or ids of the ``unit`` named, e.g. graphs). A check that
    found nothing may be reported with no ids."""

    config: str
    issue: str
    action: str
    ids: tuple[str, ...] = ()
    unit: str = "rows"

    def note(self) -> str:
        """One line for the build's manifest: the finding, what the build did, every id."""
        listed = f": {', '.join(self.ids)}" if self.ids else ""
        return f"{self.config}: {self.issue} ({self.action}): {len(self.ids)} {self.unit}{listed}"

    def summary(self) -> str:
        """The finding in a few words for a person at the terminal (the card's Data Quality section has the rest)."""
        return f"{self.config}: {self.issue}: {len(self.ids)} {self.unit}"


@dataclass(frozen=True)
class BuildOutcome:
    """Records of one build, notes for the user (skipped configs, source facts) and data-quality findings."""

    records: BuiltRecords
    notes: Sequence[str] = field(default_factory=tuple)
    source_description: str | None = None
    findings: Sequence[Finding] = field(default_factory=tuple)
