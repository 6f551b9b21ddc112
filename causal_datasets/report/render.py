"""``report.md`` and its PNG plots for one or more run folders: the runs, then one section per benchmark."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from causal_datasets.report.examples import examples_section
from causal_datasets.report.plots import draw
from causal_datasets.report.runs import Run, load_run
from causal_datasets.report.tables import (
    headline_table,
    intervals_table,
    mapping_fields,
    mapping_table,
    runs_table,
    slice_names,
    slice_table,
)
from causal_datasets.views import View

REPORT_FILE = "report.md"
INTERVALS_NOTE = (
    "A number shown as `value [low, high]` carries its 95% interval; error bars on the plots are the same intervals. "
    "The smallest detectable difference is the difference to another run of the same size that a two-sided test "
    "at α 0.05 finds with 80% power. `causal-datasets compare RUN_A RUN_B` tests two runs on the same items."
)
NO_INTERVALS = (
    "No run has intervals (summaries written before format 3: `causal-datasets eval ... --resume` rewrites one)."
)


def write_report(sources: Sequence[Run | Path | str], out_dir: Path) -> Path:
    """Write ``out_dir/report.md`` and its plots; runs of the same benchmark are shown side by side. A source is a
    run already read or a run folder (the runs of an export: :func:`causal_datasets.exports.reading.load_runs`)."""
    runs = [source if isinstance(source, Run) else load_run(Path(source)) for source in sources]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_benchmark: dict[str, list[Run]] = {}
    for run in runs:
        by_benchmark.setdefault(run.benchmark, []).append(run)
    sections = ["# Evaluation report", "", "## Runs", "", runs_table(runs)]
    for group in by_benchmark.values():
        task = group[0].task
        sections += ["", _benchmark_section(task.view or View(task.name), group, out_dir)]
    path = out_dir / REPORT_FILE
    path.write_text("\n".join(sections) + "\n", encoding="utf-8")
    return path


def _benchmark_section(view: View, runs: Sequence[Run], out_dir: Path) -> str:
    parts = [f"## {view.title}", ""]
    parts += [line for run in runs if run.summary.status != "complete" for line in (_status_note(run), "")]
    parts += [headline_table(runs), ""]
    parts += ["### 95% intervals", "", INTERVALS_NOTE, "", intervals_table(runs) or NO_INTERVALS, ""]
    for name, title in mapping_fields(runs).items():
        table = mapping_table(runs, name)
        parts += [f"### {title[:1].upper()}{title[1:]}", "", table or f"No run has {title}.", ""]
    for name in slice_names(runs):
        table = slice_table(runs, name)
        parts += [
            f"### By {name.removeprefix('by_').replace('_', ' ')}",
            "",
            table or f"No run has values in `{name}`.",
            "",
        ]
    for run_table in view.tables:
        parts += [f"### {run_table.title}", "", run_table.build(runs) or run_table.no_data, ""]
    examples = examples_section(runs)
    if examples:
        parts += ["### Example replies", "", examples, ""]
    if view.plots:
        parts += ["### Plots", ""]
    for plot in view.plots:
        path = out_dir / f"{_slug(plot.title)}.png"
        if draw(plot, runs, path):
            parts += [f"![{plot.title}]({path.name})", ""]
        else:
            path.unlink(missing_ok=True)  # a stale plot of an earlier report must not pass for this one
            parts += [f"No plot: {plot.no_data} ({plot.title}).", ""]
    return "\n".join(parts).rstrip()


def _status_note(run: Run) -> str:
    summary, items = run.summary, run.summary.items
    causes = ", ".join(
        f"{role} {category}: {count}"
        for role, categories in summary.failures.items()
        for category, count in categories.items()
    )
    return (
        f"**{run.label} is {summary.status}**: {items.scored} of {items.selected} selected items scored, "
        f"{items.failed} failed{f' ({causes})' if causes else ''}, {items.missing} missing; "
        "its metrics cover the scored items only."
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
