"""``causal-datasets report RUN [RUN ...] --out DIR``: Markdown tables and PNG plots of runs.

A RUN is a run folder, the folder of an exported results dataset (``export-runs``) or an export on the Hub,
``hf://datasets/ORG/NAME@REVISION``: every run it holds.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help="tables and plots of one or more eval runs, side by side")
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help=(
            "a run folder written by `causal-datasets eval`, an exported results dataset (its folder, or "
            "hf://datasets/ORG/NAME@REVISION on the Hub): all its runs"
        ),
    )
    parser.add_argument("--out", type=Path, required=True, help="folder for report.md and the PNG plots")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from causal_datasets.exports.reading import load_runs
    from causal_datasets.report.render import write_report  # matplotlib: imported by this command only

    path = write_report([run for source in args.runs for run in load_runs(source)], args.out)
    print(f"wrote {path}")
    return 0
