"""What every runner needs before and after its loop: where its dataset is read from, and the run's metadata."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from causal_datasets import __version__
from causal_datasets.errors import RunConfigurationError
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.client import LLMClient
from causal_datasets.paths import DEFAULT_HUB_DIR

USAGE_TOTALS = ("calls", "http_requests", "prompt_tokens", "completion_tokens", "cached_prompt_tokens",
                "cached_completion_tokens")


def add_dataset_arguments(parser: argparse.ArgumentParser, name: str, *, from_files: bool) -> None:
    """``--hub-dir``, ``--dataset``/``--revision`` and, for a dataset built from released files
    (``from_files``), ``--source``."""
    group = parser.add_argument_group("dataset")
    group.add_argument("--hub-dir", type=Path, default=DEFAULT_HUB_DIR,
                       help=f"root of built datasets; {name} is built there when missing (default hub/)")
    group.add_argument("--dataset", metavar="ORG/NAME",
                       help=f"read {name} from this Hugging Face Hub dataset instead of a local build")
    group.add_argument("--revision", help="with --dataset: a tag, branch or commit, e.g. v1.2.0 (default main)")
    if from_files:
        group.add_argument("--source", type=Path,
                           help=f"released files that a local build of {name} reads (default: under $CAUSAL_DATASETS_SOURCES)")


def location_from_args(args: argparse.Namespace) -> DatasetLocation:
    """The :class:`DatasetLocation` that :func:`add_dataset_arguments`' options describe."""
    if args.revision and not args.dataset:
        raise RunConfigurationError("--revision needs --dataset ORG/NAME (a local build has no revisions)")
    return DatasetLocation(hub_dir=args.hub_dir, repo_id=args.dataset, revision=args.revision,
                           source=getattr(args, "source", None))


def run_metadata(
    location: DatasetLocation, manifest: Mapping[str, Any], config: str, clients: Mapping[str, LLMClient | None],
    **extra: Any,
) -> dict[str, Any]:
    """The ``run`` section of ``summary.json``: dataset (where it was read, its version), package version,
    per-role LLM usage and totals.

    ``clients`` maps a role ("model", "judge", …) to its client (None when unused); a client
    serving two roles is counted once in ``usage_total``.
    """
    usage = {role: client.usage_summary() for role, client in clients.items() if client is not None}
    distinct = {id(client): client.usage_summary() for client in clients.values() if client is not None}
    total: dict[str, Any] = {key: sum(u.get(key) or 0 for u in distinct.values()) for key in USAGE_TOTALS}
    costs = [u["cost_usd"] for u in distinct.values() if u.get("cost_usd") is not None]
    total["cost_usd"] = round(sum(costs), 6) if costs else None
    return {
        "dataset": manifest["name"],
        "read_from": location.describe(manifest["name"]),
        "version": manifest["version"],
        "dataset_seed": manifest["seed"],
        "config": config,
        "package_version": __version__,
        "usage": usage,
        "usage_total": total,
        **extra,
    }
