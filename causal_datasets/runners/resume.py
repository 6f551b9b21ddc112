"""What ``--resume`` continues and what ``--extend`` may add: a run folder's own selection, read from its
``summary.json`` and checked against the settings of the invocation that continues it.

A run is its benchmark, dataset, split, configs, solver (agent or models, with the settings that decide
their replies), options and item limit. Resuming keeps all of them: a command line that leaves them out
gets them from the summary (:func:`recorded_selection`), and one that asks for something else is
refused before anything runs (:func:`check_continuation`), so a resume never silently shrinks or
changes a run. ``--extend`` is the one way to grow a run: more configs or a higher limit, never fewer
items and never another solver or option.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_datasets.errors import RunConfigurationError
from causal_datasets.runners.records import Role, RunSummary
from causal_datasets.runners.results import SUMMARY_FILE, read_typed_summary
from causal_datasets.runners.task import RunSettings, Task

RESUME_HINT = (
    "--resume continues a run as it is: leave out the selection flags (they come from its summary.json), "
    "add --extend to add configs or items, or choose another --out"
)
EXTEND_HINT = "--extend only adds configs or raises the limit of a run; for another run choose another --out"


def read_run_summary(out: Path) -> RunSummary[Any] | None:
    """The typed summary of the run in ``out`` (None when it has none yet); a clear error when this version
    cannot continue it (another summary format: its result lines are not this version's typed ones)."""
    if not (Path(out) / SUMMARY_FILE).exists():
        return None
    return read_typed_summary(out, "--resume/--extend")[1]


@dataclass(frozen=True)
class RecordedSelection:
    """The part of a run's selection a command line may leave out when it continues the run."""

    configs: tuple[str, ...]
    split: str
    limit: int | None
    agent: str | None
    options: dict[str, Any]


def recorded_selection(summary: RunSummary[Any]) -> RecordedSelection:
    """The configs, split, limit, agent and options ``summary``'s run was asked for."""
    solver = summary.solver
    return RecordedSelection(
        configs=tuple(summary.dataset.configs),
        split=summary.dataset.split,
        limit=summary.selection.limit if summary.selection else None,
        agent=solver.removeprefix("agent:") if solver.startswith("agent:") else None,
        options=dict(summary.options),
    )


def solver_of(settings: RunSettings) -> str:
    """Who answers in a run with ``settings``: ``agent:<name>``, ``model:<name>`` or ``published``."""
    if settings.agent is not None:
        return f"agent:{settings.agent}"
    model = settings.models.get("model")
    return f"model:{model.config.model}" if model is not None else "published"


def check_continuation(
    task: Task[Any, Any, Any], settings: RunSettings, configs: tuple[str, ...], options: Any, earlier: RunSummary[Any]
) -> None:
    """A :class:`RunConfigurationError` unless ``settings`` (with these configs and options) continue the run of
    ``earlier`` as it is, or, with ``settings.extend``, add configs or items to it and change nothing else."""
    where = settings.out
    if earlier.benchmark != task.name:
        raise RunConfigurationError(
            f"{where} holds a {earlier.benchmark} run, not a {task.name} one; choose another --out"
        )
    changed, grown = _differences(task, settings, configs, options, earlier)
    run = f"{where} holds the {task.name} run {_describe(earlier)}"
    if changed:
        hint = EXTEND_HINT if settings.extend else RESUME_HINT
        raise RunConfigurationError(f"{run}; this command line asks for {'; '.join(changed)}. {hint}")
    if grown and not settings.extend:
        raise RunConfigurationError(
            f"{run}; this command line asks for {'; '.join(grown)}, which adds to it: "
            "pass --extend to add them, or leave them out to resume it as it is"
        )


def check_item_count(settings: RunSettings, selected: int, earlier: RunSummary[Any]) -> None:
    """The items selected now may not be fewer than the run's (nor more, unless ``settings.extend``): the same
    selection from the same rows gives as many items, so this guards against rows that changed under the run."""
    before = earlier.items.selected
    if selected < before or (selected > before and not settings.extend):
        verb = "narrow" if selected < before else "grow"
        raise RunConfigurationError(
            f"{settings.out} holds a run of {before} items; this command line selects {selected}, which would {verb} "
            f"it{' (give --limit ' + str(before) + ')' if selected > before else ''}. {RESUME_HINT}"
        )


def _differences(
    task: Task[Any, Any, Any], settings: RunSettings, configs: tuple[str, ...], options: Any, earlier: RunSummary[Any]
) -> tuple[list[str], list[str]]:
    """What ``settings`` change in the run (never allowed) and what they add to it (with ``--extend``)."""
    changed: list[str] = []
    grown: list[str] = []
    before = set(earlier.dataset.configs)
    if set(configs) != before:
        target = grown if set(configs) > before else changed
        target.append(f"configs {', '.join(configs)} (the run: {', '.join(earlier.dataset.configs)})")
    if earlier.selection is not None:
        old, new = earlier.selection.limit, settings.limit
        if old != new:
            target = grown if old is not None and (new is None or new > old) else changed
            target.append(f"{_limit(new)} (the run: {_limit(old)})")
    read_from = settings.location.describe(task.dataset)
    for what, run_value, asked in (
        ("split", earlier.dataset.split, settings.split),
        ("dataset", earlier.dataset.read_from, read_from),
        ("solver", earlier.solver, solver_of(settings)),
    ):
        if run_value != asked:
            changed.append(f"{what} {asked} (the run: {run_value})")
    if earlier.task_version is not None and earlier.task_version != task.version:  # None: a run from before versions
        changed.append(f"task version {task.version} (the run: {earlier.task_version})")
    asked_options = json.loads(options.model_dump_json())
    changed += [
        f"option {name}={asked_options.get(name)!r} (the run: {earlier.options.get(name)!r})"
        for name in sorted(set(asked_options) | set(earlier.options))
        if asked_options.get(name) != earlier.options.get(name)
    ]
    if earlier.selection is not None:
        changed += _model_changes(settings, earlier.selection.models)
    return changed, grown


def _model_changes(settings: RunSettings, recorded: Mapping[Role, dict[str, Any]]) -> list[str]:
    """Roles whose model settings differ from the run's (a role the run had without a model now, or the reverse)."""
    asked = {role: spec.config.reply_settings() for role, spec in settings.models.items()}
    changes = []
    for role in sorted(set(asked) | set(recorded)):
        now, then = asked.get(role), recorded.get(role)
        if now == then:
            continue
        if now is None or then is None:
            asked_for, had = ("no", "one") if now is None else ("a", "none")
            changes.append(f"{asked_for} {role} model (the run: {had})")
            continue
        changes += [
            f"{role} {name}={now.get(name)!r} (the run: {then.get(name)!r})"
            for name in sorted(set(now) | set(then))
            if now.get(name) != then.get(name)
        ]
    return changes


def _describe(summary: RunSummary[Any]) -> str:
    """``configs a, b; agent:x; every item`` — the run's selection in a few words."""
    limit = f"; {_limit(summary.selection.limit)}" if summary.selection else ""
    return f"(configs {', '.join(summary.dataset.configs)}; {summary.solver}{limit}; {summary.items.selected} items)"


def _limit(limit: int | None) -> str:
    return "every item" if limit is None else f"--limit {limit}"
