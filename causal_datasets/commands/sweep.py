"""``causal-datasets sweep ...``: the CausaLab scaling experiments (the paper's App. Figs. 13–14) as
one command: an ``eval causalab`` run per point, each in ``--out/<family>-o<records>-i<budget>/``.

Families: ``observation`` (N prior records, no intervention), ``intervention`` (no record, budget
N) and ``mixed`` (3 records, budget N), for every N of ``--counts`` (default 3 6 12 24). Every
other option is ``eval causalab``'s. ``report --out R DIR/*`` then draws the curves. A point
already done is skipped by ``--resume`` like any run; the exit code is the worst of the runs'.
"""

from __future__ import annotations

import argparse
import sys

from causal_datasets.causalab.regimes import SCALING_COUNTS, ScalingFamily
from causal_datasets.causalab.sweep import run_sweep
from causal_datasets.causalab.task import TASK
from causal_datasets.commands._help import command_parser
from causal_datasets.commands._types import at_least
from causal_datasets.commands.eval import EXIT_CODES, INTERRUPTED, add_task_arguments, settings_from_args, status_line

FAMILIES: tuple[ScalingFamily, ...] = ("observation", "intervention", "mixed")


#: the command's line in ``causal-datasets --help``
HELP = "CausaLab's scaling experiments: one eval run per number of observations or interventions"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "sweep", HELP, __doc__)
    parser.add_argument(
        "--families",
        nargs="+",
        choices=FAMILIES,
        default=list(FAMILIES),
        help="which scaling families (default: all three)",
    )
    parser.add_argument(
        "--counts",
        nargs="+",
        type=at_least(1),
        default=list(SCALING_COUNTS),
        help="the numbers of observations or interventions (default 3 6 12 24)",
    )
    add_task_arguments(parser, TASK)
    next(
        action for action in parser._actions if action.dest == "out"
    ).help = "folder for the runs, one sub-folder per point"
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        summaries = run_sweep(settings_from_args(TASK, args), args.families, args.counts)
    except KeyboardInterrupt:
        print(f"interrupted: what was done is in {args.out}; continue with --resume", file=sys.stderr)
        return INTERRUPTED
    for summary in summaries:
        print(status_line(summary))
    return max(EXIT_CODES[summary.status] for summary in summaries)
