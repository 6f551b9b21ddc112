"""``causal-datasets info NAME``: version, configs, what each config is built from, row counts of a build."""

from __future__ import annotations

import argparse
from pathlib import Path

from causal_datasets import registry
from causal_datasets.builder import DatasetBuilder
from causal_datasets.hub.folder import read_manifest
from causal_datasets.markdown import markdown_table
from causal_datasets.paths import DEFAULT_HUB_DIR


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "info", help="describe a dataset: version, configs, what each needs to be built, row counts")
    parser.add_argument("name", nargs="?", help="dataset name (omit to list every dataset)")
    parser.add_argument("--hub-dir", type=Path, default=DEFAULT_HUB_DIR, help="root of built datasets (default hub/)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        rows = [[b.name, b.version, ", ".join(b.configs), _from_source(b), _built(args.hub_dir / b.name)]
                for b in registry.builders().values()]
        print(markdown_table(["dataset", "version", "configs", "built from released files", "built"], rows))
        print("The other configs are generated. `causal-datasets info NAME` says which files and how to give them.")
        return 0
    builder = registry.get_builder(args.name)
    print(f"{builder.pretty_name} ({builder.name}) version {builder.version}")
    print(f"source: {builder.source_description}")
    folder = args.hub_dir / builder.name
    built = read_manifest(folder)["rows"] if (folder / "manifest.json").exists() else {}
    rows = [[config, _needs(builder, config),
             ", ".join(f"{split} {count}" for split, count in built.get(config, {}).items()) or "not built"]
            for config in builder.configs]
    print(markdown_table(["config", "needs", "rows"], rows))
    if builder.configs_from_source():
        print(f"released files: {builder.source_help()}")
    if built:
        manifest = read_manifest(folder)
        print(f"built: {folder} (version {manifest['version']}, seed {manifest['seed']}, "
              f"package {manifest['package_version']})")
    else:
        print(f"not built in {args.hub_dir} (run `causal-datasets build {builder.name}`)")
    return 0


def _from_source(builder: DatasetBuilder) -> str:
    configs = builder.configs_from_source()
    if not configs:
        return "none"
    return "every config" if len(configs) == len(builder.configs) else ", ".join(configs)


def _needs(builder: DatasetBuilder, config: str) -> str:
    if config not in builder.configs_from_source():
        return "nothing: generated"
    return "the released files (downloaded when online)" if builder.downloads_source else "the released files"


def _built(folder: Path) -> str:
    if not (folder / "manifest.json").exists():
        return "no"
    return f"v{read_manifest(folder)['version']}"
