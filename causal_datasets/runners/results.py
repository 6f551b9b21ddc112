"""A run folder's files: ``results.jsonl`` (one line per item) and ``summary.json``.

Results are appended line by line and flushed the moment an item ends, so a kill loses at most the
items in flight; a torn last line is skipped when read. Lines are never rewritten in place: at the
end of every invocation the file is compacted to the latest line per item by writing a new file,
syncing it and renaming it over the old one, so a kill at any moment leaves either the old file or
the new one. ``summary.json`` is written the same way, and so is ``settings.json``, the calls' settings
kept once per run (:mod:`causal_datasets.runners.call_settings`), before the first line that refers to
them. Every file is written with the secrets the process holds redacted
(:func:`causal_datasets.secret_values.scrub`). The temporary files of an invocation that
was killed while writing are removed by the next one (:mod:`causal_datasets.staging`).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from causal_datasets import staging
from causal_datasets.errors import ResultsExist, RunConfigurationError, RunFolderError
from causal_datasets.files import JsonLines, read_bytes, read_json, read_json_lines, read_json_object
from causal_datasets.llm.concurrency import map_concurrent
from causal_datasets.runners.call_settings import SETTINGS_FILE, by_reference
from causal_datasets.runners.records import SUMMARY_FORMAT, ItemResult, RunSummary
from causal_datasets.runners.registry import get_task
from causal_datasets.secret_values import scrub

if TYPE_CHECKING:
    from causal_datasets.runners.task import Task

Item = TypeVar("Item")

RESULTS_FILE = "results.jsonl"
#: how a lone surrogate (which UTF-8 cannot encode) is written: as its JSON escape, e.g. \ud800
ESCAPE = "backslashreplace"
SUMMARY_FILE = "summary.json"
RESUME_HINT = "pass --resume to continue or choose another --out"
#: what the message of a results file with an unreadable line suggests
UNREADABLE_HINT = "the run lost that item's result: `causal-datasets eval ... --resume` into its folder runs it again"


class ResultsLog:
    """The results of one run folder, by item id (the latest line of each)."""

    def __init__(self, out_dir: Path, *, resume: bool, model: type[BaseModel], hint: str = RESUME_HINT):
        """``hint``: what the message of an ``out_dir`` that holds results suggests."""
        check_out(out_dir, resume=resume, hint=hint)
        self.path = Path(out_dir) / RESULTS_FILE
        self.items: dict[str, dict[str, Any]] = {}
        for line in read_results(self.path):
            try:
                model.model_validate(line)
            except ValidationError as error:
                where = ".".join(str(part) for part in error.errors()[0]["loc"])
                raise RunFolderError(
                    f"{self.path} was written by another causal-datasets (field '{where}': "
                    f"{error.errors()[0]['msg']}); start a new run in another --out"
                ) from None
            self.items[line["id"]] = line
        self.settings = read_settings(out_dir)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for name in (RESULTS_FILE, SUMMARY_FILE, SETTINGS_FILE):  # temporary files a killed invocation left
            staging.remove_stale(self.path.parent, name)
        self._torn = self.path.exists() and not read_bytes(self.path, RunFolderError).endswith(b"\n")
        self._lock = threading.Lock()

    def needs_run(self, item_id: str) -> bool:
        """True for an item with no result yet or one a model/transport error ended; never for a scored one."""
        line = self.items.get(item_id)
        return line is None or line["status"] == "failed"

    def append(self, line: dict[str, Any]) -> None:
        """Write one result line at the end of the file (thread-safe, flushed; its calls' settings by reference,
        secrets redacted) and keep it as the item's latest."""
        with self._lock:
            line, added = by_reference(line, self.settings)
            if added:  # the settings first: no line refers to settings the folder does not hold
                _write_atomic(self.path.parent / SETTINGS_FILE, _json_text(self.settings, indent=2))
            text = _json_text(line)
            with open(self.path, "a", encoding="utf-8", errors=ESCAPE) as handle:
                if self._torn:  # a crash left half a line: start on a fresh one
                    handle.write("\n")
                    self._torn = False
                handle.write(text)
                handle.flush()
            self.items[line["id"]] = line

    def record_all(
        self,
        items: Sequence[Item],
        work: Callable[[Item], dict[str, Any]],
        *,
        concurrency: int,
        desc: str,
        progress: bool | None = None,
    ) -> None:
        """Run ``work`` (which returns a result line and never raises) over ``items`` concurrently,
        appending each line the moment it is done."""
        outcomes = map_concurrent(
            lambda item: self.append(work(item)), items, concurrency=concurrency, desc=desc, progress=progress
        )
        errors = [o for o in outcomes if isinstance(o, Exception)]
        if errors:  # writing a line failed (disk full, unwritable folder): nothing more can be kept
            raise errors[0]

    def compact(self) -> None:
        """Rewrite the file atomically with only the latest line of each item (in first-seen order)."""
        with self._lock:
            _write_atomic(self.path, "".join(_json_text(line) for line in self.items.values()))
            self._torn = False


def check_out(out_dir: Path, *, resume: bool = False, hint: str = RESUME_HINT) -> None:
    """``out_dir`` can be a run folder (no file of that name) that holds no results unless ``resume``; else a
    :class:`RunConfigurationError` (:class:`ResultsExist` suggesting ``hint``). Creates nothing."""
    if Path(out_dir).exists() and not Path(out_dir).is_dir():
        raise RunConfigurationError(f"{out_dir} is a file, not a run folder; choose another --out")
    path = Path(out_dir) / RESULTS_FILE
    if path.exists() and path.stat().st_size and not resume:
        raise ResultsExist(f"{path} already has results; {hint}")


def read_result_lines(path: Path) -> JsonLines:
    """The lines of a results file (or of ``<run folder>/results.jsonl``) with those that cannot be read apart
    (:func:`causal_datasets.files.read_json_lines`); a reader that must see every line calls
    :func:`check_result_lines`."""
    path = Path(path)
    return read_json_lines(path / RESULTS_FILE if path.is_dir() else path)


def read_results(path: Path) -> list[dict[str, Any]]:
    """Every readable line of a results file (or of ``<run folder>/results.jsonl``): what the writer resumes from,
    skipping a line a crash tore mid-write (its item runs again)."""
    return read_result_lines(path).values


def check_result_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a results file, each of which must be readable: a torn or corrupted one is a
    :class:`RunFolderError` naming it (a run that lost lines is not exported, re-scored or compared as if whole)."""
    return read_result_lines(path).check(RunFolderError, UNREADABLE_HINT).values


def check_counts(
    results: list[ItemResult[Any, Any]], summary: RunSummary[Any], where: Path | str
) -> list[ItemResult[Any, Any]]:
    """``results`` when they are the ones ``summary`` counts (as many scored and failed items, of its configs); else
    a :class:`RunFolderError`: a summary over other results (another run's, a run killed before it wrote its
    summary, lines lost) is never read as if it were theirs."""
    scored = sum(result.status == "scored" for result in results)
    counted = (summary.items.scored, summary.items.failed)
    if (scored, len(results) - scored) != counted:
        raise RunFolderError(
            f"{where} holds {scored} scored and {len(results) - scored} failed items, its {SUMMARY_FILE} counts "
            f"{counted[0]} and {counted[1]}: the two files are not of one run (`causal-datasets eval ... --resume` "
            "into the folder writes the summary of its results)"
        )
    configs = set(summary.dataset.configs)
    foreign = next((result for result in results if result.config not in configs), None)
    if foreign is not None:
        raise RunFolderError(
            f"{where} item {foreign.id!r} is of config {foreign.config!r}, which the run ({SUMMARY_FILE}: "
            f"{', '.join(summary.dataset.configs)}) did not ask for: the two files are not of one run"
        )
    return results


def read_settings(run_dir: Path) -> dict[str, Any]:
    """The run folder's ``settings.json`` (:mod:`causal_datasets.runners.call_settings`); empty when it has none."""
    path = Path(run_dir) / SETTINGS_FILE
    if not path.exists():
        return {}
    table = read_json(path, RunFolderError)
    if not isinstance(table, dict) or not all(isinstance(value, dict) for value in table.values()):
        raise RunFolderError(f"{path} is not a table of call settings ({{settings_id: settings}})")
    return table


def write_summary(out_dir: Path, summary: RunSummary[Any]) -> Path:
    """``summary.json``, written atomically, secrets redacted."""
    path = Path(out_dir) / SUMMARY_FILE
    _write_atomic(path, scrub(summary.model_dump_json(indent=2)) + "\n")
    return path


def _json_text(value: Any, indent: int | None = None) -> str:
    """One line (or with ``indent``, a document) of JSON, keys sorted, secrets redacted, ending in a newline."""
    return scrub(json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent)) + "\n"


def read_summary(out_dir: Path) -> dict[str, Any]:
    """``summary.json`` of a run folder as plain JSON (see :mod:`causal_datasets.report.runs` for the typed reader)."""
    value: dict[str, Any] = read_json(Path(out_dir) / SUMMARY_FILE, RunFolderError)
    return value


def read_typed_summary(out_dir: Path, reader: str) -> tuple[Task[Any, Any, Any], RunSummary[Any]]:
    """The task and typed summary of a run folder written in this version's summary format, for ``reader`` (what
    needs it: ``rescore``, ``--resume``); one clear :class:`RunFolderError` otherwise (the report reads older
    formats too: :mod:`causal_datasets.report.runs`)."""
    path = Path(out_dir) / SUMMARY_FILE
    missing = f"{out_dir} has no {SUMMARY_FILE}; is it a `causal-datasets eval` run?"
    data = read_json_object(path, RunFolderError, missing, "a run summary")
    if data.get("format") != SUMMARY_FORMAT:
        raise RunFolderError(
            f"{path} is summary format {data.get('format')}, written by causal-datasets "
            f"{data.get('package_version', 'an unknown version')}, whose results do not keep typed transcripts: "
            f"{reader} reads format {SUMMARY_FORMAT}; run it again with `causal-datasets eval` into a new --out (the "
            "response cache answers the calls it already made)"
        )
    task = get_task(str(data.get("benchmark")))
    try:
        return task, task.summary_model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        raise RunFolderError(
            f"{path} is not a valid {task.name} summary: field '{'.'.join(map(str, first['loc']))}': {first['msg']}"
        ) from None


def _write_atomic(path: Path, text: str) -> None:
    """Write a sibling temporary file, sync it, rename it over ``path``: readers see the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=staging.prefix(path.name), dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors=ESCAPE) as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, value: Any) -> None:
    """``value`` as an indented JSON document (keys sorted, secrets redacted), written atomically."""
    _write_atomic(path, _json_text(value, indent=2))


def write_text_atomic(path: Path, text: str) -> None:
    """``text`` written as it is, atomically (a sibling temporary file renamed over ``path``)."""
    _write_atomic(path, text)
