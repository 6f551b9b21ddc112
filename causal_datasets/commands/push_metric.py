"""``causal-datasets push-metric NAME --repo-id ORG/NAME``: publish an evaluate module as a Gradio Space."""

from __future__ import annotations

import argparse

from causal_datasets.hub.push import push_metric
from causal_datasets.paths import metric_names


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "push-metric", help="upload a metric module (module, app.py, card, requirements) as a Hugging Face Space"
    )
    parser.add_argument("name", choices=metric_names(), help="metric module")
    parser.add_argument("--repo-id", required=True, help="ORG/NAME of the Space")
    parser.add_argument("--tag", help="version tag (default: v<package version>)")
    parser.add_argument("--private", action="store_true", help="create the Space as private")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = push_metric(args.name, args.repo_id, tag=args.tag, private=args.private)
    print(f"pushed metric {args.name} to the Space {result.repo_id} as {result.tag}: {result.commit_url}")
    print(f'load it with: evaluate.load("{result.repo_id}")')
    return 0
