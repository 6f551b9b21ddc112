"""``causal-datasets eval ...`` through the library, as the command line parses it."""

from __future__ import annotations

from causal_datasets.cli import build_parser
from causal_datasets.commands.eval import settings_from_args
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.records import RunSummary


def run_eval(*argv: str) -> RunSummary:
    """Parse ``eval ARGV`` like the CLI, run it, return the typed summary (errors propagate as raised)."""
    args = build_parser().parse_args(["eval", *argv])
    task = tasks()[args.task]
    return run_task(task, settings_from_args(task, args))
