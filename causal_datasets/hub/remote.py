"""A build published to an fsspec location that is not a local folder (``build --hub-dir s3://BUCKET/hub``,
``gs://``, ``memory://`` ...).

The build is written and loaded back in a local temporary folder (:func:`~.folder.build_to_folder`, the same
bytes as a local build), then copied file by file: the old manifest is removed first, the data files and the
card are put (an object store makes each object visible only once its upload is complete), files the new
manifest does not list are deleted, every copied file is read back and checked against the manifest's
sha256, and the manifest is put last, so a folder with a manifest holds a complete build (a kill mid-copy
leaves a folder without one, which the next build replaces with ``--force``). Without ``replace`` the
target must be absent or a build of the same dataset holding only the files its manifest lists (as for a
local folder).
A ``file://`` URL is a local folder (:func:`hub_root`), written with the local folder's atomic swap.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import fsspec
from fsspec.utils import get_protocol

from causal_datasets.builder import BuildContext, DatasetBuilder
from causal_datasets.errors import DatasetFolderError
from causal_datasets.hub.build_key import file_sha256
from causal_datasets.hub.folder import WrittenDataset, build_to_folder, read_manifest, verify_folder
from causal_datasets.hub.layout import MANIFEST


def hub_root(text: str) -> Path | str:
    """Where built folders go: a local folder (a path or a ``file://`` URL) as a Path, another fsspec URL as is."""
    if "://" not in text or get_protocol(text) in ("file", "local"):
        return Path(text.removeprefix("file://"))
    return text


def build_to_url(
    builder: DatasetBuilder, root: str, context: BuildContext, *, replace: bool = False
) -> tuple[WrittenDataset, dict[str, dict[str, int]], str]:
    """Build ``builder`` into ``root/<name>`` (an fsspec URL, see the module): what was written (its ``folder``,
    the local copy, is gone on return), the rows loaded back per config and split, and the target's URL."""
    fs, path = fsspec.core.url_to_fs(root)
    target = f"{path.rstrip('/')}/{builder.name}"
    url = fs.unstrip_protocol(target)
    if not replace:
        _check_target(fs, target, url, builder.name)
    with tempfile.TemporaryDirectory(prefix="causal-datasets-remote-") as local:
        written = build_to_folder(builder, Path(local), context, replace=True)
        loaded = verify_folder(written.folder)
        manifest = read_manifest(written.folder)
        listed = set(manifest["files"])
        if fs.exists(f"{target}/{MANIFEST}"):
            fs.rm(f"{target}/{MANIFEST}")
        for relative in sorted(listed):
            fs.put_file(str(written.folder / relative), f"{target}/{relative}")
        for stale in sorted(set(_files(fs, target)) - listed - {MANIFEST}):
            fs.rm(f"{target}/{stale}")
        for relative, digest in manifest["files"].items():
            if file_sha256(f"{target}/{relative}", fs.open) != digest:
                raise DatasetFolderError(f"{url}/{relative} does not hold the bytes the build wrote after the copy")
        fs.put_file(str(written.folder / MANIFEST), f"{target}/{MANIFEST}")
    return written, loaded, url


def _check_target(fs: fsspec.AbstractFileSystem, target: str, url: str, name: str) -> None:
    """``target`` is absent or an earlier build of ``name`` holding only the files its manifest lists."""
    present = _files(fs, target)
    if not present:
        return
    hint = "move it away or pass --force to overwrite it"
    if MANIFEST not in present:
        raise DatasetFolderError(f"{url} exists and is not a build (no {MANIFEST}); {hint}")
    try:
        manifest = json.loads(fs.cat_file(f"{target}/{MANIFEST}"))
        listed = {*manifest["files"], MANIFEST}
    except (ValueError, KeyError, TypeError) as error:
        raise DatasetFolderError(f"{url}/{MANIFEST} is not a manifest ({error}); {hint}") from None
    if manifest.get("name") != name:
        raise DatasetFolderError(f"{url} holds a build of {manifest.get('name')!r}, not {name!r}; {hint}")
    foreign = sorted(set(present) - listed)
    if foreign:
        shown = ", ".join(foreign[:3])
        raise DatasetFolderError(f"{url} holds {len(foreign)} file(s) no build wrote ({shown}); {hint}")


def _files(fs: fsspec.AbstractFileSystem, folder: str) -> list[str]:
    """The files under ``folder``, relative to it (none when it is absent)."""
    if not fs.exists(folder):
        return []
    return sorted(path[len(folder.rstrip("/")) + 1 :] for path in fs.find(folder))
