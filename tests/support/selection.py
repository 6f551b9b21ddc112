"""The items an ``eval ... --limit N`` runs (spread over the clusters, not the first N), to give another tool
exactly those: inspect_ai by sample id, lm-evaluation-harness by doc index."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lm_eval.tasks import TaskManager, get_task_dict

from causal_datasets.cli import build_parser
from causal_datasets.commands.eval import settings_from_args
from causal_datasets.integrations.lm_eval import tasks_dir
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import check_settings
from causal_datasets.runners.results import read_results
from causal_datasets.runners.selection import limited_items
from causal_datasets.runners.task import TaskContext


def selected_ids(*argv: str) -> list[str]:
    """The ids of the items ``eval ARGV`` (with its ``--limit``) runs, in their order, before running it (nothing is
    run or written: ``--out`` may be left out)."""
    args = build_parser().parse_args(["eval", *argv, *([] if "--out" in argv else ["--out", "unused-run-folder"])])
    task = tasks()[args.task]
    settings = settings_from_args(task, args)
    if settings.limit is None:
        raise ValueError("selected_ids is for a limited run: give --limit")
    options, configs = check_settings(task, settings, frozenset(settings.models))
    items = task.items(TaskContext(task, settings, options, configs, clients={}))
    return [item.id for item in limited_items(task, items, settings.limit)]


def run_ids(run: Path) -> list[str]:
    """The ids of the items a run folder holds, in its ``results.jsonl`` order."""
    return [line["id"] for line in read_results(run)]


def lm_eval_samples(task: str, ids: Sequence[str], metadata: dict[str, Any]) -> dict[str, list[int]]:
    """lm-eval's ``samples`` argument (``--samples``) running exactly the docs of ``task`` with these ids: their
    indices in the order the task reads its docs (sorted: lm-eval maps a doc back to its index by position)."""
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata=metadata)
    position = {doc["id"]: index for index, doc in enumerate(get_task_dict([task], manager)[task].eval_docs)}
    missing = [item_id for item_id in ids if item_id not in position]
    if missing or len(set(ids)) != len(ids):
        raise ValueError(f"{task} has no doc for {missing} or the ids repeat: {list(ids)}")
    return {task: sorted(position[item_id] for item_id in ids)}
