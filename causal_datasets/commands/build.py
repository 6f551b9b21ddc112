"""``causal-datasets build NAME | --all``: build hub-layout folders, load them back, print a summary.

A dataset whose folder already holds the build asked for (same dataset and package version, seed,
options and source contents, recorded in its manifest, and every file as the manifest lists it) is kept
and said so; ``--force`` rebuilds it."""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from pathlib import Path

from causal_datasets import registry
from causal_datasets.builder import BuildContext, DatasetBuilder
from causal_datasets.cluster import RayCluster
from causal_datasets.cobe import construct_args
from causal_datasets.commands._errors import CommandError
from causal_datasets.commands._task_options import add_options, options_from_args
from causal_datasets.commands._types import at_least
from causal_datasets.errors import SourceUnavailable
from causal_datasets.hub.folder import WrittenDataset, build_to_folder, current_build, verify_folder
from causal_datasets.hub.layout import CARD
from causal_datasets.hub.remote import build_to_url, hub_root
from causal_datasets.markdown import markdown_table
from causal_datasets.paths import DEFAULT_HUB_DIR, SOURCES_ENV, sources_dir
from causal_datasets.sharding import available_cpus, on_ray


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("build", help="build datasets into hub-layout folders and load them back")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("name", nargs="?", help="dataset name")
    target.add_argument("--all", action="store_true", help="every dataset whose sources are available")
    parser.add_argument(
        "--hub-dir",
        type=hub_root,
        default=DEFAULT_HUB_DIR,
        help="root of built datasets: a folder (default hub/) or an fsspec URL (s3://BUCKET/PATH, gs://...)",
    )
    parser.add_argument("--seed", type=at_least(0), help="generator seed (default: the dataset's own)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="rebuild a dataset whose build is current, replace a folder that is not a build of the dataset, "
        "or drop configs the previous build had",
    )
    parser.add_argument("--source", type=Path, help="source file or folder of a single dataset")
    parser.add_argument(
        "--sources",
        type=Path,
        help=f"with --all: a folder holding each dataset's source under its source name (default ${SOURCES_ENV})",
    )
    parser.add_argument(
        "--num-proc",
        type=at_least(1),
        default=available_cpus(),
        help="workers generating a generated config (default: the CPUs available); "
        "the rows are the same for any number",
    )
    construct_args.add_arguments(parser)  # build cobe --construct CORE --model M: causal_datasets/cobe/construct
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="run each shard of a generated config as a Ray task (the ray extra): on the cluster at ADDRESS "
        "(auto, HOST:PORT, ray://HOST:10001), or without one on a local Ray runtime of --num-proc CPUs; "
        "the same bytes as without",
    )
    for builder in registry.builders().values():  # a builder's own options, e.g. shapeworld's --sizes
        if builder.options is not None:
            add_options(parser, builder.options, title=f"{builder.name} options")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    construct_args.run_construction(args)  # build cobe --construct: the construction's folder is the source
    if args.all:
        if args.source:
            raise CommandError("--source names one dataset's source; with --all use --sources DIR")
        chosen = list(registry.builders().values())
        sources = args.sources or sources_dir()
        if sources is not None and not sources.is_dir():
            raise CommandError(f"--sources {sources} is not a folder")
    else:
        if args.sources:
            raise CommandError("--sources is for --all; name one dataset's source with --source PATH")
        chosen = [registry.get_builder(args.name)]
        if args.source is not None and not args.source.exists():
            raise CommandError(f"--source {args.source} does not exist")
    _check_options(args, chosen)
    summary, skipped, kept = [], [], []
    for builder in chosen:
        source = _source_under(builder, sources) if args.all else args.source or builder.default_source()
        if builder.needs_source and source is None and args.all:
            skipped.append((builder.name, "needs a source file; pass --sources DIR or build it alone with --source"))
            continue
        options = options_from_args(builder.options, args) if builder.options is not None else None
        context = BuildContext(
            seed=builder.default_seed if args.seed is None else args.seed,
            source=source,
            options=options,
            num_proc=args.num_proc,
        )
        local = isinstance(args.hub_dir, Path)  # an fsspec URL is built anew
        if not args.force and local and (folder := current_build(builder, args.hub_dir, context)) is not None:
            kept.append(builder.name)
            print(
                f"kept {builder.name}: {folder} is already this build (version {builder.version}, seed {context.seed}, "
                "the same options and source files); --force rebuilds it"
            )
            continue
        try:
            written, loaded, where = _build(builder, args, context)
        except SourceUnavailable as error:
            if not args.all:
                raise
            skipped.append((builder.name, str(error)))
            continue
        for config, splits in loaded.items():
            for split, rows in splits.items():
                summary.append([builder.name, builder.version, config, split, rows, where])
        for note in written.notes:
            print(f"note: {builder.name}: {note}")
        found = [finding.summary() for finding in written.findings if finding.ids]
        if found:
            findings = "finding" if len(found) == 1 else "findings"
            print(
                f"note: {builder.name}: {len(found)} data-quality {findings}, each with its ids and what the build "
                f"did under Data Quality in {where}/{CARD}:"
            )
            print("\n".join(f"  {line}" for line in found))
    if summary:
        print(markdown_table(["dataset", "version", "config", "split", "rows (loaded back)", "folder"], summary))
    for name, reason in skipped:
        print(f"skipped {name}: {reason}")
    return 0 if summary or kept or not chosen else 1


def _build(
    builder: DatasetBuilder, args: argparse.Namespace, context: BuildContext
) -> tuple[WrittenDataset, dict[str, dict[str, int]], str]:
    """``builder`` built into ``--hub-dir`` (a folder or an fsspec URL), its shards on Ray with ``--ray``: what was
    written, the rows loaded back, and where."""
    with on_ray(RayCluster(args.ray or None, args.num_proc)) if args.ray is not None else nullcontext():
        if isinstance(args.hub_dir, str):
            return build_to_url(builder, args.hub_dir, context, replace=args.force)
        written = build_to_folder(builder, args.hub_dir, context, replace=args.force)
    return written, verify_folder(written.folder), str(written.folder)


def _source_under(builder: DatasetBuilder, sources: Path | None) -> Path | None:
    if sources is None or builder.source_name is None:
        return None
    candidate = sources / builder.source_name
    return candidate if candidate.exists() else None


def _check_options(args: argparse.Namespace, chosen: list[DatasetBuilder]) -> None:
    """An option of a builder that is not being built is an error, not silently ignored."""
    for builder in registry.builders().values():
        given = [name for name in (builder.options.model_fields if builder.options else ()) if hasattr(args, name)]
        if given and (builder not in chosen or args.all):
            flag = "--" + given[0].replace("_", "-")
            raise CommandError(f"{flag} is an option of `build {builder.name}` alone")
