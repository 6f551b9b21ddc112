"""Reading typed records back from a built folder: the rows out of Arrow in one conversion, beside
iterating the dataset row by row (what ``records_from_dataset`` did before), in one run.

Builds ShapeWorld (generated) and ReCAST (from the released Parquet) into a temporary folder, then
times ``records_from_dataset`` and the row-by-row variant on each config, best of ``--repeats``.

    .venv/bin/python scripts/bench_loading.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import tempfile
from functools import partial
from pathlib import Path

import datasets
from checkout import SHARED_DATA_DIR
from timing import best_of

from causal_datasets.builder import BuildContext
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.markdown import markdown_table
from causal_datasets.records.base import Record, records_from_dataset
from causal_datasets.registry import get_builder

CASES = (
    ("shapeworld", "core", None),
    ("shapeworld", "advanced", None),
    ("recast", "default", SHARED_DATA_DIR / "recast" / "test.parquet"),
)


def row_by_row(dataset: datasets.Dataset, model: type[Record]) -> list[Record]:
    """The earlier reading: iterate the dataset (each row formatted on its own)."""
    features = dataset.features
    return [model.from_row(row, features) for row in dataset]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as root:
        for name, config, source in CASES:
            builder = get_builder(name)
            if not (Path(root) / name).exists():
                build_to_folder(builder, Path(root), BuildContext(seed=builder.default_seed, source=source))
            dataset = datasets.load_dataset(
                str(Path(root) / name), config, split="test", data_files={"test": f"data/{config}/test-*.parquet"}
            )
            model = builder.configs[config]
            assert records_from_dataset(dataset, model) == row_by_row(dataset, model)
            new, _ = best_of(partial(records_from_dataset, dataset, model), args.repeats)
            old, _ = best_of(partial(row_by_row, dataset, model), args.repeats)
            rows.append(
                [f"{name}/{config}", f"{len(dataset):,}", f"{old * 1000:.0f}", f"{new * 1000:.0f}", f"{old / new:.1f}×"]
            )
    print(markdown_table(["config", "rows", "row by row (ms)", "one conversion (ms)", "speed-up"], rows))


if __name__ == "__main__":
    main()
