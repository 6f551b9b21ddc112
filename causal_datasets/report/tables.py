"""Markdown tables of runs, read off the typed summaries (no hand-picked metric lists).

The runs table and a benchmark's headline table have one row per run; the headline has a column
per scalar field of the benchmark's metrics model, headed by the field's title. Every mapping
field and every slice is a breakdown with one row per key: a flat ``{key: number}`` mapping puts
the runs side by side as columns; entries holding several numbers (slices, nested mappings) get a
column per number, nested dicts flattened as ``outer.inner``, and a row per key and run.

A number the summary has an interval for is shown with it, ``0.62 [0.51, 0.72]`` (95%); the intervals
table lists each headline interval with its standard error, method, cluster unit and the smallest
difference the run can detect.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import UnionType
from typing import Any, Union, get_args, get_origin

from causal_datasets.markdown import format_cell, markdown_table
from causal_datasets.report.runs import Run
from causal_datasets.runners.estimates import flatten
from causal_datasets.runners.records import Usage
from causal_datasets.uncertainty import Interval

#: a breakdown's intervals: (key, column or None for a flat mapping) → interval
Intervals = Mapping[tuple[str, str | None], Interval]

MISSING = "–"


def runs_table(runs: Sequence[Run]) -> str:
    """What each run is: benchmark, data, package, status, item counts, models, usage and folder."""
    headers = [
        "run",
        "benchmark",
        "configs",
        "dataset version",
        "read from",
        "package",
        "status",
        "scored",
        "failed",
        "missing",
        "selected",
        "models",
        "tokens (cost)",
        "folder",
    ]
    rows = []
    for run in runs:
        summary, items = run.summary, run.summary.items
        rows.append(
            [
                run.label,
                summary.benchmark,
                ", ".join(summary.dataset.configs),
                summary.dataset.version,
                summary.dataset.read_from,
                summary.package_version,
                summary.status if summary.status == "complete" else f"**{summary.status}**",
                items.scored,
                items.failed,
                items.missing,
                items.selected,
                ", ".join(f"{role}: {name}" for role, name in summary.models.items()) or MISSING,
                _usage(summary.usage_total),
                run.where,
            ]
        )
    return markdown_table(headers, rows)


def headline_table(runs: Sequence[Run]) -> str:
    """One row per run, one column per scalar field of the metrics model, in field order."""
    fields = type(runs[0].summary.metrics).model_fields
    names = [name for name, info in fields.items() if name != "benchmark" and not _is_mapping(info.annotation)]
    rows = [
        [run.label, *(_cell(getattr(run.summary.metrics, name), _headline(run).get(name)) for name in names)]
        for run in runs
    ]
    return markdown_table(["run", *(fields[name].title or name for name in names)], rows)


def intervals_table(runs: Sequence[Run]) -> str | None:
    """Every headline interval of the runs: estimate, SE, 95% interval, method, unit, items, smallest detectable
    difference; None when no run has intervals (summaries of format 2)."""
    rows = [
        [
            run.label,
            name,
            interval.estimate,
            _cell(interval.se),
            _bounds(interval),
            interval.method,
            f"{interval.cluster} ({interval.clusters})",
            interval.n,
            _cell(interval.mdd),
        ]
        for run in runs
        for name, interval in _headline(run).items()
    ]
    if not rows:
        return None
    headers = [
        "run",
        "number",
        "estimate",
        "SE",
        "95% interval",
        "method",
        "clustered by (clusters)",
        "items",
        "smallest detectable difference",
    ]
    return markdown_table(headers, rows)


def _headline(run: Run) -> Mapping[str, Interval]:
    return run.summary.intervals.metrics if run.summary.intervals is not None else {}


def _mapping_intervals(run: Run, name: str) -> Intervals:
    """A mapping field's intervals by (key, column): ``name.key`` or ``name.key.column`` in the summary."""
    found = _headline(run)
    table: dict[tuple[str, str | None], Interval] = {}
    for key, entry in (getattr(run.summary.metrics, name) or {}).items():
        if isinstance(entry, Mapping):
            paths: dict[str | None, str] = {column: f"{name}.{key}.{column}" for column in flatten(entry)}
        else:
            paths = {None: f"{name}.{key}"}
        table |= {(key, column): found[path] for column, path in paths.items() if path in found}
    return table


def _slice_intervals(run: Run, name: str) -> Intervals:
    entries = (run.summary.intervals.slices.get(name) or {}) if run.summary.intervals is not None else {}
    return {(key, column): interval for key, numbers in entries.items() for column, interval in numbers.items()}


def mapping_fields(runs: Sequence[Run]) -> dict[str, str]:
    """The mapping-valued fields of the metrics model, name → title, in field order."""
    fields = type(runs[0].summary.metrics).model_fields
    return {name: info.title or name for name, info in fields.items() if _is_mapping(info.annotation)}


def mapping_table(runs: Sequence[Run], name: str) -> str | None:
    """The breakdown of one mapping field of the metrics; None when no run has a value in it."""
    return breakdown_table(
        name, [(run, getattr(run.summary.metrics, name) or {}, _mapping_intervals(run, name)) for run in runs]
    )


def slice_names(runs: Sequence[Run]) -> list[str]:
    """The non-empty slices of any of the runs, in first-seen order."""
    return list(dict.fromkeys(name for run in runs for name, entries in run.summary.slices.items() if entries))


def slice_table(runs: Sequence[Run], name: str) -> str | None:
    """The breakdown of one slice; the key column is the field sliced by (``by_suite`` → ``suite``)."""
    per_run = [(run, run.summary.slices.get(name) or {}, _slice_intervals(run, name)) for run in runs]
    return breakdown_table(name.removeprefix("by_"), per_run)


def breakdown_table(key_header: str, per_run: Sequence[tuple[Run, Mapping[str, Any], Intervals]]) -> str | None:
    """A ``{key: number}`` or ``{key: {metric: ...}}`` mapping of each run, with its intervals, as one table (see
    the module)."""
    present = [(run, mapping, intervals) for run, mapping, intervals in per_run if mapping]
    if not present:
        return None
    if all(isinstance(entry, Mapping) for _, mapping, _ in present for entry in mapping.values()):
        flat = [
            (run, {key: flatten(entry) for key, entry in mapping.items()}, intervals)
            for run, mapping, intervals in present
        ]
        columns = list(dict.fromkeys(c for _, mapping, _ in flat for entry in mapping.values() for c in entry))
        if not columns:
            return None
        rows = [
            [key, run.label, *(_cell(mapping[key].get(column), intervals.get((key, column))) for column in columns)]
            for key in ordered(k for _, mapping, _ in flat for k in mapping)
            for run, mapping, intervals in flat
            if key in mapping
        ]
        return markdown_table([key_header, "run", *columns], rows)
    flat = [(run, flatten(mapping), intervals) for run, mapping, intervals in per_run]
    keys = ordered(k for _, mapping, _ in flat for k in mapping)
    rows = [
        [key, *(_cell(mapping.get(key), intervals.get((key, None))) for _, mapping, intervals in flat)] for key in keys
    ]
    return markdown_table([key_header, *(run.label for run, _, _ in flat)], rows)


def ordered(keys: Iterable[str]) -> list[str]:
    """Distinct keys, numerically sorted when every key is a number, else in first-seen order."""
    distinct = list(dict.fromkeys(keys))
    try:
        return sorted(distinct, key=float)
    except ValueError:
        return distinct


def _is_mapping(annotation: Any) -> bool:
    if get_origin(annotation) is dict:
        return True
    return get_origin(annotation) in (Union, UnionType) and any(_is_mapping(a) for a in get_args(annotation))


def _usage(usage: Usage) -> str:
    """Tokens sent and received, the reasoning ones among them, and the cost when priced."""
    tokens = usage.prompt_tokens + usage.completion_tokens
    if not tokens:
        return MISSING
    reasoning = f", {usage.reasoning_tokens} reasoning" if usage.reasoning_tokens else ""
    return f"{tokens}{reasoning}" + (f" (${usage.cost_usd:.4f})" if usage.cost_usd is not None else "")


def _cell(value: Any, interval: Interval | None = None) -> Any:
    """The value; with an interval, ``value [low, high]``."""
    if value is None:
        return MISSING
    if interval is None or interval.ci_low is None:
        return value
    return f"{format_cell(value)} {_bounds(interval)}"


def _bounds(interval: Interval) -> str:
    if interval.ci_low is None or interval.ci_high is None:
        return MISSING
    return f"[{format_cell(interval.ci_low)}, {format_cell(interval.ci_high)}]"
