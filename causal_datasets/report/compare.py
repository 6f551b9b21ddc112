"""Two runs of one benchmark on the same items, number by number: paired differences with intervals and p-values.

Items are paired by id among those scored in both runs; an item scored in one run only is listed, never
silently dropped. Every number both summaries hold that the benchmark's estimators give
(:mod:`causal_datasets.runners.estimates`, read off the items' typed scores) is compared over the paired
items, overall and in every slice entry both runs have: run A's number minus run B's, its 95% interval
and p-value (:mod:`causal_datasets.uncertainty.paired`). Within a slice, the entries of one number are
one family of tests, and each gets Holm's adjusted p-value. Clusters and slice entries are those run A's
result lines record. Both runs' results must be typed (summary format 4); an older run is one error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from causal_datasets.errors import ComparisonError
from causal_datasets.markdown import markdown_table
from causal_datasets.report.runs import Run, load_run
from causal_datasets.runners.estimates import estimators, flatten, line_units, members, unit_name
from causal_datasets.runners.records import SUMMARY_FORMAT, ItemResult
from causal_datasets.uncertainty import ALPHA, Difference, cluster_codes, difference, holm, item_values


@dataclass(frozen=True)
class Row:
    """One number compared: overall (``slice`` None) or in one slice entry."""

    metric: str
    slice: str | None
    entry: str | None
    result: Difference
    p_holm: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` row: metric, difference, ci_low, ci_high, p_value, n_paired and the rest."""
        result = self.result
        return {
            "metric": self.metric,
            "slice": self.slice,
            "entry": self.entry,
            "a": result.a,
            "b": result.b,
            "difference": result.difference,
            "ci_low": result.ci_low,
            "ci_high": result.ci_high,
            "p_value": result.p_value,
            "p_holm": self.p_holm,
            "significant": _below(result.p_value),
            "significant_holm": _below(self.p_holm) if self.slice else None,
            "n_paired": result.n_paired,
            "clusters": result.clusters,
            "method": result.method,
        }


@dataclass(frozen=True)
class Comparison:
    run_a: Run
    run_b: Run
    unit: str
    clusters: int
    paired: int
    only_in_a: list[str]
    only_in_b: list[str]
    units_recorded: bool
    rows: list[Row]


def compare_runs(folder_a: Path, folder_b: Path, metric: str | None = None) -> Comparison:
    """Run A (``folder_a``) against run B on the items both scored; ``metric``: only that number."""
    run_a, run_b = load_run(Path(folder_a)), load_run(Path(folder_b))
    if run_a.benchmark != run_b.benchmark:
        raise ComparisonError(
            f"{folder_a} is a {run_a.benchmark} run and {folder_b} a {run_b.benchmark} run: "
            "compare two runs of one benchmark"
        )
    for run in (run_a, run_b):
        if run.format != SUMMARY_FORMAT:
            raise ComparisonError(
                f"{run.path} has summary format {run.format}: its results are not typed; score it "
                "again with this version (`causal-datasets eval ... --resume` into a new folder, "
                "the response cache answering) to compare it"
            )
    scored_a, scored_b = _scored(run_a), _scored(run_b)
    paired = [item_id for item_id in scored_a if item_id in scored_b]
    if not paired:
        raise ComparisonError(
            f"no item is scored in both {folder_a} ({len(scored_a)} scored) and {folder_b} "
            f"({len(scored_b)} scored): compare runs of the same items"
        )
    task = run_a.task
    results_a, results_b = [scored_a[i].scores for i in paired], [scored_b[i].scores for i in paired]
    units = [line_units(scored_a[i].model_dump()) for i in paired]
    codes = cluster_codes([unit["cluster"] for unit in units])
    found = estimators(task, results_a + results_b)
    if metric is not None:
        found = [e for e in found if e.name == metric]
        if not found:
            known = ", ".join(e.name for e in estimators(task, results_a + results_b))
            raise ComparisonError(f"{run_a.benchmark} has no number {metric!r} to compare; choose from {known}")
    values_a = {e.name: item_values(e, results_a) for e in found}
    values_b = {e.name: item_values(e, results_b) for e in found}

    def compared(
        numbers_a: Mapping[str, Any], numbers_b: Mapping[str, Any], rows: np.ndarray | slice
    ) -> list[tuple[str, Difference]]:
        flat_a, flat_b = flatten(numbers_a), flatten(numbers_b)
        out = []
        for estimator in found:
            if _is_number(flat_a.get(estimator.name)) and _is_number(flat_b.get(estimator.name)):
                name = estimator.name
                result = difference(estimator, values_a[name][rows], values_b[name][rows], codes[rows])
                if result is not None:
                    out.append((estimator.name, result))
        return out

    summary_a, summary_b = run_a.summary, run_b.summary
    rows = [
        Row(name, None, None, result)
        for name, result in compared(summary_a.metrics.model_dump(), summary_b.metrics.model_dump(), slice(None))
    ]
    for slice_name, entries in summary_a.slices.items():
        rows += _slice_rows(
            slice_name, entries, summary_b.slices.get(slice_name) or {}, members(units, slice_name), compared
        )
    return Comparison(
        run_a,
        run_b,
        unit_name(task),
        len(set(codes.tolist())),
        len(paired),
        sorted(set(scored_a) - set(scored_b)),
        sorted(set(scored_b) - set(scored_a)),
        any(scored_a[i].cluster is not None for i in paired),
        rows,
    )


def _slice_rows(
    name: str, entries_a: Mapping[str, Any], entries_b: Mapping[str, Any], positions: Mapping[str, list[int]], compared
) -> list[Row]:
    """The rows of one slice, each number's entries adjusted together (Holm)."""
    found: list[Row] = []
    for key, entry in entries_a.items():
        other = entries_b.get(key)
        if isinstance(entry, Mapping) and isinstance(other, Mapping) and positions.get(key):
            found += [
                Row(metric, name, key, result)
                for metric, result in compared(entry, other, np.array(positions[key], dtype=np.intp))
            ]
    adjusted: list[Row] = []
    for metric in dict.fromkeys(row.metric for row in found):
        family = [row for row in found if row.metric == metric]
        adjusted += [
            Row(row.metric, row.slice, row.entry, row.result, p)
            for row, p in zip(family, holm([row.result.p_value for row in family]), strict=True)
        ]
    return adjusted


def _scored(run: Run) -> dict[str, ItemResult[Any, Any]]:
    """The scored items of a run's ``results.jsonl``, by id, typed."""
    return {item.id: item for item in run.counted_results() if item.status == "scored"}


def _below(p_value: float | None) -> bool | None:
    return None if p_value is None else p_value < ALPHA


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def comparison_table(comparison: Comparison) -> str:
    """The rows as a Markdown table (``*`` marks p < 0.05; in slices, Holm's adjusted p decides)."""
    headers = ["number", "slice", "entry", "A", "B", "A − B", "95% CI", "p", "Holm p", "n", "clusters", "method"]
    lines = []
    for row in comparison.rows:
        result = row.result
        significant = _below(row.p_holm if row.slice else result.p_value)
        interval = "–" if result.ci_low is None else f"[{result.ci_low:.4f}, {result.ci_high:.4f}]"
        lines.append(
            [
                row.metric,
                row.slice or "–",
                row.entry or "–",
                result.a,
                result.b,
                f"{result.difference:.4f}" + ("*" if significant else ""),
                interval,
                _p(result.p_value),
                _p(row.p_holm) if row.slice else "–",
                result.n_paired,
                result.clusters,
                result.method,
            ]
        )
    return markdown_table(headers, lines)


def _p(value: float | None) -> str:
    return "–" if value is None else f"{value:.2g}"


def unpaired_lines(comparison: Comparison, limit: int | None = None) -> list[str]:
    """One line per run naming the items scored in it only (the first ``limit`` ids)."""
    lines = []
    for label, ids in (("A", comparison.only_in_a), ("B", comparison.only_in_b)):
        if ids:
            shown = ids if limit is None else ids[:limit]
            more = f" ... and {len(ids) - len(shown)} more" if len(shown) < len(ids) else ""
            lines.append(f"scored in {label} only ({len(ids)}, not compared): {', '.join(shown)}{more}")
    return lines


def describe(comparison: Comparison) -> list[str]:
    """The header lines: which runs, how many paired items in how many clusters."""
    unit = comparison.unit if comparison.units_recorded else "item (the results record no clusters)"
    return [
        f"{comparison.run_a.benchmark}: A = {comparison.run_a.label}, B = {comparison.run_b.label}",
        (
            f"paired items: {comparison.paired} in {comparison.clusters} clusters ({unit}); "
            f"scored in A only: {len(comparison.only_in_a)}, in B only: {len(comparison.only_in_b)}"
        ),
    ]
