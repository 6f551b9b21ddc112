"""The computed Markdown of a dataset card: field tables, statistics, data-quality findings, history.

Each function takes what the build produced (record models, rows, findings, releases) and nothing
the card template wrote, so these parts of the card cannot disagree with the data or the code.
"""

from __future__ import annotations

import enum
import inspect
import re
import statistics as stats
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from causal_datasets.builder import Finding, Release
from causal_datasets.markdown import markdown_table
from causal_datasets.records.base import FieldDoc, Record

#: configs that share a row model are named in their table's heading up to this many
MAX_NAMED_CONFIGS = 6


def field_tables(models: Mapping[str, type[Record]]) -> str:
    """One table per row model (configs that share a model share a table): every field, nested ones as dotted paths."""
    by_model: dict[type[Record], list[str]] = {}
    for config, model in models.items():
        by_model.setdefault(model, []).append(config)
    parts = []
    for model, configs in by_model.items():
        names = ", ".join(f"`{c}`" for c in configs)
        if len(configs) > MAX_NAMED_CONFIGS:
            names = f"`{configs[0]}` … `{configs[-1]}` ({len(configs)} configs, in the order of the configs table)"
        rows = [[f"`{doc.path}`", type_name(doc.feature, doc.nullable), describe(doc)] for doc in model.field_docs()]
        parts.append(
            f"#### {names}\n\n{row_summary(model)}\n\n{markdown_table(['field', 'type', 'description'], rows)}"
        )
    return "\n\n".join(parts)


def row_summary(model: type[Record]) -> str:
    """The first paragraph of the model's docstring, in Markdown: what one row is."""
    first = (inspect.getdoc(model) or "").split("\n\n")[0]
    return re.sub(r"``([^`]+)``", r"`\1`", " ".join(first.split()))


def type_name(feature: Any, nullable: bool = False) -> str:
    """The Arrow/``datasets`` type of a field as the card shows it (``list of struct``, ``float64 or null``)."""
    if isinstance(feature, datasets.ClassLabel):
        name = "class label"
    elif isinstance(feature, (datasets.List, datasets.Sequence)):
        name = f"list of {type_name(feature.feature)}"
    elif isinstance(feature, dict):
        name = "struct"
    else:
        name = feature.dtype
    return f"{name} or null" if nullable else name


def describe(doc: FieldDoc) -> str:
    """The field's description, with its class-label values (stored as integers) when it has them."""
    feature = doc.feature
    while isinstance(feature, (datasets.List, datasets.Sequence)):
        feature = feature.feature
    if not isinstance(feature, datasets.ClassLabel):
        return doc.description
    values = ", ".join(f"{index} = `{name}`" for index, name in enumerate(feature.names))
    return f"{doc.description} Class label: {values}."


#: a finding with more ids than this lists them in the manifest (its ``notes``), which the card links to
MAX_LISTED_IDS = 20


def findings_section(findings: Sequence[Finding]) -> str:
    """A table of the build's data-quality findings, then the ids of each finding: inline up to
    :data:`MAX_LISTED_IDS`, a longer list in ``manifest.json``'s ``notes`` (every finding with all its ids), linked."""
    if not findings:
        return "No data-quality findings in this build."
    table = markdown_table(
        ["config", "finding", "count", "what the build did"],
        [[f"`{f.config}`", f.issue, f"{len(f.ids)} {f.unit}", f.action] for f in findings],
    )
    listed = [
        f"- `{f.config}`, {f.issue}: "
        + (
            ", ".join(f.ids)
            if len(f.ids) <= MAX_LISTED_IDS
            else f"{len(f.ids)} ids, in [manifest.json](manifest.json) (`notes`)"
        )
        for f in findings
        if f.ids
    ]
    return table + ("\n\nIds per finding:\n\n" + "\n".join(listed) if listed else "")


def history_table(history: Sequence[Release]) -> str:
    """Every version, newest first, with what changed and why."""
    return markdown_table(["version", "changes"], [[r.version, r.changes] for r in reversed(history)])


def configs_table(row_counts: Mapping[str, Mapping[str, int]]) -> str:
    """Rows per config and split."""
    split_names = sorted({split for splits in row_counts.values() for split in splits})
    return markdown_table(
        ["config", *split_names],
        [[config, *(splits.get(s, 0) for s in split_names)] for config, splits in row_counts.items()],
    )


def column_statistics(splits: Mapping[str, Sequence[Record]], features: datasets.Features) -> str:
    """Markdown statistics of the top-level columns: label counts, numeric ranges, list lengths."""
    parts = []
    split_names = list(splits)
    for column, feature in features.items():
        if isinstance(feature, datasets.ClassLabel):
            counts = {s: Counter(_label(getattr(r, column)) for r in splits[s]) for s in split_names}
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
            values = [_measure(value, kind) for r in splits[split] if (value := getattr(r, column)) is not None]
            if values:
                numeric_rows.append(
                    [
                        f"{kind}{column}",
                        split,
                        min(values),
                        round(stats.fmean(values), 4),
                        stats.median(values),
                        max(values),
                    ]
                )
    if numeric_rows:
        parts.append(markdown_table(["column", "split", "min", "mean", "median", "max"], numeric_rows))
    return "\n\n".join(parts) if parts else "(no label or numeric columns)"


def _label(value: Any) -> Any:
    """A class-label field's value as its label (enums hold it as their value)."""
    return value.value if isinstance(value, enum.Enum) else value


def _measure(value: Any, kind: str) -> float:
    return len(value) if kind else value
