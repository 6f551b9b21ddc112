"""A run as the report reads it: its typed ``summary.json`` and, on demand, its ``results.jsonl``.

A run comes from a run folder (:func:`load_run`) or from an exported results dataset
(:mod:`causal_datasets.exports.reading`, whose runs carry their result lines with them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from causal_datasets import __version__
from causal_datasets.errors import RunFolderError
from causal_datasets.runners.records import SUMMARY_FORMAT, ItemResult, RunSummary
from causal_datasets.runners.results import RESULTS_FILE, SUMMARY_FILE, read_results


@dataclass(frozen=True)
class Run:
    path: Path
    summary: RunSummary

    @property
    def benchmark(self) -> str:
        return self.summary.benchmark

    @property
    def label(self) -> str:
        """Who answered, then the folder: ``agent:oracle (sw-oracle)``."""
        return f"{self.summary.solver} ({self.path.name})"

    @property
    def where(self) -> str:
        """Where the run was read from, for tables and messages."""
        return str(self.path)

    @cached_property
    def results(self) -> list[ItemResult]:
        """The latest line of each item of ``results.jsonl``, validated."""
        lines = {line["id"]: line for line in read_results(self.path / RESULTS_FILE)}
        return validate_results(lines.values(), str(self.path / RESULTS_FILE))


def validate_results(lines: Iterable[Mapping[str, Any]], where: str) -> list[ItemResult]:
    """Result lines as :class:`ItemResult` s; the first invalid one is a :class:`RunFolderError` naming ``where``."""
    items = []
    for number, line in enumerate(lines, start=1):
        try:
            items.append(ItemResult.model_validate(line))
        except ValidationError as error:
            raise RunFolderError(f"{where} item #{number} (id={line['id']!r}): {_first_problem(error)}") from None
    return items


def load_run(path: Path) -> Run:
    """Read and validate a run folder's ``summary.json``; every problem is one line naming the file."""
    path = Path(path)
    summary_path = path / SUMMARY_FILE
    if not summary_path.exists():
        raise RunFolderError(f"{path} has no {SUMMARY_FILE}; is it a finished `causal-datasets eval` run?")
    return Run(path=path, summary=parse_summary(summary_path.read_text(encoding="utf-8"), str(summary_path)))


def parse_summary(text: str, where: str) -> RunSummary:
    """A ``summary.json`` text as a :class:`RunSummary`: not JSON, an old or newer format or an invalid summary is
    a :class:`RunFolderError` naming ``where``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RunFolderError(f"{where} is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise RunFolderError(f"{where} is not a run summary (a JSON object)")
    _check_format(where, data)
    try:
        return RunSummary.model_validate_json(text)
    except ValidationError as error:
        raise RunFolderError(f"{where} is not a valid run summary: {_first_problem(error)}") from None


def _check_format(summary_path: str, data: dict) -> None:
    layout = data.get("format")
    if layout is None and "run" not in data and "metrics" not in data:
        raise RunFolderError(f"{summary_path} has no 'format' key: it is not a summary written by `causal-datasets eval`")
    if layout is None or layout == 1:
        run = data.get("run")
        writer = run.get("package_version") if isinstance(run, dict) else None
        raise RunFolderError(
            f"{summary_path} has the old untyped layout written by causal-datasets {writer or '0.1 or earlier'}; "
            f"re-run it with causal-datasets {__version__} (`causal-datasets eval ... --resume` into the same "
            "folder rewrites the summary from its results)"
        )
    if isinstance(layout, int) and layout > SUMMARY_FORMAT:
        raise RunFolderError(
            f"{summary_path} has summary format {layout}, written by a newer causal-datasets; "
            f"this one ({__version__}) reads format {SUMMARY_FORMAT}: upgrade causal-datasets to report it"
        )


def _first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "<top level>"
    more = error.error_count() - 1
    return f"field '{where}': {first['msg']}" + (f" (and {more} more)" if more else "")
