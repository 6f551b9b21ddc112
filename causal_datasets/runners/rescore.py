"""Scoring transcripts that are already there: a finished run folder scored again by the current code
(``causal-datasets rescore``), and transcripts published by others scored as a run.

``rescore_run(source, out, options=..., models=...)`` reads the run's summary and results, loads the
same dataset rows (its version checked against the run's), selects the same items and scores each
scored item again from its transcript — its generation calls and generation record as they are —
with ``Task.score``. No model is asked: the scoring roles' calls (a judge's) are served from the
transcript (:class:`~causal_datasets.runners.calls.ReplayClient`). Only the task's scoring options
may change; one that changes what a judge is asked needs that judge's model, which is then the only
model called (a recorded reply is reused only for the same request to the same model with the same
settings). Failed items stay failed. The new folder's summary says which version scored the old one
(``rescored``). Nothing is written until every item is scored; a request the transcript lacks with no
model to ask is one :class:`~causal_datasets.errors.NotInTranscript` error.

``score_published(task, transcripts, out, ...)`` scores transcripts made elsewhere (CausaLab's
upstream runs) through the same path and writes them as a run folder.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from causal_datasets import __version__
from causal_datasets.cluster import RayCluster, ray_map
from causal_datasets.errors import NotInTranscript, RunConfigurationError, RunFolderError
from causal_datasets.hub.layout import MANIFEST
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.concurrency import map_concurrent
from causal_datasets.llm.options import ModelSpec
from causal_datasets.runners.call_settings import inline
from causal_datasets.runners.calls import CallLog, replaying
from causal_datasets.runners.engine import (
    check_settings,
    dataset_ref,
    score_transcript,
    selection_of,
    summarize_run,
    usage_of,
)
from causal_datasets.runners.records import DatasetRef, Rescored, Role, RunSummary, Usage
from causal_datasets.runners.results import (
    RESULTS_FILE,
    ResultsLog,
    check_counts,
    check_out,
    check_result_lines,
    read_settings,
    read_typed_summary,
    write_summary,
)
from causal_datasets.runners.selection import limited_items
from causal_datasets.runners.task import Item, RunSettings, Task, TaskContext, Transcript
from causal_datasets.sharding import chunks

_HUB_ID = re.compile(r"[\w.-]+/[\w.-]+@\S+")
#: what the message of an --out that holds results suggests (rescore and score-upstream-run have no --resume)
NEW_FOLDER_HINT = "this command writes a new run folder: choose another --out"
#: items scored again per Ray task (``rescore --ray``)
RAY_BATCH = 200


def rescore_run(
    source: Path,
    out: Path,
    *,
    options: Mapping[str, Any] | None = None,
    models: Mapping[Role, ModelSpec] | None = None,
    location: DatasetLocation | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    cluster: RayCluster | None = None,
) -> RunSummary[Any]:
    """Score the run in ``source`` again into ``out`` (see the module); ``options``: scoring options to
    change, by field name; ``models``: scoring roles to ask anew; ``location``: where to read the
    dataset (default: where the run read it); ``cluster``: score the items as Ray tasks of :data:`RAY_BATCH`
    items there (the recorded calls replayed only: no model asked anew), the same results."""
    source, out = Path(source), Path(out)
    task, before = read_typed_summary(source, "rescore")
    if out.resolve() == source.resolve():
        raise RunConfigurationError("rescore writes a new run folder: give an --out other than the run rescored")
    check_out(out, hint=NEW_FOLDER_HINT)  # refused before any work, nothing created
    models = dict(models or {})
    if cluster is not None and models:
        raise RunConfigurationError("rescore --ray replays the recorded calls only: ask a model anew without --ray")
    new_options = _scoring_options(task, before, dict(options or {}), frozenset(models))
    settings = RunSettings(
        out=out,
        location=location or location_of(before.dataset),
        configs=tuple(before.dataset.configs),
        split=before.dataset.split,
        agent=before.solver.removeprefix("agent:") if before.solver.startswith("agent:") else None,
        models=models,
        options=new_options,
        concurrency=concurrency,
        progress=progress,
    )
    check_settings(task, settings, frozenset(before.models) | frozenset(models))
    with ExitStack() as stack:
        live: dict[Role, ChatClient] = {role: stack.enter_context(spec.client()) for role, spec in models.items()}
        context = TaskContext(
            task, settings, new_options, tuple(before.dataset.configs), clients={}, models=before.models
        )
        _check_dataset(before.dataset, dataset_ref(context))
        recorded = check_result_lines(source)
        had = {line["id"] for line in recorded}  # a limited run's items, spread over the clusters
        items = limited_items(task, task.items(context), before.items.selected, keep=had)
        lines = _source_lines(task, source, recorded, before, {item.id for item in items})
        roles = [role for role in task.scoring_roles if role in before.models or role in live]
        by_id = {item.id: item for item in items}

        def rescore_line(line: Any) -> dict[str, Any]:
            if line.status == "failed":
                return dict(line.model_dump(mode="json"))
            return _rescored(task, by_id[line.id], line, context, roles, live)

        todo, desc = list(lines.values()), f"{task.name} rescore"
        if cluster is None:
            outcomes = map_concurrent(rescore_line, todo, concurrency=concurrency, desc=desc, progress=progress)
        else:
            outcomes = _on_ray(rescore_line, todo, cluster)
        for item_id, outcome in zip(lines, outcomes, strict=True):
            if isinstance(outcome, NotInTranscript):
                raise NotInTranscript(
                    f"item {item_id!r}: {outcome}; pass the role's model (e.g. --judge-model) to ask it"
                ) from None
            if isinstance(outcome, Exception):
                raise outcome
        results = {
            item_id: outcome
            for item_id, outcome in zip(lines, outcomes, strict=True)
            if not isinstance(outcome, Exception)
        }  # (none is: raised above)
        asked = sum(usage_of(client).calls for client in live.values())
        rescored = Rescored(
            source=str(source),
            scored_before_by=before.package_version,
            generated_by=before.rescored.generated_by if before.rescored else before.package_version,
            options_before=before.options,
            task_version_before=before.task_version,
            judge_calls=asked,
            notes=_version_notes(task, before)
            + (
                task.rescore_notes(task.options.model_validate(before.options), new_options)
                if task.rescore_notes
                else []
            ),
        )
        usage = dict(before.usage)
        for role, client in live.items():
            usage[role] = usage.get(role, Usage()) + usage_of(client)
        total = sum((usage_of(client) for client in live.values()), before.usage_total)
        return write_scored(
            task,
            context,
            items,
            results,
            out,
            dataset=before.dataset,
            solver=before.solver,
            models=before.models | {role: client.config.model for role, client in live.items()},
            selection=before.selection,
            invocations=before.invocations,
            usage=dict(sorted(usage.items())),
            usage_total=total,
            rescored=rescored,
        )


def _on_ray(rescore_line: Any, lines: list[Any], cluster: RayCluster) -> list[Any]:
    """``map_concurrent``'s outcomes (a result or the exception raised, per line, in order), batches as Ray tasks."""
    batches = [lines[start:stop] for start, stop in chunks(len(lines), RAY_BATCH)]
    one_by_one = partial(map_concurrent, rescore_line, concurrency=1, progress=False)
    return [outcome for batch in ray_map(one_by_one, batches, cluster) for outcome in batch]


def _version_notes(task: Task[Any, Any, Any], before: RunSummary[Any]) -> list[str]:
    """What a rescore by another version of the task than the one that made the run cannot change."""
    if before.task_version == task.version:
        return []
    made = "an unversioned" if before.task_version is None else f"version {before.task_version} of the"
    return [
        f"the transcripts were made by {made} {task.name} task and scored now by version {task.version}: "
        "its items and prompts are those of the run"
    ]


def location_of(dataset: DatasetRef) -> DatasetLocation:
    """Where a run read its dataset, from its summary: a Hub id ``ORG/NAME@revision`` (downloaded into the Hub
    cache), else the local build it names when that is still there. Nothing read from a run folder chooses where
    a dataset is built: a local build that is gone is a :class:`RunConfigurationError` asking for ``--hub-dir``."""
    if _HUB_ID.fullmatch(dataset.read_from) and not Path(dataset.read_from).exists():
        repo_id, revision = dataset.read_from.rsplit("@", 1)
        return DatasetLocation(repo_id=repo_id, revision=revision)
    folder = Path(dataset.read_from)
    if folder.name != dataset.name or not (folder / MANIFEST).is_file():
        raise RunConfigurationError(
            f"the run read {dataset.name} from {dataset.read_from}, which holds no build of it now: pass --hub-dir "
            "DIR (built there when missing), or --dataset ORG/NAME and --revision, holding the run's version"
        )
    return DatasetLocation(hub_dir=folder.parent)


def _scoring_options(
    task: Task[Any, Any, Any], before: RunSummary[Any], given: dict[str, Any], live: frozenset[Role]
) -> BaseModel:
    """The run's options with the given scoring options changed; a clear error for any other option, and for
    a change of what a judge is asked when no judge model is given."""
    generation = sorted(set(given) - set(task.scoring_options))
    if generation:
        allowed = ", ".join(_flag(name) for name in task.scoring_options) or "none"
        raise RunConfigurationError(
            f"{_flag(generation[0])} describes how the transcripts were generated: rescore "
            f"changes only scoring options ({allowed})"
        )
    try:
        old = task.options.model_validate(before.options)
        new = task.options.model_validate(before.options | given)
    except ValidationError as error:
        first = error.errors()[0]
        raise RunConfigurationError(
            f"{_flag(str(first['loc'][0]) if first['loc'] else 'options')}: {first['msg']}"
        ) from None
    asked_anew = [name for name in task.judge_options if getattr(new, name) != getattr(old, name)]
    if asked_anew and task.scoring_roles and not live & set(task.scoring_roles):
        role = task.scoring_roles[0]
        flag = "" if role == "model" else f"{role}-"
        raise RunConfigurationError(
            f"{_flag(asked_anew[0])} changes what the {role} is asked: pass --{flag}model "
            f"(and --{flag}base-url) to ask it; only that model is called"
        )
    return new


def _check_dataset(before: DatasetRef, now: DatasetRef) -> None:
    if (before.name, before.version) != (now.name, now.version):
        raise RunConfigurationError(
            f"the run read {before.name} {before.version}, the rows read now ({now.read_from}) are {now.name} "
            f"{now.version}: pass --hub-dir, or --dataset and --revision, holding the run's version"
        )


def _source_lines(
    task: Task[Any, Any, Any],
    source: Path,
    recorded: list[dict[str, Any]],
    before: RunSummary[Any],
    selected: set[str],
) -> dict[str, Any]:
    """The latest of the ``recorded`` result lines (every line of ``source``, read strictly) of each item, validated
    by the task's current result model: the items the run's summary counts (:func:`check_counts`)."""
    table = read_settings(source)
    raw = {line["id"]: inline(line, table) for line in recorded}
    lines = {}
    for item_id, line in raw.items():
        if item_id not in selected:
            raise RunConfigurationError(
                f"item {item_id!r} of {source} is not among the items the current code "
                f"selects from the dataset with the run's options"
            )
        try:
            lines[item_id] = task.result_model.model_validate(line)
        except ValidationError as error:
            first = error.errors()[0]
            raise RunFolderError(
                f"{source} item {item_id!r} cannot be read by causal-datasets {__version__}: field "
                f"'{'.'.join(map(str, first['loc']))}': {first['msg']}"
            ) from None
    check_counts(list(lines.values()), before, source / RESULTS_FILE)
    return lines


def _rescored(
    task: Task[Any, Any, Any],
    item: Item,
    line: Any,
    context: TaskContext,
    roles: Sequence[Role],
    live: Mapping[Role, ChatClient],
) -> dict[str, Any]:
    """``line``'s item scored again from its transcript: generation calls and record as they are, the
    scoring roles served from its calls (or ``live``)."""
    log = CallLog()
    clients = replaying(line.calls, roles, log, dict(live))
    transcript = Transcript(tuple(call for call in line.calls if call.role not in task.scoring_roles), line.generation)
    return score_transcript(task, item, transcript, dataclasses.replace(context, clients=dict(clients)), log)


def score_published(
    task: Task[Any, Any, Any],
    transcripts: Sequence[tuple[Item, Transcript[Any]]],
    out: Path,
    *,
    dataset: DatasetRef,
    models: Mapping[Role, str],
    options: BaseModel | None = None,
) -> RunSummary[Any]:
    """Transcripts made elsewhere (no model asked here) scored by ``task`` and written as the run folder
    ``out``, solver ``published``."""
    settings = RunSettings(out=out, configs=tuple(dataset.configs), options=options)
    context = TaskContext(task, settings, options or task.options(), tuple(dataset.configs), clients={})
    results = {
        item.id: score_transcript(task, item, transcript, context, CallLog()) for item, transcript in transcripts
    }
    return write_scored(
        task,
        context,
        [item for item, _ in transcripts],
        results,
        out,
        dataset=dataset,
        solver="published",
        models=models,
        selection=selection_of(settings),
        invocations=1,
        usage={},
        usage_total=Usage(),
    )


def write_scored(
    task: Task[Any, Any, Any],
    context: TaskContext,
    items: list[Item],
    results: Mapping[str, dict[str, Any]],
    out: Path,
    **fields: Any,
) -> RunSummary[Any]:
    """Write ``results`` (one line per item) and their summary as the run folder ``out`` (which must hold no
    results)."""
    log = ResultsLog(out, resume=False, model=task.result_model, hint=NEW_FOLDER_HINT)
    for item in items:
        if item.id in results:
            log.append(results[item.id])
    log.compact()
    summary = summarize_run(task, context, items, log.items, **fields)
    write_summary(out, summary)
    return summary


def _flag(name: str) -> str:
    return f"--{name.replace('_', '-')}"
