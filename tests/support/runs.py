"""``causal-datasets eval ...`` through the library, as the command line parses it; a run's items as flat dicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from causal_datasets.cli import build_parser
from causal_datasets.commands.eval import settings_from_args
from causal_datasets.llm.stub_server import STUB_MODEL
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.records import RunSummary
from causal_datasets.runners.results import read_results
from tests.support.stub_flags import stub_flags


def run_eval(*argv: str) -> RunSummary[Any]:
    """Parse ``eval ARGV`` like the CLI, run it, return the typed summary (errors propagate as raised)."""
    args = build_parser().parse_args(["eval", *argv])
    task = tasks()[args.task]
    return run_task(task, settings_from_args(task, args))


def run_on_stub(task: str, base_url: str, hub: Path, out: Path, *argv: str, model: str = STUB_MODEL) -> RunSummary[Any]:
    """``eval TASK ARGV`` with ``model`` served by the stub server at ``base_url`` (no response cache), the
    dataset read from ``hub`` and the run written to ``out``."""
    return run_eval(task, *stub_flags(base_url, model=model), "--hub-dir", str(hub), "--out", str(out), *argv)


def item_fields(run: Path) -> list[dict[str, Any]]:
    """Each result line of ``run`` as one dict: id, config, status, failure, calls, cluster and groups, then the
    fields of its generation and of its scores (a field in both: the scores')."""
    return [
        {key: line.get(key) for key in ("id", "config", "status", "failure", "calls", "cluster", "groups")}
        | (line.get("generation") or {})
        | (line.get("scores") or {})
        for line in read_results(run)
    ]
