"""``causal-datasets rescore RUN --out NEW [options]``: score a finished run again with the current code.

Every scored item's transcript (its model calls and generation record) is scored again by the
benchmark's current scoring; the judge's recorded replies are reused. Only scoring options may
change (``causal-datasets rescore RUN --help`` lists the benchmark's, e.g. ``--scoring`` of
cladder_pairs); one that changes what the judge is asked needs ``--judge-model`` (and
``--judge-base-url``), and then only the judge is called. The dataset is read where the run read
it (a Hub id through the Hub cache; a local build only while it is still there: nothing read from
the run chooses where a dataset is built) unless ``--hub-dir`` / ``--dataset`` say otherwise; its
version must be the run's. Every result line must be readable and be the items the run's summary
counts. Prints eval's table of headline scores for the new run (``--json``: its ``summary.json``, which
says which version scored the old run); exit codes as ``eval``'s.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from causal_datasets.cluster import RayCluster
from causal_datasets.commands._errors import CommandError
from causal_datasets.commands._help import command_parser
from causal_datasets.commands._task_options import (
    add_dataset_arguments,
    add_options,
    location_from_args,
)
from causal_datasets.commands._types import at_least
from causal_datasets.commands.eval import EXIT_CODES, result_table, status_line
from causal_datasets.flags import flag, given_values
from causal_datasets.llm.options import add_model_arguments, spec_from_args
from causal_datasets.runners.rescore import rescore_run
from causal_datasets.runners.results import read_typed_summary

#: the command's line in ``causal-datasets --help``
HELP = "score a finished run again with the current code (no model asked)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "rescore", HELP, __doc__)
    parser.add_argument("run", type=Path, metavar="RUN", help="the run folder to score again")
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="...",
        help="--out NEW and the benchmark's scoring options (RUN --help lists them)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    task, before = read_typed_summary(args.run, "rescore")
    parser = argparse.ArgumentParser(
        prog=f"causal-datasets rescore {args.run}",
        description=f"score a {task.name} run again (it was scored by causal-datasets {before.package_version})",
    )
    parser.add_argument("--out", type=Path, required=True, help="the new run folder (results.jsonl, summary.json)")
    parser.add_argument("--concurrency", type=at_least(1), default=4, help="items scored at once (default 4)")
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="score the items as Ray tasks (the ray extra) on the cluster at ADDRESS, or without one on a local "
        "Ray runtime; recorded calls only (no model asked anew); the same results",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the new summary.json instead of the table of headline scores"
    )
    add_dataset_arguments(
        parser, task, hub_dir=None, hub_dir_default=f"where the run read it: {before.dataset.read_from}"
    )
    for spec in task.roles:
        if spec.scoring:
            add_model_arguments(
                parser,
                prefix=spec.flag,
                purpose=f"{spec.help}; given: asked anew",
                omitted="its replies are read from the run",
            )
    add_options(parser, task.options, "scoring options", only=task.scoring_options)
    given, unknown = parser.parse_known_args(args.options)
    if unknown:
        generation = {flag(name) for name in task.options.model_fields if name not in task.scoring_options}
        if unknown[0] in generation:
            allowed = ", ".join(flag(name) for name in task.scoring_options) or "none"
            raise CommandError(
                f"{unknown[0]} describes how the transcripts were generated: rescore changes only "
                f"scoring options ({allowed})"
            )
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    options = given_values(task.options, given)
    models = {
        spec.role: model
        for spec in task.roles
        if spec.scoring and (model := spec_from_args(given, spec.flag)) is not None
    }
    explicit = given.hub_dir is not None or given.dataset is not None
    summary = rescore_run(
        args.run,
        given.out,
        options=options,
        models=models,
        location=location_from_args(given) if explicit else None,
        concurrency=given.concurrency,
        cluster=None if given.ray is None else RayCluster(given.ray or None),
    )
    print(summary.model_dump_json(indent=2) if given.json else result_table(task, summary, given.out))
    print(
        status_line(summary, f"`causal-datasets eval ... --resume` into {args.run} runs them, then rescore it"),
        file=sys.stderr,
    )
    if summary.rescored and summary.rescored.notes:
        for note in summary.rescored.notes:
            print(f"note: {note}", file=sys.stderr)
    return EXIT_CODES[summary.status]
