"""``causal-datasets push NAME --dataset ORG/NAME [--tag vX.Y.Z]``: publish a built folder.

``--dataset`` names the Hub dataset as ``eval --dataset``, ``load_benchmark(dataset=...)``, inspect's
``-T dataset=`` and lm-eval's ``--metadata '{"dataset": ...}'`` do; ``--repo-id`` still works, with a warning."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from causal_datasets.commands._errors import CommandError
from causal_datasets.hub.push import push_folder
from causal_datasets.paths import DEFAULT_HUB_DIR


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("push", help="upload a built dataset folder to the Hugging Face Hub and tag it")
    parser.add_argument("name", help="dataset name (its folder under --hub-dir)")
    parser.add_argument("--dataset", metavar="ORG/NAME", help="the Hub dataset repository (created when missing)")
    parser.add_argument("--repo-id", help=argparse.SUPPRESS)  # the old name of --dataset
    parser.add_argument("--tag", help="version tag (default: v<version> from the manifest)")
    parser.add_argument("--hub-dir", type=Path, default=DEFAULT_HUB_DIR, help="root of built datasets (default hub/)")
    parser.add_argument("--private", action="store_true", help="create the repository as private")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.repo_id:
        print("warning: --repo-id is deprecated; use --dataset", file=sys.stderr)
        if args.dataset and args.dataset != args.repo_id:
            raise CommandError(f"--dataset {args.dataset} and --repo-id {args.repo_id} name two repositories")
    dataset = args.dataset or args.repo_id
    if not dataset:
        raise CommandError("give the Hub dataset to push to: --dataset ORG/NAME")
    result = push_folder(args.hub_dir / args.name, dataset, tag=args.tag, private=args.private)
    print(f"pushed {args.name} to {result.repo_id} as {result.tag}: {result.commit_url}")
    return 0
