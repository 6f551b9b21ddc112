"""The one loop every evaluation task runs through.

``run_task(task, settings)``: check the settings against the task's declaration (and, when resuming,
against the run's own selection: :mod:`causal_datasets.runners.resume`), load the dataset (local
build, on-demand build or Hub id), select the items (``limit``), skip the ones already scored when
resuming, run the rest concurrently — each item solved (its transcript generated and recorded), then
scored from that transcript (:func:`solve_item`), its result appended the moment it ends, a failed
model call or a crash recorded as a failed item —, compact ``results.jsonl``, summarize the scored
items into the task's typed metrics (:func:`summarize_run`), and write ``summary.json`` with the
run's selection, counts, failures by role and category, usage (summed over every invocation of the
run) and status. Every model client is closed at the end, whatever happens; Ctrl-C writes the
summary of what is done (status ``interrupted``) and re-raises. Scoring a transcript again without
the model is :mod:`causal_datasets.runners.rescore`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from contextlib import ExitStack
from typing import Any

from pydantic import ValidationError

from causal_datasets import __version__
from causal_datasets.errors import LLMError, NotInTranscript, RunConfigurationError, UnknownConfig
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.client import LLMClient
from causal_datasets.llm.deadline import work_deadline
from causal_datasets.runners.calls import CallLog, recording
from causal_datasets.runners.estimates import item_units, summary_intervals
from causal_datasets.runners.records import (
    CRASH,
    DatasetRef,
    Failure,
    ItemCounts,
    Rescored,
    Role,
    RunSelection,
    RunStatus,
    RunSummary,
    Usage,
    failure_counts,
    is_llm_category,
)
from causal_datasets.runners.results import ResultsLog, write_summary
from causal_datasets.runners.resume import check_continuation, check_item_count, read_run_summary, solver_of
from causal_datasets.runners.selection import limited_items
from causal_datasets.runners.task import (
    DEFAULT_CONCURRENCY,
    CallFailed,
    Item,
    RunSettings,
    Scored,
    Task,
    TaskContext,
    Transcript,
)


def run_task(task: Task[Any, Any, Any], settings: RunSettings) -> RunSummary[Any]:
    """Run ``task`` as ``settings`` say and return the summary it wrote to ``settings.out``."""
    if settings.out is None:
        raise RunConfigurationError(f"a {task.name} run needs a run folder (RunSettings.out)")
    options, configs = check_settings(task, settings, frozenset(settings.models))
    for spec in settings.models.values():
        spec.config.api_key()  # a missing key is an LLMConfigError now, before anything is written
    continuing = settings.resume or settings.extend
    earlier = read_run_summary(settings.out) if continuing else None
    if earlier is not None:
        check_continuation(task, settings, configs, options, earlier)
    log = ResultsLog(settings.out, resume=continuing, model=task.result_model)
    with ExitStack() as stack:
        clients = _clients(task, settings, stack)
        context = TaskContext(task, settings, options, configs, dict(clients))
        items = task.items(context)
        if settings.limit is not None:  # spread over the clusters; a continued run keeps the items it has
            items = limited_items(task, items, settings.limit, keep=log.items)
        if earlier is not None:
            check_item_count(settings, len(items), earlier)
        pending = [item for item in items if log.needs_run(item.id)]
        interrupted = False
        try:
            concurrency = _concurrency(settings, clients) if pending else 1
            log.record_all(
                pending,
                lambda item: solve_item(task, item, context),
                concurrency=concurrency,
                desc=f"{task.name} items",
                progress=settings.progress,
            )
        except KeyboardInterrupt:
            interrupted = True
        finally:
            log.compact()
        usage, usage_total = _usage(clients, earlier)
        summary = summarize_run(
            task,
            context,
            items,
            log.items,
            dataset=dataset_ref(context),
            solver=solver_of(settings),
            models={role: client.config.model for role, client in clients.items()},
            selection=selection_of(settings),
            invocations=(earlier.invocations if earlier else 0) + 1,
            usage=usage,
            usage_total=usage_total,
            interrupted=interrupted,
        )
        write_summary(settings.out, summary)
    if interrupted:
        raise KeyboardInterrupt
    return summary


def check_settings(
    task: Task[Any, Any, Any], settings: RunSettings, roles: frozenset[Role]
) -> tuple[Any, tuple[str, ...]]:
    """The task's options and configs for ``settings`` with models for ``roles``; a typed error when
    the declaration rules them out."""
    options = settings.options if settings.options is not None else task.options()
    configs = _configs(task, settings)
    _check_roles(task, settings, roles)
    if task.check is not None:
        task.check(settings, options, roles)
    return options, configs


def _configs(task: Task[Any, Any, Any], settings: RunSettings) -> tuple[str, ...]:
    configs = tuple(settings.configs) or task.default_configs
    unknown = [c for c in configs if c not in task.configs]
    if unknown:
        raise UnknownConfig(f"unknown {task.name} config {unknown[0]!r}; choose from {', '.join(task.configs)}")
    if len(configs) > 1 and not task.multiple_configs:
        raise RunConfigurationError(f"{task.name} runs one config at a time, got {', '.join(configs)}")
    return configs


def _check_roles(task: Task[Any, Any, Any], settings: RunSettings, roles: frozenset[Role]) -> None:
    """Only declared roles and agents; exactly one of an agent or a model where the task has agents."""
    undeclared = sorted(role for role in roles if task.role(role) is None)
    if undeclared:
        raise RunConfigurationError(f"{task.name} uses no {undeclared[0]} model")
    if settings.agent is not None and settings.agent not in task.agents:
        known = ", ".join(task.agents) or "none"
        raise RunConfigurationError(f"{task.name} has no agent {settings.agent!r} (agents: {known})")
    if task.agents and (settings.agent is None) == ("model" not in roles):
        raise RunConfigurationError(f"give exactly one of --agent ({', '.join(task.agents)}) or --model")
    for spec in task.roles:
        given = spec.role in roles or spec.fallback in roles
        if spec.required and not given and settings.agent is None:
            raise RunConfigurationError(
                f"{task.name} needs {spec.help}: give --{spec.flag}model (and --{spec.flag}base-url)"
            )


def _clients(task: Task[Any, Any, Any], settings: RunSettings, stack: ExitStack) -> dict[Role, LLMClient]:
    """One client per given role (closed by ``stack``); a missing role with a fallback shares that client."""
    clients: dict[Role, LLMClient] = {}
    for role, spec in settings.models.items():
        clients[role] = stack.enter_context(spec.client())
    for role_spec in task.roles:
        if role_spec.role not in clients and role_spec.fallback in clients:
            clients[role_spec.role] = clients[role_spec.fallback]
    return clients


def _concurrency(settings: RunSettings, clients: dict[Role, LLMClient]) -> int:
    """``settings.concurrency``, else :data:`DEFAULT_CONCURRENCY` items at once but no more than the slots
    a model server reports (one for serve-local: an item's requests then never queue behind another's)."""
    if settings.concurrency is not None:
        return settings.concurrency
    distinct = {id(client): client for client in clients.values()}.values()
    return min([DEFAULT_CONCURRENCY, *(slots for client in distinct if (slots := client.server_slots()) is not None)])


def solve_item(task: Task[Any, Any, Any], item: Item, context: TaskContext) -> dict[str, Any]:
    """The result line of one item within ``--item-timeout``: ``solve`` with the generation roles'
    clients, then ``score`` of its transcript with the scoring roles' (every call recorded); an
    exception never escapes (the item is failed)."""
    calls = CallLog()
    generating = {role: c for role, c in context.clients.items() if role not in task.scoring_roles}
    scoring = {role: c for role, c in context.clients.items() if role in task.scoring_roles}
    generation = scores = None
    with work_deadline(context.settings.item_timeout):
        try:
            generation = task.solve(item, dataclasses.replace(context, clients=recording(generating, calls)))
            transcript = Transcript(tuple(calls.calls()), generation)
            scores = task.score(item, transcript, dataclasses.replace(context, clients=recording(scoring, calls)))
        except Exception as error:  # noqa: BLE001 - one bad item must not end the run; recorded and retried by --resume
            return result_line(task, item, context, calls, generation, None, failure_of(error, calls))
    return result_line(task, item, context, calls, generation, scores)


def score_transcript(
    task: Task[Any, Any, Any], item: Item, transcript: Transcript[Any], context: TaskContext, calls: CallLog
) -> dict[str, Any]:
    """The result line of ``item`` scored from ``transcript`` with ``context``'s clients (a rescore's
    replaying ones; ``calls`` logs what they serve): the transcript's calls, then the scoring calls."""
    try:
        scores = task.score(item, transcript, context)
    except NotInTranscript:
        raise  # the rescore cannot go on without a model: not one item's failure
    except Exception as error:  # noqa: BLE001 - as in solve_item: the item is failed, the others go on
        return result_line(
            task, item, context, calls, transcript.generation, None, failure_of(error, calls), transcript.calls
        )
    return result_line(task, item, context, calls, transcript.generation, scores, earlier=transcript.calls)


def failure_of(error: Exception, calls: CallLog) -> Failure:
    """The failure an exception ends an item with: the latest failed call's role and category when a
    model call failed (an ``LLMError`` or :class:`CallFailed`), else a crash of the task's code."""
    if isinstance(error, (LLMError, CallFailed)):
        failed = [call for call in calls.calls() if call.category is not None]
        if failed:
            last = failed[-1]
            category = last.category if is_llm_category(last.category) else LLMError.category
            return Failure(role=last.role, category=category, detail=last.error or "")
        if isinstance(error, LLMError):  # raised outside a chat call (a context check): the model role's client
            return Failure(role="model", category=error.category, detail=str(error))
    return Failure(role="task", category=CRASH, detail=f"{type(error).__name__}: {error}")


def result_line(
    task: Task[Any, Any, Any],
    item: Item,
    context: TaskContext,
    calls: CallLog,
    generation: Any,
    scores: Any,
    failure: Failure | None = None,
    earlier: tuple[Any, ...] = (),
) -> dict[str, Any]:
    """The ``results.jsonl`` line of an item — with its ``cluster`` and slice ``groups``
    (:func:`~causal_datasets.runners.estimates.item_units`) —, validated by the task's result model (what does
    not fit it fails the item as a crash, naming the field)."""
    fields = {
        "id": item.id,
        "config": item.config,
        "calls": [*earlier, *calls.calls()],
        "generation": generation,
        **item_units(task, item, context),
    }
    if failure is None:
        try:
            return task.result_model(**fields, status="scored", scores=scores).model_dump(mode="json")
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            failure = Failure(
                role="task",
                category=CRASH,
                detail=f"the {task.name} result does not fit its model: {where}: {first['msg']}",
            )
    try:
        return task.result_model(**fields, status="failed", failure=failure).model_dump(mode="json")
    except ValidationError:  # the generation itself does not fit: keep the calls, leave it out
        return task.result_model(**(fields | {"generation": None}), status="failed", failure=failure).model_dump(
            mode="json"
        )


def summarize_run(
    task: Task[Any, Any, Any],
    context: TaskContext,
    items: list[Item],
    results: Mapping[str, dict[str, Any]],
    *,
    dataset: DatasetRef,
    solver: str,
    models: Mapping[Role, str],
    selection: RunSelection | None,
    invocations: int,
    usage: dict[Role, Usage],
    usage_total: Usage,
    interrupted: bool = False,
    rescored: Rescored | None = None,
) -> RunSummary[Any]:
    """The summary of the results of ``items`` (latest line per id): counts, failures, the task's
    metrics and slices over the scored items with their intervals, and what the caller says about the run."""
    lines = [task.result_model.model_validate(results[item.id]) for item in items if item.id in results]
    scored = [
        Scored[Any, Any](line.id, line.config, line.generation, line.scores)
        for line in lines
        if line.status == "scored"
    ]
    failures = [line.failure for line in lines if line.failure is not None]
    counts = ItemCounts(selected=len(items), scored=len(scored), failed=len(failures), missing=len(items) - len(lines))
    metrics, slices = task.summarize(scored, context)
    by_id = {item.id: item for item in items}
    units = [item_units(task, by_id[one.id], context) for one in scored]
    intervals = summary_intervals(task, metrics, slices, [one.scores for one in scored], units)
    return task.summary_model(
        benchmark=task.name,
        status=_status(counts, interrupted),
        package_version=__version__,
        task_version=task.version,
        dataset=dataset,
        solver=solver,
        models=dict(models),
        options=json.loads(context.options.model_dump_json()),
        selection=selection,
        items=counts,
        failures=failure_counts(failures),
        invocations=invocations,
        usage=usage,
        usage_total=usage_total,
        rescored=rescored,
        metrics=metrics,
        slices=slices,
        intervals=intervals,
    )


def selection_of(settings: RunSettings) -> RunSelection:
    """The limit and the reply-deciding model settings a run with ``settings`` was asked for (what ``--resume``
    continues)."""
    return RunSelection(
        limit=settings.limit,
        models={role: spec.config.reply_settings() for role, spec in sorted(settings.models.items())},
    )


def dataset_ref(context: TaskContext) -> DatasetRef:
    """The dataset a run reads: name, version and seed from the manifest of its first config, where from."""
    manifest = context.load(context.configs[0]).manifest
    return DatasetRef(
        name=manifest["name"],
        version=manifest["version"],
        seed=manifest["seed"],
        read_from=context.settings.location.describe(context.task.dataset),
        configs=list(context.configs),
        split=context.settings.split,
    )


def _status(counts: ItemCounts, interrupted: bool) -> RunStatus:
    if interrupted:
        return "interrupted"
    if counts.selected == 0:
        return "empty"
    if counts.scored == counts.selected:
        return "complete"
    return "failed" if counts.scored == 0 else "incomplete"


def _usage(clients: Mapping[Role, ChatClient], earlier: RunSummary[Any] | None) -> tuple[dict[Role, Usage], Usage]:
    """This invocation's usage per role plus the earlier invocations' (a client serving two roles counted
    once in the total)."""
    now = {role: usage_of(client) for role, client in clients.items()}
    distinct = {id(client): now[role] for role, client in clients.items()}
    total = sum(distinct.values(), Usage())
    if earlier:
        for role, usage in earlier.usage.items():
            now[role] = now.get(role, Usage()) + usage
        total = total + earlier.usage_total
    return dict(sorted(now.items())), total


def usage_of(client: ChatClient) -> Usage:
    """A client's usage so far (a client that counts none has none)."""
    summarize = getattr(client, "usage_summary", None)
    summary: dict[str, Any] = summarize() if callable(summarize) else {}
    return Usage(
        **{name: summary.get(name) or 0 for name in Usage.model_fields if name != "cost_usd"},
        cost_usd=summary.get("cost_usd"),
    )
