"""``causal-datasets push NAME --repo-id ORG/NAME [--tag vX.Y.Z]``: publish a built folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from causal_datasets.hub.push import push_folder
from causal_datasets.paths import DEFAULT_HUB_DIR


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("push", help="upload a built dataset folder to the Hugging Face Hub and tag it")
    parser.add_argument("name", help="dataset name (its folder under --hub-dir)")
    parser.add_argument("--repo-id", required=True, help="ORG/NAME of the hub dataset repository")
    parser.add_argument("--tag", help="version tag (default: v<version> from the manifest)")
    parser.add_argument("--hub-dir", type=Path, default=DEFAULT_HUB_DIR, help="root of built datasets (default hub/)")
    parser.add_argument("--private", action="store_true", help="create the repository as private")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = push_folder(args.hub_dir / args.name, args.repo_id, tag=args.tag, private=args.private)
    print(f"pushed {args.name} to {result.repo_id} as {result.tag}: {result.commit_url}")
    return 0
