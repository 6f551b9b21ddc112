"""The published ReCAST release (``RyanSaklad/ReCast``, ``test.parquet``) → typed samples.

The release stores each node's explicitness as a JSON string ``{node: 1 | 2 | 3}`` (explicit,
implicit, absent) and the graph as ``nodes`` plus ``edges`` ``[{source, target}]``. Every check
in :data:`CHECKS` runs on every row and is reported as a :class:`Finding` (with the sample ids it
concerns, none when it found nothing); nothing is fixed silently: the derived fields always come
from the graph, the graph is kept as annotated, and the stored ``explicitness`` share is kept as
released.
"""

from __future__ import annotations

import datetime
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from causal_datasets.builder import Finding, reading_source
from causal_datasets.errors import SourceFormatError, SourceUnavailable
from causal_datasets.recast.records import EXPLICITNESS_LEVELS, UNLABELED, RecastSample
from causal_datasets.recast.samples import make_sample

RELEASE_REPO = "RyanSaklad/ReCast"
RELEASE_FILE = "test.parquet"
#: stored counts may differ from the graph by float rounding only
_SHARE_TOLERANCE = 1e-6
#: data-quality checks of a release row: name → (what is wrong, what the import does about it)
CHECKS = {
    "stored_counts": ("stored `num_nodes` or `num_edges` differs from the graph", "recomputed from the graph"),
    "unlabeled": (
        "nodes without an explicitness code, although the paper says every node was labelled",
        "kept with explicitness `unlabeled` and counted in `num_unlabeled_nodes`; as the paper defines the degree "
        "of confounding over all nodes, such a node counts as not explicit (lenient) and not absent (strict)",
    ),
    "stray_labels": ("explicitness codes for names that are not nodes of the sample", "dropped"),
    "stored_share": (
        "stored `explicitness` differs from the share of explicit nodes among the labelled ones (its denominator "
        "counts the stray codes)",
        "kept as released; the degrees of confounding are computed from the node labels",
    ),
    "repeated_edges": ("an edge listed more than once", "kept as annotated, counted in `num_duplicate_edges`"),
    "self_loops": ("a self-loop (an edge from a node to itself)", "kept as annotated"),
}


class ReleaseFormatError(SourceFormatError):
    """A release row cannot be read (missing column, unknown explicitness code, bad edge)."""


@dataclass(frozen=True)
class ReleaseImport:
    samples: list[RecastSample]
    findings: list[Finding]


def locate_release(source: Path | None, download: Callable[[], Path] | None = None) -> Path:
    """The release Parquet: ``source`` (a file, or a folder holding ``test.parquet``) or a hub download.

    Raises :class:`SourceUnavailable` saying how to provide it when neither works.
    """
    hint = f"pass --source path/to/{RELEASE_FILE} (a copy of the {RELEASE_REPO} release) or go online"
    if source is not None:
        path = source / RELEASE_FILE if source.is_dir() else source
        if not path.exists():
            raise SourceUnavailable(f"{path} does not exist; {hint}")
        return path
    try:
        return (download or download_release)()
    except Exception as error:  # offline, unauthenticated, hub outage: all mean "not available"
        raise SourceUnavailable(f"could not download {RELEASE_REPO}/{RELEASE_FILE} ({error}); {hint}") from error


def download_release() -> Path:
    """Fetch the release file into the huggingface_hub cache and return its path."""
    from huggingface_hub import hf_hub_download

    return Path(hf_hub_download(RELEASE_REPO, RELEASE_FILE, repo_type="dataset"))


#: the release columns the import reads (``publication_date`` and the stored counts may be absent)
COLUMNS = ("id", "title", "source", "url", "domains", "nodes", "edges", "node_explicitness", "input_text", "abstract")


def read_release(path: Path) -> ReleaseImport:
    """Every row of the release Parquet as a :class:`RecastSample`, in id order, and one finding per check.

    A file without rows, without a column the import reads, or with an id on more than one row is a
    :class:`ReleaseFormatError` naming the file (and the columns or ids)."""
    found: dict[str, list[str]] = {check: [] for check in CHECKS}
    with reading_source(path):  # pyarrow's errors are ValueError/OSError subclasses
        table = pq.read_table(path)
        missing = [column for column in COLUMNS if column not in table.column_names]
        if missing:
            raise ReleaseFormatError(f"{path} lacks the release column(s) {', '.join(missing)}")
        if table.num_rows == 0:
            raise ReleaseFormatError(f"{path} has no rows: a release holds one row per paper")
        rows = table.to_pylist()
        repeated = sorted((str(key) for key, count in Counter(row["id"] for row in rows).items() if count > 1), key=str)
        if repeated:
            shown = ", ".join(repeated[:10]) + (", ..." if len(repeated) > 10 else "")
            raise ReleaseFormatError(f"{path}: {len(repeated)} id(s) on more than one row: {shown}")
        try:
            samples = [sample_from_row(row, found) for row in sorted(rows, key=lambda r: int(r["id"]))]
        except ReleaseFormatError as error:
            raise ReleaseFormatError(f"{path}: {error}") from error
    findings = [Finding("default", *CHECKS[check], ids=tuple(ids), unit="samples") for check, ids in found.items()]
    return ReleaseImport(samples, findings)


def sample_from_row(row: dict[str, Any], found: dict[str, list[str]]) -> RecastSample:
    """One release row → sample; the id is added to ``found[check]`` for every check it fails."""
    try:
        sample_id = int(row["id"])
        codes = json.loads(row["node_explicitness"])
        nodes = [(name, _level(codes.get(name), name, sample_id)) for name in row["nodes"]]
        edges = [(edge["source"], edge["target"]) for edge in row["edges"]]
        sample = make_sample(
            id=sample_id,
            title=row["title"],
            source=row["source"],
            url=row["url"],
            publication_date=_date(row.get("publication_date")),
            domains=row["domains"],
            nodes=nodes,
            edges=edges,
            input_text=row["input_text"],
            abstract=row["abstract"] or "",
            explicitness=row.get("explicitness"),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ReleaseFormatError(f"release row id={row.get('id')!r}: {error}") from error
    for check in _failed_checks(row, codes, sample):
        found[check].append(str(sample.id))
    return sample


def _level(code: Any, name: str, sample_id: int) -> str:
    if code is None:
        return UNLABELED
    if int(code) not in (1, 2, 3):
        raise ReleaseFormatError(f"sample {sample_id}: node {name!r} has explicitness code {code}, expected 1, 2 or 3")
    return EXPLICITNESS_LEVELS[int(code) - 1]


def _date(value: Any) -> datetime.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    return datetime.date.fromisoformat(str(value)[:10])


def _failed_checks(row: dict[str, Any], codes: dict[str, Any], sample: RecastSample) -> Iterable[str]:
    """The names of the :data:`CHECKS` one row fails."""
    stored = (row.get("num_nodes"), row.get("num_edges"))
    if any(
        value is not None and int(value) != derived
        for value, derived in zip(stored, (sample.num_nodes, sample.num_edges), strict=True)
    ):
        yield "stored_counts"
    if sample.num_unlabeled_nodes:
        yield "unlabeled"
    if set(codes) - set(row["nodes"]):
        yield "stray_labels"
    stored_share = row.get("explicitness")
    labeled = [n.explicitness for n in sample.nodes if n.explicitness != UNLABELED]
    if (
        stored_share is not None
        and labeled
        and (abs(float(stored_share) - labeled.count("explicit") / len(labeled)) > _SHARE_TOLERANCE)
    ):
        yield "stored_share"
    if sample.num_duplicate_edges:
        yield "repeated_edges"
    if any(edge.source == edge.target for edge in sample.edges):
        yield "self_loops"


def sample_to_row(sample: RecastSample) -> dict[str, Any]:
    """A sample as a release row (the inverse of :func:`sample_from_row` for the release's columns)."""
    labeled = [n for n in sample.nodes if n.explicitness != UNLABELED]
    return {
        "id": sample.id,
        "title": sample.title,
        "source": sample.source,
        "url": sample.url,
        "domains": list(sample.domains),
        "num_nodes": sample.num_nodes,
        "num_edges": sample.num_edges,
        "explicitness": sample.explicitness,
        "nodes": sample.node_names(),
        "edges": [{"source": e.source, "target": e.target} for e in sample.edges],
        "node_explicitness": json.dumps(
            {n.name: EXPLICITNESS_LEVELS.index(n.explicitness) + 1 for n in labeled}, ensure_ascii=False
        ),
        "input_text": sample.input_text,
        "abstract": sample.abstract,
        "publication_date": f"{sample.publication_date.isoformat()}T00:00:00Z" if sample.publication_date else None,
    }


def write_release(samples: Iterable[RecastSample], path: Path) -> Path:
    """Write samples as a Parquet file in the release's layout (readable by :func:`read_release`)."""
    table = pa.Table.from_pylist([sample_to_row(s) for s in samples])
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd")
    return path
