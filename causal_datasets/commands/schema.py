"""``causal-datasets schema run-summary|item-result [BENCHMARK]``: the JSON Schema of a run's ``summary.json``
or of one ``results.jsonl`` line, typed by the benchmark's task (its metrics; its generation and scores).

Without a benchmark, ``run-summary`` covers every registered benchmark (the metrics told apart by
``benchmark``); ``item-result`` needs one, since each benchmark types its own lines.
"""

from __future__ import annotations

import argparse
import json
from typing import Annotated, Any, Union

from pydantic import Field

from causal_datasets.commands._errors import CommandError
from causal_datasets.commands._help import command_parser
from causal_datasets.runners.records import RunSummary
from causal_datasets.runners.registry import get_task, tasks

RECORDS = ("run-summary", "item-result")


#: the command's line in ``causal-datasets --help``
HELP = "print the JSON Schema of run summaries or of item results"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "schema", HELP, __doc__)
    parser.add_argument(
        "record", choices=RECORDS, help="run-summary (summary.json) or item-result (a results.jsonl line)"
    )
    parser.add_argument("benchmark", nargs="?", help=f"the benchmark ({', '.join(tasks())})")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.benchmark is not None:
        task = get_task(args.benchmark)
        model: Any = task.summary_model if args.record == "run-summary" else task.result_model
    elif args.record == "run-summary":
        metrics = tuple(task.metrics for task in tasks().values())
        union = metrics[0] if len(metrics) == 1 else Annotated[Union[metrics], Field(discriminator="benchmark")]  # noqa: UP007 - a tuple of types
        model = RunSummary[union]  # type: ignore[valid-type]
    else:
        raise CommandError(f"item-result needs a benchmark: each types its own lines ({', '.join(tasks())})")
    print(json.dumps(model.model_json_schema(), indent=2))
    return 0
