"""What a build is a function of, as its manifest records it: the dataset version, the package version, the
seed, the build options and the source's contents (one sha256 over its files). A folder whose manifest
records the same key and whose files match the manifest holds the bytes a rebuild would write (builds
are byte-identical), so ``build`` keeps it (``hub.folder.current_build``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from causal_datasets.builder import BuildContext, DatasetBuilder


def source_sha256(source: Path | None) -> str | None:
    """One sha256 over a source's contents: a file's bytes, or each file of a folder (hidden ones aside) with
    its relative path, in path order; None without a source."""
    if source is None:
        return None
    source = Path(source)
    if source.is_file():
        return file_sha256(source)
    digest = hashlib.sha256()
    for path in sorted(p for p in source.rglob("*") if p.is_file() and not _hidden(p.relative_to(source))):
        digest.update(f"{path.relative_to(source).as_posix()}\0{file_sha256(path)}\n".encode())
    return digest.hexdigest()


def build_key(builder: DatasetBuilder, context: BuildContext) -> dict[str, Any]:
    """What a build's rows are a function of, as its manifest records it."""
    from causal_datasets import __version__

    key: dict[str, Any] = {
        "version": builder.version,
        "package_version": __version__,
        "seed": context.seed,
        "source_sha256": source_sha256(context.source),
    }
    if builder.options is not None:
        key["options"] = (context.options or builder.options()).model_dump(mode="json")
    return key


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def file_sha256(path: Path | str, open_file: Callable[..., Any] = open) -> str:
    """The sha256 of a file's bytes, read a megabyte at a time (``open_file``: e.g. an fsspec file system's)."""
    digest = hashlib.sha256()
    with open_file(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
