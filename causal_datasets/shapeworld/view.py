"""The report's view of ShapeWorld runs: accuracy per size and structure (Figs. 2, 3), failure patterns
(Table 2) and the best prompt variant per model (Table 1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from causal_datasets.markdown import markdown_table
from causal_datasets.views import MappingBars, RunTable, SlicePlot, View

if TYPE_CHECKING:
    from causal_datasets.report.runs import Run


def best_variant_table(runs: Sequence[Run]) -> str | None:
    """ShapeWorld Table 1: per solver and configs, the run whose prompt variant scored best (a ``*``
    marks a step-limiting variant, as the paper marks models that did better with it)."""
    groups: dict[tuple[str, tuple[str, ...]], list[Run]] = {}
    for run in runs:
        if run.summary.metrics.accuracy is not None:
            groups.setdefault((run.summary.solver, tuple(run.summary.dataset.configs)), []).append(run)
    rows = []
    for (solver, configs), group in groups.items():
        best = max(group, key=lambda run: run.summary.metrics.accuracy)
        metrics, variant = best.summary.metrics, best.summary.options.get("variant", "basic")
        compared = ", ".join(sorted({str(run.summary.options.get("variant", "basic")) for run in group}))
        rows.append(
            [
                solver + ("*" if variant != "basic" else ""),
                ", ".join(configs),
                variant,
                compared,
                _cell(metrics.accuracy_false),
                _cell(metrics.accuracy_true),
                _cell(metrics.accuracy),
                _cell(metrics.mean_steps),
                metrics.error_total,
            ]
        )
    if not rows:
        return None
    headers = [
        "model",
        "configs",
        "best variant",
        "variants compared",
        "Acc. (F)",
        "Acc. (T)",
        "Acc.",
        "Avg. Steps",
        "Err.",
    ]
    return markdown_table(headers, rows)


def _cell(value: object) -> object:
    return "–" if value is None else value


VIEW = View(
    "ShapeWorld (CausalLink)",
    (
        SlicePlot(
            "by_num_variables", "accuracy", "ShapeWorld accuracy by number of variables", "variables", "accuracy"
        ),
        SlicePlot(
            "by_structure",
            "accuracy",
            "ShapeWorld accuracy by structure, 95% interval over setups (Fig. 2)",
            "causal structure",
            "accuracy",
            error="accuracy_se",
        ),
        SlicePlot(
            "by_num_variables_all_moving",
            "accuracy",
            "ShapeWorld all-moving accuracy by variables (Fig. 3)",
            "variables (every shape moving at the start)",
            "accuracy",
        ),
        MappingBars(
            "failure_pattern_shares", "ShapeWorld failure patterns, share of wrong (Table 2)", "share of wrong answers"
        ),
    ),
    (RunTable("Best prompt variant per model (Table 1)", best_variant_table, "No run has an accuracy to compare."),),
)
