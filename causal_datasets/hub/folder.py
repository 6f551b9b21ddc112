"""Write a built dataset as a hub-layout folder and read it back.

Layout (a valid Hugging Face dataset repository, loadable offline with ``load_dataset(folder, config)``)::

    <out>/<name>/README.md                         card: YAML front matter + Markdown body
    <out>/<name>/data/<config>/<split>-00000-of-00001.parquet   (a split of over ROWS_PER_FILE rows: several files)
    <out>/<name>/manifest.json                     version, seed, source, sha256 of every file

Files are byte-identical across rebuilds with the same version, seed and library versions: rows
keep the builder's order, Parquet is written with fixed settings, JSON and YAML are key-sorted or
ordered by the declaration, and nothing time-dependent is recorded.

A build is written into a hidden staging folder beside the target and moved into place only when
complete, so a failure (or a kill) mid-build leaves the previous build as it was; the staging
folders a killed build of the same dataset left are removed by the next one. A build never
replaces a folder that is not a build of the same dataset, nor one holding files no build wrote
(they would be deleted), nor drops configs the previous build had, unless told to (``replace=True``).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from datasets.arrow_writer import OptimizedTypedSequence
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData

from causal_datasets import staging
from causal_datasets.builder import BuildContext, BuildOutcome, DatasetBuilder, Finding
from causal_datasets.errors import DatasetFolderError, SourceFormatError
from causal_datasets.files import read_json, read_json_object, read_text
from causal_datasets.hub.build_key import build_key, file_sha256
from causal_datasets.hub.card import render_card
from causal_datasets.hub.front_matter import SplitFiles
from causal_datasets.hub.layout import CARD, MANIFEST, ROWS_PER_FILE, parquet_path
from causal_datasets.records.base import Record, records_from_dataset

_FRONT_MATTER = re.compile(r"---\n(.*?)\n---\n", re.S)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class WrittenDataset:
    """A build written to ``folder``: its rows per config and split, the builder's notes (configs left out,
    facts of the source) and its data-quality findings (the manifest lists them in full, the card up to 20 ids each)."""

    folder: Path
    row_counts: dict[str, dict[str, int]]
    notes: Sequence[str]
    findings: Sequence[Finding] = ()


def build_to_folder(
    builder: DatasetBuilder,
    out_root: Path,
    context: BuildContext,
    *,
    replace: bool = False,
    rows_per_file: int = ROWS_PER_FILE,
) -> WrittenDataset:
    """Run ``builder`` and write its hub folder ``out_root/<name>``, replacing an earlier build of it;
    a split of more than ``rows_per_file`` rows is written as several Parquet files.

    Raises :class:`DatasetFolderError` when the target is not a build of this dataset, holds files
    the build did not write (listed), or the new build lacks configs the old one has, unless
    ``replace``; :class:`SourceFormatError` when a split would have no rows.
    """
    target = Path(out_root) / builder.name
    if not replace:
        _check_target(target, builder.name)  # before the long work
    outcome: BuildOutcome = builder.build(context)
    if not outcome.records:
        raise ValueError(f"builder {builder.name!r} produced no configs")
    _check_rows(builder.name, outcome, context)
    if not replace:
        _check_configs(target, set(outcome.records))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging.remove_stale(target.parent, f"{builder.name}.{STAGING}")  # what a killed build left
    folder = Path(tempfile.mkdtemp(prefix=staging.prefix(f"{builder.name}.{STAGING}"), dir=target.parent))
    folder.chmod(0o755)  # mkdtemp's 0700 would make the published folder private
    try:
        written = _write(builder, outcome, context, folder, rows_per_file)
        _move_into_place(folder, target)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return WrittenDataset(target, written, tuple(outcome.notes), tuple(outcome.findings))


def _check_target(target: Path, name: str) -> None:
    """``target`` is absent or an earlier build of ``name`` holding only the files it wrote."""
    if not target.exists():
        return
    hint = "move it away or pass --force (replace=True) to overwrite it"
    if not (target / MANIFEST).is_file():
        raise DatasetFolderError(f"{target} exists and is not a build (no {MANIFEST}); {hint}")
    previous = read_manifest(target)
    if previous.get("name") != name:
        raise DatasetFolderError(f"{target} holds a build of {previous.get('name')!r}, not {name!r}; {hint}")
    foreign = foreign_files(target, previous)
    if foreign:
        raise DatasetFolderError(f"{target} holds {foreign}; {hint}")


def foreign_files(folder: Path, manifest: dict) -> str | None:
    """The files of ``folder`` its manifest does not list (which a rebuild would delete), named for a message;
    None when there are none."""
    written = {*manifest.get("files", {}), MANIFEST}
    foreign = sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if not path.is_dir() and path.relative_to(folder).as_posix() not in written
    )
    if not foreign:
        return None
    shown = ", ".join(foreign[:10]) + (f", ... ({len(foreign)} in all)" if len(foreign) > 10 else "")
    return f"{len(foreign)} file(s) no build wrote, which a rebuild would delete: {shown}"


def _check_configs(target: Path, configs: set[str]) -> None:
    if not target.exists():
        return
    dropped = sorted(set(read_manifest(target)["rows"]) - configs)
    if dropped:
        raise DatasetFolderError(
            f"{target} has {len(dropped)} config(s) this build would drop ({', '.join(dropped[:5])}"
            f"{', ...' if len(dropped) > 5 else ''}): give the source they came from, "
            "or --force (replace=True) to drop them"
        )


def _check_rows(name: str, outcome: BuildOutcome, context: BuildContext) -> None:
    """Every split has rows: an empty one comes from a source without any (the builders check theirs first)."""
    for config, splits in outcome.records.items():
        for split, records in splits.items():
            if not records:
                source = context.source if context.source is not None else f"the {name} generator"
                raise SourceFormatError(f"{source}: {name} config {config!r} split {split!r} would have no rows")


#: the hidden folders beside a build: ``.NAME.building.PID-*`` while one is written, ``.NAME.old.PID-*``
#: while the old build is replaced (:mod:`causal_datasets.staging`)
STAGING, OLD = "building", "old"


def _move_into_place(complete: Path, target: Path) -> None:
    """Replace ``target`` by the ``complete`` staging folder: one atomic exchange of the two where the system has
    it (a reader sees the old folder or the new one, never none), else two renames; the old build is deleted last
    (with any old build a killed run left between its renames)."""
    if target.exists() and staging.exchange(complete, target):
        shutil.rmtree(complete)  # the old build, now under the staging name
    elif target.exists():
        old = Path(tempfile.mkdtemp(prefix=staging.prefix(f"{target.name}.{OLD}"), dir=target.parent))
        old.rmdir()
        target.rename(old)
        complete.rename(target)
        shutil.rmtree(old)
    else:
        complete.rename(target)
    staging.remove_stale(target.parent, f"{target.name}.{OLD}")


def _write(
    builder: DatasetBuilder, outcome: BuildOutcome, context: BuildContext, folder: Path, rows_per_file: int
) -> dict[str, dict[str, int]]:
    """Parquet per config and split, the card and the manifest, into ``folder``; returns the row counts."""
    (folder / "data").mkdir()

    splits_written: dict[str, dict[str, SplitFiles]] = {}
    features_by_config: dict[str, datasets.Features] = {}
    for config, splits in outcome.records.items():
        model = builder.configs.get(config)
        if model is None:
            raise ValueError(f"builder {builder.name!r} built undeclared config {config!r}")
        features = model.features()
        features_by_config[config] = features
        splits_written[config] = {}
        for split, records in splits.items():
            _check_types(builder.name, config, split, model, records)
            splits_written[config][split] = _write_parquet(
                arrow_table(records, features), folder, config, split, rows_per_file
            )

    source = outcome.source_description or builder.source_description
    card = render_card(builder, outcome, features_by_config, splits_written, source, context.seed)
    row_counts = {
        config: {split: files.rows for split, files in splits.items()} for config, splits in splits_written.items()
    }
    (folder / CARD).write_text(card, encoding="utf-8")
    manifest = {
        "name": builder.name,
        **build_key(builder, context),
        "source": source,
        "rows": row_counts,
        "notes": build_notes(outcome),
        "files": {
            p.relative_to(folder).as_posix(): file_sha256(p)
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != MANIFEST
        },
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return row_counts


def arrow_table(records: Sequence[Record], features: datasets.Features) -> pa.Table:
    """The records as the Arrow table ``datasets.Dataset.from_list(rows, features)`` holds: each column encoded
    by ``features`` and typed by ``datasets``' own sequence (so the same buffers, ``nbytes`` and Parquet bytes),
    the table built without a ``Dataset`` and so without its fingerprint, which hashes the whole table."""
    rows = [record.to_row() for record in records]
    columns = {
        name: OptimizedTypedSequence(features.encode_column([row[name] for row in rows], name), type=feature, col=name)
        for name, feature in features.items()
    }
    schema = features.arrow_schema
    table = pa.Table.from_pydict(columns)
    return (table if table.schema == schema else table.cast(schema)).replace_schema_metadata(schema.metadata)


def _write_parquet(table: pa.Table, folder: Path, config: str, split: str, rows_per_file: int) -> SplitFiles:
    """One split as Parquet files of at most ``rows_per_file`` rows each (one file for an empty split)."""
    shards = max(1, -(-table.num_rows // rows_per_file))
    file_bytes = 0
    for shard in range(shards):
        path = folder / parquet_path(config, split, shard, shards)
        path.parent.mkdir(parents=True, exist_ok=True)
        part = table.slice(shard * rows_per_file, rows_per_file)
        pq.write_table(part, path, compression="zstd", use_dictionary=False, write_statistics=True)
        file_bytes += path.stat().st_size
    return SplitFiles(table.num_rows, table.nbytes, file_bytes, shards)


def build_notes(outcome: BuildOutcome) -> list[str]:
    """What the CLI prints and the manifest keeps: the builder's notes, then one line per finding."""
    return [*outcome.notes, *(finding.note() for finding in outcome.findings)]


def read_manifest(folder: Path) -> dict:
    missing = f"{folder} is not a built dataset folder (no {MANIFEST}); run `causal-datasets build`"
    return read_json_object(Path(folder) / MANIFEST, DatasetFolderError, missing, "a manifest")


def current_build(builder: DatasetBuilder, out_root: Path, context: BuildContext) -> Path | None:
    """The folder ``out_root/<name>`` when it holds exactly the build ``context`` asks for (its manifest's
    :func:`~.build_key.build_key` the request's, every file as the manifest lists it), else None."""
    folder = Path(out_root) / builder.name
    try:
        manifest = read_json(folder / MANIFEST, DatasetFolderError)
        key = build_key(builder, context)
        if manifest.get("name") != builder.name or any(
            k not in manifest or manifest[k] != value for k, value in key.items()
        ):
            return None
        check_files(folder, manifest)
    except (OSError, ValueError, DatasetFolderError, AttributeError, KeyError, TypeError):
        return None  # absent, unreadable, another build or changed since: not current
    return folder


def check_files(folder: Path, manifest: dict, prefix: str = "") -> None:
    """Every manifest file under ``prefix`` is present with its recorded sha256 (else :class:`DatasetFolderError`)."""
    for relative, digest in manifest["files"].items():
        if not relative.startswith(prefix):
            continue
        path = Path(folder) / relative
        if not path.is_file():
            raise DatasetFolderError(f"{folder} lacks {relative}, which its manifest lists")
        if file_sha256(path) != digest:
            raise DatasetFolderError(f"{folder}/{relative} does not match its manifest sha256")


def verify_folder(folder: Path) -> dict[str, dict[str, int]]:
    """Load every config back (offline) and check rows and sha256 against the manifest.

    The default config is loaded exactly as a user does, ``load_dataset(folder, config)``; the
    others are read from the ``data_files`` their card declares, each file's features checked
    against the card's (``load_dataset`` for each of them would parse the whole card again, hash
    the features and copy the files into the cache: most of a CausaLab build)."""
    manifest = read_manifest(folder)
    check_files(folder, manifest)
    card = _card_data(Path(folder) / CARD)
    declared, infos = MetadataConfigs.from_dataset_card_data(card), DatasetInfosDict.from_dataset_card_data(card)
    loaded: dict[str, dict[str, int]] = {}
    for index, (config, splits) in enumerate(manifest["rows"].items()):
        if index == 0:
            dataset_dict = datasets.load_dataset(str(folder), config)
            loaded[config] = {split: dataset_dict[split].num_rows for split in dataset_dict}
        else:
            features = infos[config].features
            loaded[config] = {
                entry["split"]: _read_rows(_listed(folder, entry["path"]), features)
                for entry in declared[config]["data_files"]
            }
        if loaded[config] != splits:
            raise DatasetFolderError(f"{folder} config {config!r}: loaded rows {loaded[config]} != manifest {splits}")
    return loaded


def _card_data(path: Path) -> DatasetCardData:
    """The front matter of a written card, read with libyaml's loader (the Hub's card class uses the
    pure-Python one: 7× slower on CausaLab's card)."""
    front = _FRONT_MATTER.match(read_text(path, DatasetFolderError))
    if front is None:
        raise DatasetFolderError(f"{path} has no YAML front matter")
    try:
        data = yaml.load(front[1], Loader=_YAML_LOADER)
    except yaml.YAMLError as error:
        raise DatasetFolderError(f"{path}: its front matter is not YAML ({error})") from None
    if not isinstance(data, dict):
        raise DatasetFolderError(f"{path}: its front matter is not a mapping of card fields")
    return DatasetCardData(**data)


def _read_rows(paths: list[str], features: datasets.Features) -> int:
    """Rows of one split read back from its Parquet files, whose features must be the card's."""
    rows = 0
    for path in paths:
        table = pq.read_table(path)
        if datasets.Features.from_arrow_schema(table.schema) != features:
            raise DatasetFolderError(f"{path} holds other features than its card declares")
        rows += table.num_rows
    return rows


def _listed(folder: Path, paths: str | list[str]) -> list[str]:
    return [str(Path(folder) / path) for path in ([paths] if isinstance(paths, str) else paths)]


def load_records(folder: Path, config: str, split: str, model: type[Record]) -> list[Record]:
    """Typed records of one split of a built folder (or hub repo id), via ``load_dataset``."""
    return records_from_dataset(datasets.load_dataset(str(folder), config, split=split), model)


def _check_types(name: str, config: str, split: str, model: type[Record], records: Sequence[Record]) -> None:
    for index, record in enumerate(records):
        if not isinstance(record, model):
            raise TypeError(
                f"{name}/{config}/{split} row {index} is {type(record).__name__}, expected {model.__name__}"
            )
