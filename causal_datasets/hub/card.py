"""Dataset cards: ``cards/<name>.md`` (YAML front matter + Jinja2 body) → the folder's README.md.

The template supplies the human parts (description, task categories, tags, license, citation,
how to evaluate). The front matter's ``configs``, ``dataset_info`` and ``size_categories`` and
every statistic in the body are computed here from the records, so the card cannot disagree with
the data. Template variables: ``name``, ``pretty_name``, ``version``, ``seed``, ``source``,
``configs_table``, ``statistics`` (Markdown per config), ``load_example``, ``configs`` (names)
plus whatever the builder's ``card_context`` returns.
"""

from __future__ import annotations

import statistics as stats
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import datasets
import jinja2
import yaml

from causal_datasets.builder import BuiltRecords, DatasetBuilder
from causal_datasets.errors import BuilderRegistrationError
from causal_datasets.hub.layout import parquet_path
from causal_datasets.markdown import markdown_table

SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Separate ``---`` YAML front matter from a Markdown document."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]) or {}, text[end + 5 :]


def render_card(
    builder: DatasetBuilder,
    records: BuiltRecords,
    features: Mapping[str, datasets.Features],
    row_counts: Mapping[str, Mapping[str, int]],
    split_bytes: Mapping[str, Mapping[str, int]],
    source: str,
    seed: int,
) -> str:
    template_path = builder.card_path
    if not template_path.exists():
        raise BuilderRegistrationError(f"no card template {template_path} for dataset {builder.name!r}")
    front, body = split_front_matter(template_path.read_text(encoding="utf-8"))
    front["pretty_name"] = builder.pretty_name
    front["size_categories"] = [size_category(sum(sum(s.values()) for s in row_counts.values()))]
    front["configs"] = [
        {
            "config_name": config,
            "data_files": [{"split": split, "path": parquet_path(config, split)} for split in splits],
            **({"default": True} if index == 0 else {}),
        }
        for index, (config, splits) in enumerate(row_counts.items())
    ]
    front["dataset_info"] = [
        {
            "config_name": config,
            "features": features[config]._to_yaml_list(),
            "splits": [
                {"name": split, "num_bytes": split_bytes[config][split], "num_examples": count}
                for split, count in splits.items()
            ],
        }
        for config, splits in row_counts.items()
    ]
    split_names = sorted({split for splits in row_counts.values() for split in splits})
    context = {
        "name": builder.name,
        "pretty_name": builder.pretty_name,
        "version": builder.version,
        "seed": seed,
        "source": source,
        "configs": list(row_counts),
        "configs_table": markdown_table(
            ["config", *split_names],
            [[config, *(splits.get(s, 0) for s in split_names)] for config, splits in row_counts.items()],
        ),
        "statistics": "\n\n".join(
            f"### `{config}`\n\n{column_statistics(records[config], features[config])}" for config in row_counts
        ),
        "load_example": load_example(builder.name, next(iter(row_counts)), builder.version),
        **(dict(builder.card_context(records)) if builder.card_context else {}),
    }
    rendered = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True).from_string(body)
    front_yaml = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=120)
    return f"---\n{front_yaml}---\n{rendered.render(**context)}"


def size_category(rows: int) -> str:
    for bound, label in SIZE_CATEGORIES:
        if rows < bound:
            return label
    return "n>1M"


def load_example(name: str, config: str, version: str) -> str:
    return (
        "```python\nfrom datasets import load_dataset\n\n"
        f'ds = load_dataset("hub/{name}", "{config}")  # a local build\n'
        f'# once pushed: load_dataset("<org>/{name}", "{config}", revision="v{version}")\n```'
    )


def column_statistics(splits: Mapping[str, Sequence[Any]], features: datasets.Features) -> str:
    """Markdown statistics of the top-level columns: label counts, numeric ranges, list lengths."""
    parts = []
    split_names = list(splits)
    rows = {split: [r.to_row() for r in records] for split, records in splits.items()}
    for column, feature in features.items():
        if isinstance(feature, datasets.ClassLabel):
            counts = {s: Counter(row[column] for row in rows[s]) for s in split_names}
            table = markdown_table(
                [column, *split_names], [[label, *(counts[s][label] for s in split_names)] for label in feature.names]
            )
            parts.append(f"**{column}** (class label)\n\n{table}")
    numeric_rows = []
    for column, feature in features.items():
        if isinstance(feature, datasets.Value) and feature.dtype in {"int32", "int64", "float32", "float64"}:
            kind = ""
        elif isinstance(feature, datasets.List):
            kind = "length of "
        else:
            continue
        for split in split_names:
            values = [_measure(row[column], kind) for row in rows[split] if row[column] is not None]
            if values:
                numeric_rows.append(
                    [f"{kind}{column}", split, min(values), round(stats.fmean(values), 4), stats.median(values), max(values)]
                )
    if numeric_rows:
        parts.append(markdown_table(["column", "split", "min", "mean", "median", "max"], numeric_rows))
    return "\n\n".join(parts) if parts else "(no label or numeric columns)"


def _measure(value: Any, kind: str) -> float:
    return len(value) if kind else value
