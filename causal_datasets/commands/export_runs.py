"""``causal-datasets export-runs RUN... --name NAME [--hub-dir DIR]``: runs as a results dataset folder.

Writes (or extends) ``DIR/NAME`` with the builders' writer, loads it back and prints what it holds; ``push NAME
--dataset ORG/NAME`` publishes it like a benchmark. Exports into one folder take turns under a lock
(``DIR/.NAME.lock``): started together, each adds its runs to what the one before wrote.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from causal_datasets.exports import export_runs
from causal_datasets.markdown import markdown_table
from causal_datasets.paths import DEFAULT_HUB_DIR


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export-runs", help="write eval runs as a Hub dataset: per-item details, headline results, a leaderboard card"
    )
    parser.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN", help="run folders written by `causal-datasets eval`"
    )
    parser.add_argument("--name", required=True, help="dataset name (its folder under --hub-dir; NAME of ORG/NAME)")
    parser.add_argument("--hub-dir", type=Path, default=DEFAULT_HUB_DIR, help="root of built datasets (default hub/)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    outcome = export_runs(args.runs, args.name, args.hub_dir)
    rows = [[config, split, count] for config, splits in outcome.loaded.items() for split, count in splits.items()]
    print(markdown_table(["config", "split", "rows (loaded back)"], rows))
    added = ", ".join(outcome.added) or "none"
    print(
        f"{args.name} v{outcome.version} in {outcome.written.folder}: {len(outcome.added)} run(s) added ({added}), "
        f"{len(outcome.kept)} kept from the earlier export"
    )
    for run_id in outcome.already_there:
        print(f"note: run {run_id} is already in the export")
    return 0
