"""``causal-datasets report RUN_DIR [RUN_DIR ...] --out DIR``: Markdown tables and PNG plots of runs."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help="tables and plots of one or more eval runs, side by side")
    parser.add_argument("runs", nargs="+", type=Path, help="run folders written by `causal-datasets eval`")
    parser.add_argument("--out", type=Path, required=True, help="folder for report.md and the PNG plots")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from causal_datasets.report.render import write_report  # matplotlib: imported by this command only

    path = write_report(args.runs, args.out)
    print(f"wrote {path}")
    return 0
