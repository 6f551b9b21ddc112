"""The runs of an exported results dataset as the report reads runs: from its folder, or from the Hub.

``load_runs`` takes what ``causal-datasets report`` is given: a run folder, an export folder, or an export on the
Hub as ``hf://datasets/ORG/NAME@REVISION`` (the manifest, card and Parquet files of that revision are downloaded
into the Hub cache and checked against the manifest, as a benchmark read by Hub id is). Each exported run carries
its summary (from ``runs``) and its result lines (from ``details``), so tables, plots and examples come out as
from the run folder it was exported from.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from causal_datasets.errors import ExportError
from causal_datasets.exports.folder import CONFIGS, read_export
from causal_datasets.exports.rows import result_line
from causal_datasets.hub.layout import MANIFEST
from causal_datasets.hub.location import hub_snapshot
from causal_datasets.records.run_results import ItemDetail
from causal_datasets.report.runs import Run, load_run, parse_summary, validate_results
from causal_datasets.runners.records import ItemResult
from causal_datasets.runners.results import SUMMARY_FILE

#: how an export on the Hub is named: ``hf://datasets/ORG/NAME`` with an optional ``@REVISION``
HUB_PREFIX = "hf://datasets/"


@dataclass(frozen=True)
class RunFromExport(Run):
    """A run read from an export: ``path`` is the export's folder, ``source`` what it was given as."""

    run_id: str = ""
    source: str = ""
    lines: tuple[dict[str, Any], ...] = ()

    @property
    def label(self) -> str:
        return f"{self.summary.solver} ({self.run_id})"

    @property
    def where(self) -> str:
        return f"{self.source} run {self.run_id}"

    @cached_property
    def results(self) -> list[ItemResult[Any, Any]]:
        return validate_results(self.lines, self.where, self.task, self.format)


def load_runs(source: str | Path) -> list[Run]:
    """The runs of a run folder (one), an export folder, or ``hf://datasets/ORG/NAME@REVISION``."""
    text = str(source)
    if text.startswith(HUB_PREFIX):
        repo_id, _, revision = text.removeprefix(HUB_PREFIX).partition("@")
        if repo_id.count("/") != 1:
            raise ExportError(f"{text} does not name a Hub dataset: write hf://datasets/ORG/NAME@REVISION")
        folder = hub_snapshot(repo_id, revision or None, [f"data/{config}/*" for config in CONFIGS], text)
        return exported_runs(folder, text)
    folder = Path(source)
    if (folder / MANIFEST).is_file() and not (folder / SUMMARY_FILE).is_file():
        return exported_runs(folder, str(folder))
    return [load_run(folder)]


def exported_runs(folder: Path, source: str) -> list[Run]:
    """Every run of the export ``folder`` (``source``: how it was named), in the order the export holds them."""
    rows = read_export(folder)
    details: dict[str, list[ItemDetail]] = {run.run_id: [] for run in rows.runs}
    for detail in rows.details:
        details.setdefault(detail.run_id, []).append(detail)
    found: list[Run] = []
    for run in rows.runs:
        task, summary, layout = parse_summary(run.summary_json, f"{source} run {run.run_id}")
        lines = tuple(result_line(detail, layout) for detail in details[run.run_id])
        found.append(RunFromExport(path=folder, summary=summary, task=task, format=layout, run_id=run.run_id,
                                   source=source, lines=lines))
    return found
