"""``causal-datasets info NAME``: version, configs and row counts of a built dataset (or its declaration)."""

from __future__ import annotations

import argparse
from pathlib import Path

from causal_datasets import registry
from causal_datasets.hub.folder import read_manifest
from causal_datasets.markdown import markdown_table
from causal_datasets.paths import DEFAULT_HUB_DIR


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("info", help="describe a dataset: version, configs, row counts")
    parser.add_argument("name", nargs="?", help="dataset name (omit to list every dataset)")
    parser.add_argument("--hub-dir", type=Path, default=DEFAULT_HUB_DIR, help="root of built datasets (default hub/)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        rows = [
            [b.name, b.version, ", ".join(b.configs), "yes" if b.needs_source else "no", _built(args.hub_dir / b.name)]
            for b in registry.builders().values()
        ]
        print(markdown_table(["dataset", "version", "configs", "needs source", "built"], rows))
        return 0
    builder = registry.get_builder(args.name)
    print(f"{builder.pretty_name} ({builder.name}) version {builder.version}")
    print(f"source: {builder.source_description}")
    folder = args.hub_dir / builder.name
    if not (folder / "manifest.json").exists():
        print(f"declared configs: {', '.join(builder.configs)}; not built in {args.hub_dir} (run `causal-datasets build {builder.name}`)")
        return 0
    manifest = read_manifest(folder)
    print(f"built: {folder} (version {manifest['version']}, seed {manifest['seed']}, package {manifest['package_version']})")
    rows = [[config, split, count] for config, splits in manifest["rows"].items() for split, count in splits.items()]
    print(markdown_table(["config", "split", "rows"], rows))
    return 0


def _built(folder: Path) -> str:
    if not (folder / "manifest.json").exists():
        return "no"
    return f"v{read_manifest(folder)['version']}"
