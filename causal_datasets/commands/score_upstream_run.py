"""``causal-datasets score-upstream-run PATH ... --out DIR``: score the authors' CausaLab run folders as
published transcripts, through the task's own scoring, and write them as a run folder that ``report`` reads.

A PATH is one upstream run folder (``graph_config.json``, the tracking stream, ``raw_io.jsonl``, the
data file), or a folder searched for them (e.g. a whole ``output_dir``). Each run's episode is its
own configuration with its own crystals, prior observations and budget; its replies (kept as the
model's calls) are parsed with the same DSL parser as a model's, scored at every step and at the end,
and checked against the data the agent saw. Prints ``summary.json``; a folder that is not a run is
exit 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from causal_datasets.causalab.upstream_scores import score_upstream_runs
from causal_datasets.commands._help import command_parser

#: the command's line in ``causal-datasets --help``
HELP = "score the authors' CausaLab run folders with our metrics (a run folder for report)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "score-upstream-run", HELP, __doc__)
    parser.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="an upstream run folder, or a folder holding several"
    )
    parser.add_argument("--out", type=Path, required=True, help="run folder to write results.jsonl and summary.json to")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    summary = score_upstream_runs(args.paths, args.out)
    print(summary.model_dump_json(indent=2))
    return 0
