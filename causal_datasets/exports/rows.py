"""One run as the rows of an exported results dataset, and those rows back as a summary and result lines.

What leaves the run folder goes through a :class:`~causal_datasets.redaction.Redactor` first (secret values,
credentials, URL user info and queries, local paths); where a run read its dataset is kept only when it is a Hub
id (``ORG/NAME@revision``), else it becomes ``local build``.

A run's id is the first 16 hex digits of the sha256 of its exported content: the redacted summary and result
lines, as canonical JSON, lines in file order. The same run folder gives the same id wherever it lies; a run that
changed (resumed, re-scored, another run of the same settings) is another run.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from causal_datasets.errors import RunFolderError
from causal_datasets.records.prompts import ChatMessage
from causal_datasets.records.run_results import (
    Call,
    ExportedRun,
    ItemDetail,
    RoleModel,
    RunResult,
    Score,
    SliceEntries,
)
from causal_datasets.redaction import Redactor
from causal_datasets.report.runs import Run
from causal_datasets.runners import tasks
from causal_datasets.runners.calls import full_messages
from causal_datasets.runners.records import SUMMARY_FORMAT, Failure, ItemResult, ModelCall, RunSummary

RUN_ID_DIGITS = 16
LOCAL_BUILD = "local build"
#: where a result line may hold an item's conversation, in the order looked for (dotted paths: ShapeWorld's
#: episode; the top-level fields of lines before summary format 4)
TRANSCRIPT_FIELDS = ("generation.transcript", "transcript", "messages")
#: the shared result fields that have columns of their own; every other field goes into ``fields_json``
COLUMNS = ("id", "config", "status", "failure", "calls", "cluster", "groups")
#: where a run read its dataset, when that was the Hub: ``ORG/NAME@revision``
_HUB_SOURCE = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+@[\w./-]+$")


@dataclass(frozen=True)
class RunRows:
    """The rows of one run: its ``runs`` row, its ``results`` rows and its ``details`` rows."""

    run: ExportedRun
    results: list[RunResult]
    details: list[ItemDetail]


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def run_rows(run: Run, redactor: Redactor, added_in: str) -> RunRows:
    """The rows of ``run``, redacted; ``added_in``: the version of the export that adds it."""
    task = tasks().get(run.benchmark)
    if task is None:
        raise RunFolderError(
            f"{run.where} is a run of {run.benchmark!r}, a benchmark this causal-datasets does not know"
        )
    summary_data = run.summary.model_dump(mode="json") | {"format": run.format}  # an upgraded summary: as written
    summary_data["dataset"]["read_from"] = public_source(run.summary.dataset.read_from)
    summary_data = redactor.value(summary_data)
    summary = task.summary_model.model_validate(summary_data | {"format": SUMMARY_FORMAT})
    results = run.counted_results()
    lines = [redactor.value(result.model_dump(mode="json")) for result in results]
    digest = hashlib.sha256("\n".join(map(canonical_json, [summary_data, *lines])).encode("utf-8", "surrogatepass"))
    run_id = digest.hexdigest()[:RUN_ID_DIGITS]
    model = summary.models.get("model")
    details = [
        item_detail(run_id, summary, line, _scores(task.item_scores, result, run))
        for line, result in zip(lines, results, strict=True)
    ]
    exported = ExportedRun(
        run_id=run_id,
        added_in=added_in,
        benchmark=summary.benchmark,
        solver=summary.solver,
        model=model,
        status=summary.status,
        dataset=summary.dataset.name,
        dataset_version=summary.dataset.version,
        items_scored=summary.items.scored,
        items_failed=summary.items.failed,
        package_version=summary.package_version,
        summary_json=json.dumps(summary_data, ensure_ascii=False),  # in the summary's order, as the report shows it
    )
    return RunRows(exported, result_rows(run_id, summary), details)


def public_source(read_from: str) -> str:
    """``ORG/NAME@revision`` as it is; anything else (a local folder) as ``local build``."""
    return read_from if _HUB_SOURCE.match(read_from) else LOCAL_BUILD


def _scores(item_scores: Any, result: ItemResult[Any, Any], run: Run) -> list[Score]:
    """The item's headline numbers (none for a failed item, or one of a run whose results are not typed)."""
    if result.status != "scored" or run.format != SUMMARY_FORMAT:
        return []
    try:
        scores = item_scores(result.scores)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise RunFolderError(
            f"{run.where}: item {result.id!r} cannot be scored ({type(error).__name__}: {error})"
        ) from None
    return [Score(name=name, value=value) for name, value in scores.items()]


def result_rows(run_id: str, summary: RunSummary) -> list[RunResult]:
    """One row per number of the summary's headline intervals (none for a summary without intervals, format 2)."""
    if summary.intervals is None:
        return []
    dataset, model = summary.dataset, summary.models.get("model")
    settings = {
        "run_id": run_id,
        "benchmark": summary.benchmark,
        "solver": summary.solver,
        "model": model,
        "models": [RoleModel(role=role, name=name) for role, name in summary.models.items()],
        "status": summary.status,
        "items_scored": summary.items.scored,
        "items_selected": summary.items.selected,
        "dataset": dataset.name,
        "dataset_version": dataset.version,
        "dataset_seed": dataset.seed,
        "dataset_source": dataset.read_from,
        "configs": dataset.configs,
        "split": dataset.split,
        "options_json": canonical_json(summary.options),
        "package_version": summary.package_version,
    }
    return [
        RunResult(
            **settings,
            metric=path,
            metric_title=metric_title(summary, path),
            estimate=interval.estimate,
            se=interval.se,
            ci_low=interval.ci_low,
            ci_high=interval.ci_high,
            method=interval.method,
            cluster_unit=interval.cluster,
            clusters=interval.clusters,
            n=interval.n,
            mdd=interval.mdd,
        )
        for path, interval in summary.intervals.metrics.items()
    ]


def metric_title(summary: RunSummary, path: str) -> str:
    """The title of a number of the summary's metrics: its field's title, then the keys inside it."""
    name, _, inner = path.partition(".")
    field = type(summary.metrics).model_fields.get(name)
    title = (field.title if field is not None else None) or name
    return f"{title}: {inner}" if inner else title


def item_detail(run_id: str, summary: RunSummary[Any], line: Mapping[str, Any], scores: list[Score]) -> ItemDetail:
    """The ``details`` row of one (redacted) result line."""
    transcript_field, transcript = _transcript(line)
    calls = [
        Call.model_validate({name: call.get(name) for name in Call.model_fields} | {"error": _call_error(call)})
        for call in line["calls"]
    ]
    replied = [call for call in calls if call.role == "model" and call.reply is not None]
    if replied:
        reply, reasoning = replied[-1].reply, replied[-1].reasoning
    else:
        reply = next((m.content for m in reversed(transcript) if m.role == "assistant"), None)
        reasoning = None
    own = _without({key: value for key, value in line.items() if key not in COLUMNS}, transcript_field)
    groups = line.get("groups")
    return ItemDetail(
        run_id=run_id,
        benchmark=summary.benchmark,
        solver=summary.solver,
        model=summary.models.get("model"),
        config=line["config"],
        item_id=line["id"],
        status=line["status"],
        failure=_failure_text(line.get("failure")),
        scores=scores,
        prompt=next((m.content for m in transcript if m.role == "user"), None),
        reply=reply,
        reasoning=reasoning,
        transcript=transcript,
        transcript_field=transcript_field,
        calls=calls,
        cluster=line.get("cluster"),
        groups=None if groups is None else [SliceEntries(slice=name, entries=keys) for name, keys in groups.items()],
        fields_json=canonical_json(own),
    )


def _failure_text(failure: Any) -> str | None:
    """A failure as one line: ``<role> <category>: <detail>`` (a line before format 4 holds that text already)."""
    if isinstance(failure, Mapping):
        typed = Failure.model_validate(failure)
        return f"{typed.key}: {typed.detail}"
    return failure


def _call_error(call: Mapping[str, Any]) -> str | None:
    """A failed call's error as ``<category>: <detail>``."""
    return f"{call['category']}: {call.get('error')}" if call.get("category") else call.get("error")


def _transcript(line: Mapping[str, Any]) -> tuple[str | None, list[ChatMessage]]:
    """The item's conversation: the first field of :data:`TRANSCRIPT_FIELDS` that holds chat turns (``{role,
    content}`` and nothing else), else the last request of the model with its reply (``None`` as its field)."""
    for path in TRANSCRIPT_FIELDS:
        turns = _at(line, path)
        if isinstance(turns, list) and all(isinstance(t, dict) and set(t) == {"role", "content"} for t in turns):
            try:
                return path, [ChatMessage.model_validate(turn) for turn in turns]
            except ValidationError:
                continue
    try:
        calls = [ModelCall.model_validate(call) for call in line.get("calls") or ()]
        asked = [
            (call, whole)
            for call, whole in zip(calls, full_messages(calls), strict=True)
            if call.role == "model" and call.reply is not None and whole
        ]
        if asked:
            call, whole = asked[-1]
            return None, [
                ChatMessage.model_validate(turn) for turn in [*whole, {"role": "assistant", "content": call.reply}]
            ]
    except (ValidationError, ValueError):
        pass
    return None, []


def _at(line: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` of ``line`` (None where there is none)."""
    value: Any = line
    for key in path.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _without(fields: dict[str, Any], path: str | None) -> dict[str, Any]:
    """``fields`` without the value at the dotted ``path`` (copied where it changes)."""
    if path is None:
        return fields
    head, _, rest = path.partition(".")
    if not rest:
        return {key: value for key, value in fields.items() if key != head}
    return fields | {head: _without(dict(fields[head]), rest)}


def result_line(detail: ItemDetail, layout: int = SUMMARY_FORMAT) -> dict[str, Any]:
    """The run's result line of a ``details`` row (the inverse of :func:`item_detail`, after redaction; the
    requests' messages are not exported); ``layout``: the run's summary format."""
    failure: Any = detail.failure
    calls = [call.model_dump() for call in detail.calls]
    if layout == SUMMARY_FORMAT:
        if failure is not None:
            role_category, _, text = failure.partition(": ")
            role, _, category = role_category.partition(" ")
            failure = {"role": role, "category": category, "detail": text}
        for call in calls:
            if call["error"] is not None:
                call["category"], _, call["error"] = call["error"].partition(": ")
    line: dict[str, Any] = {
        "id": detail.item_id,
        "config": detail.config,
        "status": detail.status,
        "failure": failure,
        "calls": calls,
        "cluster": detail.cluster,
        "groups": None if detail.groups is None else {entry.slice: entry.entries for entry in detail.groups},
        **json.loads(detail.fields_json),
    }
    if detail.transcript_field is not None:
        _put(line, detail.transcript_field, [turn.model_dump() for turn in detail.transcript])
    return line


def _put(line: dict[str, Any], path: str, value: Any) -> None:
    head, _, rest = path.partition(".")
    if rest:
        _put(line.setdefault(head, {}), rest, value)
    else:
        line[head] = value
