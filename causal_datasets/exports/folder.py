"""Runs written as a results dataset folder, by the builders' own writer, and such a folder read back.

``export_runs`` reads every run first (a folder that is no run, an unreadable summary format, a torn or corrupt
result line, a summary over other results: one error, nothing written), adds the runs the folder does not hold yet
to those it holds (a run is the same when its id is, see :mod:`.rows`) and writes the folder with
:func:`causal_datasets.hub.build_to_folder`: Parquet under ``data/``, the card, the manifest, staged beside the
old folder and swapped into place. The first export is version 1.0.0; each export that adds runs raises the minor
version (a tag of its own when pushed), and one that adds nothing rewrites the same bytes.

Exports into one folder take turns: each holds a file lock beside the folder (``.NAME.lock``) from reading the
earlier export to loading the new one back, so two exports started together both land, one after the other; one
that waits over :data:`LOCK_WAIT` seconds is refused (:class:`ExportError`), never a run lost.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Literal

import pyarrow.parquet as pq
from filelock import FileLock, Timeout
from huggingface_hub.errors import HFValidationError
from huggingface_hub.utils import validate_repo_id
from pydantic import BaseModel

from causal_datasets.builder import BuildContext, BuildOutcome, DatasetBuilder, Release
from causal_datasets.errors import ExportError
from causal_datasets.exports.card import SPLIT, benchmarks, card_context, card_metadata, findings
from causal_datasets.exports.rows import RunRows, run_rows
from causal_datasets.hub.folder import (
    WrittenDataset,
    build_to_folder,
    check_files,
    foreign_files,
    read_manifest,
    verify_folder,
)
from causal_datasets.hub.layout import MANIFEST
from causal_datasets.paths import DEFAULT_HUB_DIR, card_template
from causal_datasets.records.base import Record
from causal_datasets.records.run_results import ExportedRun, ItemDetail, RunResult
from causal_datasets.redaction import Redactor
from causal_datasets.report.runs import load_run

#: what an export's manifest records as its options
EXPORT_KIND: Literal["run-results"] = "run-results"
#: the layout of an export's rows written by this version
EXPORT_FORMAT = 1
FIRST_VERSION = "1.0.0"
#: the configs of an export, the default first
CONFIGS: dict[str, type[Record]] = {"results": RunResult, "details": ItemDetail, "runs": ExportedRun}
TEMPLATE = "run_results"
#: the longest an export waits for another one into the same folder, in seconds
LOCK_WAIT = 600.0


class ExportFormat(BaseModel):
    """What an export's manifest records under ``options``: that it is an export, and the layout of its rows."""

    kind: Literal["run-results"] = EXPORT_KIND
    format: int = EXPORT_FORMAT


@dataclass(frozen=True)
class ExportedRows:
    """The rows of an export folder, by config, and its version."""

    version: str
    runs: list[ExportedRun]
    results: list[RunResult]
    details: list[ItemDetail]


@dataclass(frozen=True)
class ExportOutcome:
    """An export written: its version, the run ids it added, kept and was given again, and its rows per config and
    split as loaded back (under the lock, so they are this export's)."""

    written: WrittenDataset
    version: str
    added: list[str]
    kept: list[str]
    already_there: list[str]
    loaded: dict[str, dict[str, int]]


@contextmanager
def export_lock(target: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the lock of the export folder ``target`` (a file beside it); :class:`ExportError` after ``wait``
    seconds of another export holding it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(target.parent / f".{target.name}.lock", timeout=wait)
    try:
        lock.acquire()
    except Timeout:
        raise ExportError(
            f"another export into {target} has held it for {wait:.0f} s: nothing written; export again when it ends"
        ) from None
    try:
        yield
    finally:
        lock.release()


def export_runs(
    run_dirs: Sequence[Path], name: str, hub_dir: Path = DEFAULT_HUB_DIR, *, wait: float = LOCK_WAIT
) -> ExportOutcome:
    """Write (or extend) the results dataset ``hub_dir/name`` with the runs of ``run_dirs`` and load it back, under
    the folder's lock (``wait``: the longest to wait for another export holding it).

    Raises :class:`ExportError` for a name the Hub refuses, runs without items or numbers, a folder that is not
    an export (or holds files no export wrote) or another export holding the lock too long; :class:`RunFolderError`
    for a folder that is not a readable, whole run."""
    check_name(name)
    if not run_dirs:
        raise ExportError("no run folder given")
    redactor = Redactor([*map(Path, run_dirs), Path(hub_dir)])
    given: dict[str, RunRows] = {}
    for folder in run_dirs:  # every run read whole before the lock is taken
        rows = run_rows(load_run(Path(folder)), redactor, FIRST_VERSION)
        given.setdefault(rows.run.run_id, rows)
    target = Path(hub_dir) / name
    with export_lock(target, wait):
        return _export(given, target)


def _export(given: dict[str, RunRows], target: Path) -> ExportOutcome:
    """:func:`export_runs` once the runs are read (``given``: their rows by id) and the lock is held."""
    name, hub_dir = target.name, target.parent
    earlier = read_export(target, writing=True) if target.exists() else None
    known = {run.run_id for run in earlier.runs} if earlier else set()
    fresh = [rows for run_id, rows in given.items() if run_id not in known]
    version = FIRST_VERSION if earlier is None else _next_version(earlier.version) if fresh else earlier.version
    fresh = [replace(rows, run=rows.run.model_copy(update={"added_in": version})) for rows in fresh]
    exported = ExportedRows(
        version,
        [*(earlier.runs if earlier else []), *(r.run for r in fresh)],
        [*(earlier.results if earlier else []), *(row for r in fresh for row in r.results)],
        [*(earlier.details if earlier else []), *(row for r in fresh for row in r.details)],
    )
    if not exported.details:
        raise ExportError(f"the runs given hold no item results: nothing to export into {target}")
    if not exported.results:
        raise ExportError(
            "no run given has headline numbers with intervals (summaries of format 3): nothing for "
            "the `results` config; `causal-datasets eval ... --resume` into a run folder rewrites its "
            "summary"
        )
    context = BuildContext(seed=0, options=ExportFormat())
    written = build_to_folder(export_builder(name, exported), hub_dir, context)
    kept = [run.run_id for run in earlier.runs] if earlier else []
    return ExportOutcome(
        written,
        version,
        added=[r.run.run_id for r in fresh],
        kept=kept,
        already_there=[run_id for run_id in given if run_id in known],
        loaded=verify_folder(written.folder),
    )


def check_name(name: str) -> None:
    """A dataset name the Hub accepts (``NAME`` of ``ORG/NAME``), else :class:`ExportError`."""
    if "/" in name:
        raise ExportError(
            f"{name!r} is not a valid dataset name: give the name alone (the organisation comes with "
            "`push --dataset ORG/NAME`)"
        )
    try:
        validate_repo_id(name)
    except HFValidationError as error:
        raise ExportError(f"{name!r} is not a valid dataset name: {error}") from None


def _next_version(version: str) -> str:
    major, minor, _ = (int(part) for part in version.split("."))
    return f"{major}.{minor + 1}.0"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def export_builder(name: str, rows: ExportedRows) -> DatasetBuilder:
    """The export as a :class:`DatasetBuilder` whose build returns ``rows``: the writer, card and manifest are the
    builders' own."""
    used = benchmarks(rows.runs)
    records: dict[str, dict[str, Sequence[Record]]] = {
        "results": {SPLIT: rows.results},
        "details": {SPLIT: rows.details},
        "runs": {SPLIT: rows.runs},
    }
    outcome = BuildOutcome(records=records, findings=findings(rows.runs, rows.results, rows.details))
    return DatasetBuilder(
        name=name,
        history=history(rows.runs),
        pretty_name=f"{name} (evaluation results)",
        configs=CONFIGS,
        build=partial(_built, outcome),
        source_description="runs of `causal-datasets eval`, exported by `causal-datasets export-runs`",
        card_template=card_template(TEMPLATE),
        card_context=card_context,
        card_metadata=card_metadata,
        default_split=SPLIT,
        options=ExportFormat,
        citations=tuple(dict.fromkeys(key for b in used for key in b.citations)),
        metrics=tuple(dict.fromkeys(metric for b in used for metric in b.metrics)),
    )


def _built(outcome: BuildOutcome, context: BuildContext) -> BuildOutcome:
    return outcome


def history(runs: Sequence[ExportedRun]) -> list[Release]:
    """A release per version that added runs, naming them."""
    ordered = sorted(runs, key=lambda run: _version_key(run.added_in))
    by_version = itertools.groupby(ordered, key=lambda run: run.added_in)
    return [
        Release(
            version,
            f"{len(added)} run(s) added: "
            + "; ".join(f"{run.benchmark} {run.solver} (`{run.run_id}`)" for run in added),
        )
        for version, added in ((version, list(group)) for version, group in by_version)
    ]


def read_export(folder: Path, *, writing: bool = False) -> ExportedRows:
    """The rows of an export folder, its files checked against its manifest; with ``writing``, a folder holding
    files no export wrote is refused too. :class:`ExportError` for a folder that is not an export."""
    folder = Path(folder)
    if not (folder / MANIFEST).is_file():
        raise ExportError(f"{folder} exists and is not a results export (no {MANIFEST})")
    manifest = read_manifest(folder)
    options = manifest.get("options") or {}
    if options.get("kind") != EXPORT_KIND:
        raise ExportError(f"{folder} holds a build of {manifest.get('name')!r}, not a results export")
    if not isinstance(options.get("format"), int) or options["format"] > EXPORT_FORMAT:
        raise ExportError(
            f"{folder} is an export of format {options.get('format')!r}, written by causal-datasets "
            f"{manifest.get('package_version')}; this one reads format {EXPORT_FORMAT}"
        )
    if writing and (foreign := foreign_files(folder, manifest)):
        raise ExportError(f"{folder} holds {foreign}; move them away first")
    check_files(folder, manifest)
    return ExportedRows(manifest["version"], **{config: _read_config(folder, manifest, config) for config in CONFIGS})


def _read_config(folder: Path, manifest: dict, config: str) -> list:
    model = CONFIGS[config]
    features = model.features()
    paths = sorted(path for path in manifest["files"] if path.startswith(f"data/{config}/"))
    return [model.from_row(row, features) for path in paths for row in pq.read_table(folder / path).to_pylist()]
