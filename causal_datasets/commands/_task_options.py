"""A task's (or builder's) options model as command-line flags, and the flags back as a validated model;
the flags naming where a task's dataset is read.

The flags come from :mod:`causal_datasets.flags` (one per field, the model's defaults kept); a value
the model rejects is one line naming the flag (exit code 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from causal_datasets.commands._errors import CommandError
from causal_datasets.flags import add_flags, first_problem, given_values
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.paths import DEFAULT_HUB_DIR
from causal_datasets.runners.task import Task


def add_options(
    parser: argparse.ArgumentParser,
    model: type[BaseModel],
    title: str = "task options",
    only: Collection[str] | None = None,
) -> None:
    """A flag per field of ``model`` (``only``: just these fields)."""
    exclude = [] if only is None else [name for name in model.model_fields if name not in only]
    if len(exclude) < len(model.model_fields):
        add_flags(parser.add_argument_group(title), model, exclude=exclude)


def add_dataset_arguments(
    parser: argparse.ArgumentParser, task: Task[Any, Any, Any], *, hub_dir: Path | None, hub_dir_default: str = "hub/"
) -> None:
    """``--hub-dir``, ``--dataset``, ``--revision`` (and ``--source`` for a task built from released files)."""
    dataset = parser.add_argument_group("dataset")
    dataset.add_argument(
        "--hub-dir",
        type=Path,
        default=hub_dir,
        help=f"root of built datasets; {task.dataset} is built there when missing (default {hub_dir_default})",
    )
    dataset.add_argument(
        "--dataset",
        metavar="ORG/NAME",
        help=f"read {task.dataset} from this Hugging Face Hub dataset instead of a local build",
    )
    dataset.add_argument("--revision", help="with --dataset: a tag, branch or commit, e.g. v1.2.0 (default main)")
    if task.from_files:
        dataset.add_argument(
            "--source",
            type=Path,
            help=f"released files a local build of {task.dataset} reads (default: under $CAUSAL_DATASETS_SOURCES)",
        )


def location_from_args(args: argparse.Namespace) -> DatasetLocation:
    """The :class:`DatasetLocation` the dataset flags name (``--hub-dir`` given, or defaulted)."""
    if args.revision and not args.dataset:
        raise CommandError("--revision needs --dataset ORG/NAME (a local build has no revisions)")
    source = getattr(args, "source", None)
    if source is not None and not source.exists():
        raise CommandError(f"--source {source} does not exist")
    hub_dir = args.hub_dir if args.hub_dir is not None else DEFAULT_HUB_DIR
    return DatasetLocation(hub_dir=hub_dir, repo_id=args.dataset, revision=args.revision, source=source)


def options_from_args(
    model: type[BaseModel], args: argparse.Namespace, earlier: Mapping[str, Any] | None = None
) -> BaseModel:
    """The options the flags give, over ``earlier`` values (a resumed run's) where a flag is not given."""
    try:
        return model.model_validate({**(earlier or {}), **given_values(model, args)})
    except ValidationError as error:
        raise CommandError(first_problem(error)) from None
