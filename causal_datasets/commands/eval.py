"""``causal-datasets eval TASK ...``: run a model or reference agent on a benchmark and score it.

Each task's options come from its declaration (:class:`causal_datasets.runners.task.Task`): its
configs, the model roles it uses (a role it does not use is not offered), its agents and its own
options model. Prints the headline scores (their means over the scored items), the item counts and
the run folder, whose ``summary.json`` holds every metric and slice (``--json`` prints it instead);
while items run, a progress bar on a terminal, else a progress line every 30 s. The last line on
stderr says how the run ended. Exit codes: 0 every item scored, 1 none scored (e.g. the server was
unreachable), 2 bad input, 3 some items failed or are missing (``--resume`` runs them again), 130
interrupted (what was done is kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from causal_datasets.commands._help import command_parser
from causal_datasets.commands._task_options import (
    add_dataset_arguments,
    add_options,
    location_from_args,
    options_from_args,
)
from causal_datasets.commands._types import at_least, positive_seconds
from causal_datasets.llm.options import add_model_arguments, spec_from_args
from causal_datasets.markdown import markdown_table
from causal_datasets.paths import DEFAULT_HUB_DIR
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.headline import headline_scores
from causal_datasets.runners.records import RunSummary
from causal_datasets.runners.results import read_results
from causal_datasets.runners.resume import read_run_summary, recorded_selection
from causal_datasets.runners.task import DEFAULT_CONCURRENCY, RunSettings, Task
from causal_datasets.uncertainty.intervals import Interval

EXIT_CODES = {"complete": 0, "empty": 0, "failed": 1, "incomplete": 3}
#: the interval column of the result table, and its cell for a score without one (fewer than two clusters)
INTERVAL_HEADER = "95% interval"
INTERRUPTED = 130


#: the command's line in ``causal-datasets --help``
HELP = "run a model or a reference agent on a benchmark and score it"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "eval", HELP, __doc__)
    task_parsers = parser.add_subparsers(dest="task", required=True, metavar="TASK")
    for task in tasks().values():
        task_parser = task_parsers.add_parser(task.name, help=task.help, description=task.help)
        add_task_arguments(task_parser, task)
        task_parser.set_defaults(handler=lambda args, task=task: _run(task, args))


def add_task_arguments(parser: argparse.ArgumentParser, task: Task[Any, Any, Any]) -> None:
    """Every option of ``causal-datasets eval <task>``, from the task's declaration."""
    parser.add_argument("--out", type=Path, required=True, help="run folder for results.jsonl and summary.json")
    parser.add_argument(
        "--json", action="store_true", help="print summary.json instead of the table of headline scores"
    )
    parser.add_argument(
        "--limit",
        type=at_least(1),
        help="only N items, spread over the benchmark's clusters (one of each in a fixed seeded order, then a "
        "second ...), so a small run has intervals; N+1 items hold the N",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out as it was asked for: its configs, split, limit, agent and "
        "options come from its summary.json (others are refused); items missing or ended by a "
        "model/transport error are run again",
    )
    parser.add_argument(
        "--extend",
        action="store_true",
        help="continue the run in --out and add to it the configs or items (a higher --limit) this "
        "command line asks for",
    )
    parser.add_argument(
        "--concurrency",
        type=at_least(1),
        help=f"items run at once (default {DEFAULT_CONCURRENCY}, or the model server's slots when it "
        "reports fewer: 1 for serve-local)",
    )
    parser.add_argument(
        "--item-timeout",
        type=positive_seconds,
        default=3600.0,
        help="seconds one item may spend on model calls; later calls fail and the item counts as failed (default 3600)",
    )
    configs = ", ".join(task.default_configs)
    if task.multiple_configs:
        parser.add_argument(
            "--config",
            nargs="+",
            choices=task.configs,
            metavar="CONFIG",
            help=f"one or more configs of {task.dataset} (default {configs}; choices: {', '.join(task.configs)})",
        )
    else:
        parser.add_argument("--config", choices=task.configs, help=f"config of {task.dataset} (default {configs})")
    parser.add_argument("--split", help="split of the config (default test)")
    add_dataset_arguments(parser, task, hub_dir=DEFAULT_HUB_DIR)
    if task.agents:
        parser.add_argument("--agent", choices=task.agents, help="a reference agent instead of --model")
    for spec in task.roles:
        fallback = task.role(spec.fallback) if spec.fallback else None
        omitted = f"--{fallback.flag}model serves this role too" if fallback else None
        add_model_arguments(parser, prefix=spec.flag, purpose=spec.help, omitted=omitted)
    add_options(parser, task.options)


def settings_from_args(task: Task[Any, Any, Any], args: argparse.Namespace) -> RunSettings:
    """The :class:`RunSettings` of a parsed ``eval <task>`` command line; with ``--resume`` or ``--extend``,
    what it leaves out of the selection comes from the run's own ``summary.json``."""
    location = location_from_args(args)
    models = {spec.role: model for spec in task.roles if (model := spec_from_args(args, spec.flag)) is not None}
    earlier = read_run_summary(args.out) if args.resume or args.extend else None
    recorded = recorded_selection(earlier) if earlier is not None else None
    config = args.config
    configs = tuple(config if isinstance(config, list) else [config] if config else [])
    return RunSettings(
        out=args.out,
        location=location,
        configs=configs or (recorded.configs if recorded else ()),
        split=args.split or (recorded.split if recorded else "test"),
        limit=args.limit if args.limit is not None or recorded is None else recorded.limit,
        resume=args.resume,
        extend=args.extend,
        concurrency=args.concurrency,
        agent=getattr(args, "agent", None) or (recorded.agent if recorded and not models else None),
        item_timeout=args.item_timeout,
        models=models,
        options=options_from_args(task.options, args, recorded.options if recorded else None),
    )


def _run(task: Task[Any, Any, Any], args: argparse.Namespace) -> int:
    settings = settings_from_args(task, args)
    try:
        summary = run_task(task, settings)
    except KeyboardInterrupt:
        print(f"interrupted: what was done is in {settings.out}; continue with --resume", file=sys.stderr)
        return INTERRUPTED
    print(summary.model_dump_json(indent=2) if args.json else result_table(task, summary, args.out))
    print(status_line(summary), file=sys.stderr)
    return EXIT_CODES[summary.status]


def result_table(task: Task[Any, Any, Any], summary: RunSummary[Any], out: Path) -> str:
    """What a person reads after a run: the headline scores, the item counts and where everything else is."""
    scores = headline_scores(task, summary, read_results(out))
    rows = [[s.title, f"{s.mean:.3f}", _bounds(s.interval), s.n] for s in scores]
    table = markdown_table(["score", "mean", INTERVAL_HEADER, "items"], rows) if rows else "no item scored"
    counts = summary.items
    return "\n".join(
        [
            f"{summary.benchmark} {', '.join(summary.dataset.configs)}, {summary.solver}:",
            "",
            table,
            "",
            f"items: {counts.selected} selected, {counts.scored} scored, "
            f"{counts.failed} failed, {counts.missing} not run",
            f"run folder: {out} (summary.json: every metric and slice; results.jsonl: every item)",
        ]
    )


def _bounds(interval: Interval | None) -> str:
    """The interval's ends, or why there is none (``none: fewer than two clusters (1 scenario)``)."""
    if interval is None:
        return "none: the summary has no interval for this score"
    if interval.ci_low is None or interval.ci_high is None:
        reason = interval.method if interval.method.startswith("none") else f"none ({interval.method})"
        return f"{reason} ({interval.clusters} {interval.cluster})"
    return f"[{interval.ci_low:.3f}, {interval.ci_high:.3f}]"


def status_line(summary: RunSummary[Any], next_step: str = "--resume runs them again") -> str:
    """One line saying how the run ended: counts, failures by role and category, what to do next (``next_step``,
    when items failed or were not run)."""
    counts = summary.items
    line = f"{summary.benchmark}: {summary.status}: {counts.scored} of {counts.selected} items scored"
    if counts.failed:
        kinds = ", ".join(
            f"{n} {role} {category}"
            for role, categories in summary.failures.items()
            for category, n in categories.items()
        )
        line += f", {counts.failed} failed ({kinds})"
    if counts.missing:
        line += f", {counts.missing} not run"
    if counts.failed or counts.missing:
        line += f"; {next_step}"
    return line
