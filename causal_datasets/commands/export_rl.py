"""``causal-datasets export-rl NAME --config C --format verl --out DIR``: a single-turn task as RL training rows.

NAME is a built dataset (under ``--hub-dir``) whose ``--config`` a reward scores (``cladder_pairs prompts``,
``recast prompts`` ...: ``rewards.PROMPTS_CONFIGS``), or ``gym`` with ``--config`` a generator of
``causal_datasets.gym`` (``--size``, ``--seed``, ``--difficulty KNOB=VALUE``). Writes ``DIR/<split>.parquet`` in
verl's layout (``integrations/verl.py``) atomically, and prints the verl settings that train on it.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from causal_datasets.commands._errors import CommandError
from causal_datasets.paths import DEFAULT_HUB_DIR

FORMATS = ("verl",)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export-rl", help="write a single-turn task as RL training rows (verl's Parquet layout) with its reward"
    )
    parser.add_argument("name", help="a built dataset, or gym for a generator of causal_datasets.gym")
    parser.add_argument("--config", required=True, help="the dataset's scored config, or the gym generator")
    parser.add_argument("--format", choices=FORMATS, default="verl", help="the trainer's layout (default verl)")
    parser.add_argument("--out", type=Path, required=True, help="folder the Parquet file is written to")
    parser.add_argument("--hub-dir", type=Path, default=DEFAULT_HUB_DIR, help="root of built datasets (default hub/)")
    parser.add_argument("--split", default="test", help="the dataset's split (default test; gym rows are train)")
    parser.add_argument("--size", type=int, default=1000, help="gym: entries (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="gym: seed (default 0)")
    parser.add_argument(
        "--difficulty", action="append", default=[], metavar="KNOB=VALUE", help="gym: a knob's value (repeatable)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from causal_datasets.integrations import verl

    if args.name == "gym":
        rows = verl.gym_rows(args.config, seed=args.seed, size=args.size, **_knobs(args.difficulty))
        split = "train"
    else:
        from causal_datasets.hub.location import DatasetLocation

        records = DatasetLocation(hub_dir=args.hub_dir).load(args.name, args.config, args.split).records
        rows, split = verl.prompts_rows(args.name, args.config, records, args.split), args.split
    path = _write(rows, args.out, split).resolve()
    print(f"{len(rows)} rows of {rows[0]['data_source'] if rows else args.config} in {path}")
    print(
        f"verl: data.train_files={path} reward.custom_reward_function.path={Path(verl.__file__).resolve()} "
        "reward.custom_reward_function.name=compute_score"
    )
    return 0


def _knobs(settings: list[str]) -> dict[str, Any]:
    knobs: dict[str, Any] = {}
    for setting in settings:
        knob, equals, text = setting.partition("=")
        if not equals or not knob:
            raise CommandError(f"--difficulty takes KNOB=VALUE, got {setting!r}")
        try:
            knobs[knob] = json.loads(text)
        except json.JSONDecodeError:
            knobs[knob] = text
    return knobs


def _write(rows: list[dict[str, Any]], folder: Path, split: str) -> Path:
    """``folder/<split>.parquet``, written beside its place and moved there (a reader sees all or nothing)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{split}.parquet"
    staged = folder / f".{split}.parquet.{os.getpid()}.tmp"
    try:
        pq.write_table(pa.Table.from_pylist(rows), staged)
        os.replace(staged, path)
    finally:
        staged.unlink(missing_ok=True)
    return path
