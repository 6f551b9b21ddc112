"""Where a run or a user reads a dataset from: a local build (made on demand) or a Hub repository.

``DatasetLocation()`` reads ``hub/<name>`` and builds it there first when it is missing;
``DatasetLocation(repo_id="ORG/NAME", revision="v1.2.0")`` reads a pushed dataset. Either way the
files of the requested config are checked against the dataset's ``manifest.json`` (sha256) and
loaded with ``datasets.load_dataset``, so what a run scores is exactly what was built.

A Hub dataset is fetched with ``huggingface_hub.snapshot_download`` (the manifest, the card and
that config's Parquet files, at exactly that revision) into the Hub cache, then loaded as a folder.
This keeps the revision exact also offline: ``load_dataset("ORG/NAME", revision=...)`` on its own,
when offline, reuses whichever revision it cached last and, when a revision is unknown, can fall
back to a cached copy of another one.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets
import httpx2
from huggingface_hub import snapshot_download
from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled

from causal_datasets.builder import BuildContext
from causal_datasets.errors import DatasetFolderError, HubDatasetError, SourceUnavailable, UnknownConfig
from causal_datasets.hub.folder import build_to_folder, check_files, read_manifest
from causal_datasets.hub.layout import CARD, MANIFEST
from causal_datasets.paths import DEFAULT_HUB_DIR
from causal_datasets.records.base import Record, records_from_dataset
from causal_datasets.registry import get_builder


@dataclass(frozen=True)
class LoadedConfig:
    """The records of one config and split, and the manifest of the dataset they come from."""

    records: list[Record]
    manifest: dict[str, Any]


@dataclass(frozen=True)
class DatasetLocation:
    """A local root of built folders (``hub_dir``), or a Hub dataset (``repo_id`` at ``revision``).

    ``source`` is what an on-demand local build reads (released files; by default the builder's
    file under ``$CAUSAL_DATASETS_SOURCES``); it is unused for a Hub id.
    """

    hub_dir: Path = DEFAULT_HUB_DIR
    repo_id: str | None = None
    revision: str | None = None
    source: Path | None = None

    def describe(self, name: str) -> str:
        """Where ``name`` is read from, for messages and run records."""
        if self.repo_id:
            return f"{self.repo_id}@{self.revision or 'main'}"
        return str(Path(self.hub_dir) / name)

    def load(self, name: str, config: str, split: str = "test") -> LoadedConfig:
        """Typed records (the builder's record model for ``config``) of one split, and the manifest."""
        builder = get_builder(name)
        if config not in builder.configs:
            raise UnknownConfig(f"unknown {name} config {config!r}; choose from {', '.join(builder.configs)}")
        folder = self._hub_snapshot(self.repo_id, name, config) if self.repo_id else self._local_folder(name, config)
        manifest = read_manifest(folder)
        if manifest.get("name") != name:
            error = HubDatasetError if self.repo_id else DatasetFolderError
            raise error(f"{self.describe(name)} holds the dataset {manifest.get('name')!r}, not {name!r}")
        rows = manifest["rows"]
        if config not in rows:
            how = builder.source_help() if config in builder.configs_from_source() else "rebuild it"
            raise UnknownConfig(
                f"{self.describe(name)} has no config {config!r} (it has {', '.join(rows)}); "
                f"rebuild it with `causal-datasets build {name} --hub-dir {self.hub_dir} --source ...`: {how}"
            )
        if split not in rows[config]:
            raise UnknownConfig(f"{name}/{config} has no split {split!r} (it has {', '.join(rows[config])})")
        check_files(folder, manifest, prefix=f"data/{config}/")
        # the files named explicitly: a Hub snapshot holds only this config's files, and the card's
        # config list would have datasets resolve the other configs' files too
        loaded = datasets.load_dataset(str(folder), config, split=split,
                                       data_files={split: f"data/{config}/{split}-*.parquet"})
        return LoadedConfig(records_from_dataset(loaded, builder.configs[config]), manifest)

    def _local_folder(self, name: str, config: str) -> Path:
        """The built folder of ``name``, built first when missing; when ``config`` needs released files that
        were not given, a :class:`SourceUnavailable` before anything is built (a build can take minutes)."""
        folder = Path(self.hub_dir) / name
        if not (folder / MANIFEST).exists():
            builder = get_builder(name)
            source = self.source or builder.default_source()
            if source is None and config in builder.configs_from_source() and not builder.downloads_source:
                raise SourceUnavailable(
                    f"{name} config {config!r} is built from released files, and none were given, so {folder} "
                    f"was not built: {builder.source_help()}")
            build_to_folder(builder, Path(self.hub_dir), BuildContext(seed=builder.default_seed, source=source))
        return folder

    def _hub_snapshot(self, repo_id: str, name: str, config: str) -> Path:
        what = f"{self.describe(name)} config {config!r}"
        return hub_snapshot(repo_id, self.revision, [f"data/{config}/*"], what)


def hub_snapshot(repo_id: str, revision: str | None, patterns: list[str], what: str) -> Path:
    """The folder of a Hub dataset's manifest, card and the files of ``patterns`` at ``revision``, downloaded into
    the Hub cache (or found there offline); :class:`HubDatasetError` naming ``what`` when it cannot be had."""
    try:
        return Path(snapshot_download(repo_id, repo_type="dataset", revision=revision,
                                      allow_patterns=[MANIFEST, CARD, *patterns]))
    except (OfflineModeIsEnabled, LocalEntryNotFoundError) as error:
        raise HubDatasetError(
            f"{what} is not in the Hub cache and offline mode is on (HF_HUB_OFFLINE): download it once online first"
        ) from error
    except (OSError, ValueError, HfHubHTTPError, httpx2.TransportError) as error:
        raise HubDatasetError(f"could not download {what}: {error}") from error


def load_benchmark(
    name: str,
    config: str,
    *,
    split: str = "test",
    dataset: str | None = None,
    revision: str | None = None,
    hub_dir: Path = DEFAULT_HUB_DIR,
    source: Path | None = None,
    repo_id: str | None = None,
) -> list[Record]:
    """Typed rows of one config of a benchmark, from a Hub dataset ``dataset`` (``ORG/NAME``, as ``eval
    --dataset`` names it) or from a local build (made on demand). ``repo_id`` is the deprecated name of ``dataset``.

    >>> tasks = load_benchmark("shapeworld", "core")                                   # hub/shapeworld
    >>> tasks = load_benchmark("shapeworld", "core", dataset="ORG/shapeworld", revision="v1.1.0")
    """
    if repo_id is not None:
        warnings.warn("load_benchmark(repo_id=...) is deprecated; use dataset=...", FutureWarning, stacklevel=2)
        if dataset is not None and dataset != repo_id:
            raise ValueError(f"dataset={dataset!r} and repo_id={repo_id!r} name two repositories")
        dataset = repo_id
    location = DatasetLocation(hub_dir=hub_dir, repo_id=dataset, revision=revision, source=source)
    return location.load(name, config, split).records
