"""A run as the report reads it: its typed ``summary.json`` and, on demand, its ``results.jsonl``.

A run comes from a run folder (:func:`load_run`) or from an exported results dataset
(:mod:`causal_datasets.exports.reading`, built on this module, whose runs carry their result lines with
them; the report never imports ``exports``). Both files are
typed by the benchmark's registered task (an unregistered benchmark is one clear error). Summaries of
formats 2 and 3 (causal-datasets 0.2 before results were typed; 3 added intervals) are read too: brought
to the current layout (the count field renamed, failures by role and category), their result lines read
untyped (:class:`~causal_datasets.runners.records.Untyped`), which is all the report needs of them. Older
and newer layouts are one error naming the version that wrote them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from causal_datasets import __version__
from causal_datasets.errors import RunFolderError, UnknownBenchmark
from causal_datasets.files import parse_json, read_text
from causal_datasets.runners.records import SUMMARY_FORMAT, ItemResult, RunSummary, Untyped
from causal_datasets.runners.registry import get_task
from causal_datasets.runners.results import RESULTS_FILE, SUMMARY_FILE, check_counts, check_result_lines
from causal_datasets.runners.task import Task

#: the oldest summary format the report still reads
OLDEST_FORMAT = 2
#: the count field of each benchmark's metrics before format 4 (which calls it ``count`` everywhere)
OLD_COUNT_FIELDS = ("episodes", "n", "samples")


@dataclass(frozen=True)
class Run:
    path: Path
    summary: RunSummary[Any]
    task: Task[Any, Any, Any]
    format: int = SUMMARY_FORMAT

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
    def results(self) -> list[ItemResult[Any, Any]]:
        """The latest line of each item of ``results.jsonl``, validated (typed by the task; untyped in an older run)."""
        where = self.path / RESULTS_FILE
        lines = {line["id"]: line for line in check_result_lines(where)}
        return validate_results(lines.values(), str(where), self.task, self.format)

    def counted_results(self) -> list[ItemResult[Any, Any]]:
        """:attr:`results`, which must be the items the summary counts (:func:`check_counts`): what is exported or
        compared is one run's."""
        return check_counts(self.results, self.summary, self.where)


def validate_results(
    lines: Iterable[Mapping[str, Any]], where: str, task: Task[Any, Any, Any], layout: int = SUMMARY_FORMAT
) -> list[ItemResult[Any, Any]]:
    """Result lines as ``task``'s item results (untyped for a summary format before this one); the first invalid
    one is a :class:`RunFolderError` naming ``where``."""
    model: Any = task.result_model if layout == SUMMARY_FORMAT else ItemResult[Untyped, Untyped]
    items = []
    for number, line in enumerate(lines, start=1):
        try:
            items.append(model.model_validate(line if layout == SUMMARY_FORMAT else upgrade_line(line)))
        except (ValidationError, ValueError, TypeError) as error:
            problem = _first_problem(error) if isinstance(error, ValidationError) else str(error)
            raise RunFolderError(f"{where} item #{number} (id={line['id']!r}): {problem}") from None
    return items


def load_run(path: Path) -> Run:
    """Read and validate a run folder's ``summary.json``; every problem is one line naming the file."""
    path = Path(path)
    summary_path = path / SUMMARY_FILE
    if not summary_path.exists():
        raise RunFolderError(f"{path} has no {SUMMARY_FILE}; is it a finished `causal-datasets eval` run?")
    task, summary, layout = parse_summary(read_text(summary_path, RunFolderError), str(summary_path))
    return Run(path=path, summary=summary, task=task, format=layout)


def parse_summary(text: str, where: str) -> tuple[Task[Any, Any, Any], RunSummary[Any], int]:
    """A ``summary.json`` text as its benchmark's task, its typed summary (in the current layout) and the format it
    was written in: not JSON, an old or newer format, an unregistered benchmark or an invalid summary is a
    :class:`RunFolderError` naming ``where``."""
    data = parse_json(text, where, RunFolderError)
    if not isinstance(data, dict):
        raise RunFolderError(f"{where} is not a run summary (a JSON object)")
    layout = _check_format(where, data)
    try:
        task = get_task(str(data.get("benchmark")))
    except UnknownBenchmark as error:
        raise RunFolderError(f"{where}: {error}") from None
    try:
        summary = task.summary_model.model_validate(data if layout == SUMMARY_FORMAT else upgrade_summary(data))
    except ValidationError as error:
        raise RunFolderError(f"{where} is not a valid run summary: {_first_problem(error)}") from None
    return task, summary, layout


def upgrade_summary(data: dict[str, Any]) -> dict[str, Any]:
    """A summary of format 2 or 3 in the current layout: ``count`` for the metrics' count field, failures by
    role and category."""
    metrics = dict(data.get("metrics") or {})
    for name in OLD_COUNT_FIELDS:
        if name in metrics and "count" not in metrics:
            metrics["count"] = metrics.pop(name)
    failures: dict[str, dict[str, int]] = {}
    for key, count in (data.get("failures") or {}).items():
        if isinstance(count, dict):  # already by role and category (an upgraded summary exported as it was read)
            failures[key] = count
            continue
        role, category = old_failure(key)
        failures.setdefault(role, {})[category] = failures.get(role, {}).get(category, 0) + count
    return data | {"format": SUMMARY_FORMAT, "metrics": metrics, "failures": failures}


def upgrade_line(line: Mapping[str, Any]) -> dict[str, Any]:
    """A result line of format 2 or 3 in the current layout, its benchmark's fields kept untyped as ``scores`` (a
    line already upgraded, e.g. read back from an export, as it is)."""
    if "scores" in line or "generation" in line:
        return dict(line)
    shared = {"id", "config", "status", "failure", "calls", "cluster", "groups"}
    failure = None
    if line.get("failure"):
        role, category = old_failure(line["failure"].split(":", 1)[0])
        failure = {"role": role, "category": category, "detail": line["failure"]}
    calls = []
    for call in line.get("calls") or []:
        category, _, detail = (call.get("error") or "").partition(": ")
        calls.append(call | ({"category": category, "error": detail} if call.get("error") else {}))
    own = {key: value for key, value in line.items() if key not in shared}
    return {
        "id": line["id"],
        "config": line["config"],
        "status": line["status"],
        "failure": failure,
        "calls": calls,
        "cluster": line.get("cluster"),
        "groups": line.get("groups"),
        "scores": own if line["status"] == "scored" else None,
    }


def old_failure(key: str) -> tuple[str, str]:
    """The role and category of an older failure key (``judge_timeout``, ``judge``, ``llm_error``, ``crash`` ...)."""
    if key == "crash":
        return "task", "crash"
    if key == "judge":
        return "judge", "llm_error"
    if key.startswith("judge_"):
        return "judge", key.removeprefix("judge_")
    return "model", key


def _check_format(where: str, data: dict[str, Any]) -> int:
    layout = data.get("format")
    if layout is None and "run" not in data and "metrics" not in data:
        raise RunFolderError(f"{where} has no 'format' key: it is not a summary written by `causal-datasets eval`")
    if layout is None or layout == 1:
        run = data.get("run")
        writer = run.get("package_version") if isinstance(run, dict) else None
        raise RunFolderError(
            f"{where} has the old untyped layout written by causal-datasets {writer or '0.1 or earlier'}; "
            f"run it again with causal-datasets {__version__} (`causal-datasets eval` with the same options: the "
            "response cache answers the calls it already made)"
        )
    if not isinstance(layout, int) or layout > SUMMARY_FORMAT:
        raise RunFolderError(
            f"{where} has summary format {layout}, written by a newer causal-datasets; "
            f"this one ({__version__}) reads formats {OLDEST_FORMAT} to {SUMMARY_FORMAT}: upgrade causal-datasets "
            "to report it"
        )
    return layout


def _first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "<top level>"
    more = error.error_count() - 1
    return f"field '{where}': {first['msg']}" + (f" (and {more} more)" if more else "")
