"""``causal-datasets compare RUN_A RUN_B [--metric M] [--json]``: paired differences of two runs on the same items.

Prints, per number of the benchmark (overall and per slice entry), run A's value minus run B's over the
items scored in both, with its 95% interval, p-value, Holm's adjusted p-value within each slice, the
number of paired items and the method; then the items scored in one run only. ``--json`` prints the rows
as a JSON array (``metric``, ``difference``, ``ci_low``, ``ci_high``, ``p_value``, ``n_paired`` and more)
and names the unpaired items on stderr. Exit 2 with one line for runs of different benchmarks, runs with
no item scored in both, a folder without a summary, an unreadable results line or results that are not the
items the summary counts, or an unknown ``--metric``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from causal_datasets.commands._help import command_parser

#: unpaired ids printed per run in the table form (all of them with --json)
SHOWN_IDS = 50


#: the command's line in ``causal-datasets --help``
HELP = "paired differences of two runs on the same items, with intervals"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "compare", HELP, __doc__)
    parser.add_argument("run_a", type=Path, metavar="RUN_A", help="a run folder written by `causal-datasets eval`")
    parser.add_argument("run_b", type=Path, metavar="RUN_B", help="another run of the same benchmark")
    parser.add_argument("--metric", help="only this number (e.g. accuracy, failure_rate.E1)")
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON array")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from causal_datasets.report.compare import compare_runs, comparison_table, unpaired_lines
    from causal_datasets.report.compare import describe as describe_comparison

    comparison = compare_runs(args.run_a, args.run_b, args.metric)
    if args.json:
        print(json.dumps([row.to_json() for row in comparison.rows], indent=2))
        for line in unpaired_lines(comparison):
            print(line, file=sys.stderr)
        return 0
    lines = [*describe_comparison(comparison), "", comparison_table(comparison), *unpaired_lines(comparison, SHOWN_IDS)]
    print("\n".join(lines))
    return 0
