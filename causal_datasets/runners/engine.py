"""The one loop every evaluation task runs through.

``run_task(task, settings)``: check the settings against the task's declaration (and, when resuming,
against the run's own selection: :mod:`causal_datasets.runners.resume`), load the dataset (local
build, on-demand build or Hub id), select the items (``limit``), skip the ones already scored when
resuming, run the rest concurrently (each result appended the moment it ends, a model
or transport error recorded as a failed item), compact ``results.jsonl``, summarize the scored
items into the task's typed metrics, and write ``summary.json`` with counts, usage (summed over
every invocation of the run) and status. Every model client is closed at the end, whatever
happens; Ctrl-C writes the summary of what is done (status ``interrupted``) and re-raises.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from contextlib import ExitStack
from typing import Any

from causal_datasets import __version__
from causal_datasets.errors import LLMError, RunConfigurationError, UnknownConfig
from causal_datasets.llm.client import LLMClient
from causal_datasets.llm.deadline import work_deadline
from causal_datasets.runners.calls import CallLog, recording
from causal_datasets.runners.estimates import item_units, summary_intervals
from causal_datasets.runners.records import (
    SUMMARY_FORMAT,
    DatasetRef,
    ItemCounts,
    Role,
    RunSelection,
    RunStatus,
    RunSummary,
    Usage,
)
from causal_datasets.runners.results import ResultsLog, write_summary
from causal_datasets.runners.resume import check_continuation, check_item_count, read_run_summary, solver_of
from causal_datasets.runners.task import (
    DEFAULT_CONCURRENCY,
    Item,
    Outcome,
    RunSettings,
    Task,
    TaskContext,
    result_line,
)


def run_task(task: Task, settings: RunSettings) -> RunSummary:
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
    log = ResultsLog(settings.out, resume=continuing)
    with ExitStack() as stack:
        clients = _clients(task, settings, stack)
        context = TaskContext(task, settings, options, configs, clients)
        items = task.items(context)
        if settings.limit is not None:
            items = items[: settings.limit]
        if earlier is not None:
            check_item_count(settings, len(items), earlier)
        pending = [item for item in items if log.needs_run(item.id)]
        interrupted = False
        try:
            concurrency = _concurrency(settings, clients) if pending else 1
            log.record_all(pending, lambda item: solve_item(task, item, context), concurrency=concurrency,
                           desc=f"{task.name} items", progress=settings.progress)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            log.compact()
        summary = _summary(task, context, items, log, earlier, interrupted)
        write_summary(settings.out, summary)
    if interrupted:
        raise KeyboardInterrupt
    return summary


def check_settings(task: Task, settings: RunSettings, roles: frozenset[Role]) -> tuple[Any, tuple[str, ...]]:
    """The task's options and configs for ``settings`` with models for ``roles``; a typed error when
    the declaration rules them out."""
    options = settings.options if settings.options is not None else task.options()
    configs = _configs(task, settings)
    _check_roles(task, settings, roles)
    if task.check is not None:
        task.check(settings, options, roles)
    return options, configs


def _configs(task: Task, settings: RunSettings) -> tuple[str, ...]:
    configs = tuple(settings.configs) or task.default_configs
    unknown = [c for c in configs if c not in task.configs]
    if unknown:
        raise UnknownConfig(f"unknown {task.name} config {unknown[0]!r}; choose from {', '.join(task.configs)}")
    if len(configs) > 1 and not task.multiple_configs:
        raise RunConfigurationError(f"{task.name} runs one config at a time, got {', '.join(configs)}")
    return configs


def _check_roles(task: Task, settings: RunSettings, roles: frozenset[Role]) -> None:
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


def _clients(task: Task, settings: RunSettings, stack: ExitStack) -> dict[Role, LLMClient]:
    """One client per given role (closed by ``stack``); a missing role with a fallback shares that client."""
    clients: dict[Role, LLMClient] = {}
    for role, spec in settings.models.items():
        clients[role] = stack.enter_context(spec.client())
    for spec in task.roles:
        if spec.role not in clients and spec.fallback in clients:
            clients[spec.role] = clients[spec.fallback]
    return clients


def _concurrency(settings: RunSettings, clients: dict[Role, LLMClient]) -> int:
    """``settings.concurrency``, else :data:`DEFAULT_CONCURRENCY` items at once but no more than the slots
    a model server reports (one for serve-local: an item's requests then never queue behind another's)."""
    if settings.concurrency is not None:
        return settings.concurrency
    distinct = {id(client): client for client in clients.values()}.values()
    return min([DEFAULT_CONCURRENCY, *(slots for client in distinct if (slots := client.server_slots()) is not None)])


def solve_item(task: Task, item: Item, context: TaskContext) -> dict[str, Any]:
    """The result line of one item within ``--item-timeout``, with its model calls; an exception never
    escapes (the item is failed)."""
    calls = CallLog()
    item_context = dataclasses.replace(context, clients=recording(context.clients, calls))
    try:
        with work_deadline(context.settings.item_timeout):
            outcome = task.solve(item, item_context)
    except LLMError as error:
        outcome = Outcome({}, failure=f"{error.category}: {error}")
    except Exception as error:  # noqa: BLE001 - one bad item must not end the run; recorded and retried by --resume
        outcome = Outcome({}, failure=f"crash: {type(error).__name__}: {error}")
    return result_line(item, outcome, calls.calls(), units=item_units(task, item, context))


def _summary(
    task: Task, context: TaskContext, items: list[Item], log: ResultsLog, earlier: RunSummary | None, interrupted: bool
) -> RunSummary:
    results = [log.items[item.id] for item in items if item.id in log.items]
    scored = [r for r in results if r["status"] == "scored"]
    failed = [r for r in results if r["status"] == "failed"]
    counts = ItemCounts(selected=len(items), scored=len(scored), failed=len(failed), missing=len(items) - len(results))
    metrics, slices = task.summarize(scored, context)
    by_id = {item.id: item for item in items}
    units = [item_units(task, by_id[r["id"]], context) for r in scored]
    intervals = summary_intervals(task, metrics, slices, scored, units)
    manifest = context.load(context.configs[0]).manifest
    usage, usage_total = _usage(context.clients, earlier)
    return RunSummary(
        format=SUMMARY_FORMAT,
        benchmark=task.name,
        status=_status(counts, interrupted),
        package_version=__version__,
        dataset=DatasetRef(
            name=manifest["name"], version=manifest["version"], seed=manifest["seed"],
            read_from=context.settings.location.describe(task.dataset), configs=list(context.configs),
            split=context.settings.split,
        ),
        solver=solver_of(context.settings),
        models={role: client.config.model for role, client in context.clients.items()},
        options=json.loads(context.options.model_dump_json()),
        selection=RunSelection(limit=context.settings.limit, models={
            role: spec.config.reply_settings() for role, spec in sorted(context.settings.models.items())}),
        items=counts,
        failures=dict(sorted(Counter(r["failure"].split(":", 1)[0] for r in failed).items())),
        invocations=(earlier.invocations if earlier else 0) + 1,
        usage=usage,
        usage_total=usage_total,
        metrics=metrics,
        slices=slices,
        intervals=intervals,
    )


def _status(counts: ItemCounts, interrupted: bool) -> RunStatus:
    if interrupted:
        return "interrupted"
    if counts.selected == 0:
        return "empty"
    if counts.scored == counts.selected:
        return "complete"
    return "failed" if counts.scored == 0 else "incomplete"


def _usage(clients: dict[Role, LLMClient], earlier: RunSummary | None) -> tuple[dict[Role, Usage], Usage]:
    """This invocation's usage per role plus the earlier invocations' (a client serving two roles counted once in the total)."""
    now = {role: _as_usage(client.usage_summary()) for role, client in clients.items()}
    distinct = {id(client): now[role] for role, client in clients.items()}
    total = sum(distinct.values(), Usage())
    if earlier:
        for role, usage in earlier.usage.items():
            now[role] = now.get(role, Usage()) + usage
        total = total + earlier.usage_total
    return dict(sorted(now.items())), total


def _as_usage(summary: dict[str, Any]) -> Usage:
    return Usage(**{name: summary.get(name) or 0 for name in Usage.model_fields if name != "cost_usd"},
                 cost_usd=summary.get("cost_usd"))
