"""``causal-datasets schema run-summary|item-result``: the JSON Schema of a run's ``summary.json`` or of one ``results.jsonl`` line."""

from __future__ import annotations

import argparse
import json

from causal_datasets.runners.records import SCHEMAS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("schema", help="print the JSON Schema of run summaries or of item results")
    parser.add_argument("record", choices=sorted(SCHEMAS), help="run-summary (summary.json) or item-result (a results.jsonl line)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print(json.dumps(SCHEMAS[args.record].model_json_schema(), indent=2))
    return 0
