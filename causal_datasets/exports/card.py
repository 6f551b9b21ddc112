"""The computed parts of an exported results dataset's card (``cards/run_results.md``).

The leaderboard (one table per benchmark, configs, split and dataset version, runs ranked by their first headline
number, each number with its 95% interval), the runs table, a ``model-index`` block per model (written and read
back by ``huggingface_hub``'s :class:`ModelCardData`, so a model card can copy it as it is), and what the
benchmarks the runs used say about their licences and papers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

import yaml
from huggingface_hub import DatasetCard, EvalResult, ModelCardData

from causal_datasets.builder import BuiltRecords, Finding
from causal_datasets.errors import ExportError
from causal_datasets.markdown import format_cell, markdown_table
from causal_datasets.records.base import Record
from causal_datasets.records.run_results import ExportedRun, ItemDetail, RunResult
from causal_datasets.registry import get_builder

#: the split every config of an export has
SPLIT = "train"
#: decimals of a number in a model-index block
MODEL_INDEX_DECIMALS = 4
MISSING = "–"

RowT = TypeVar("RowT", bound=Record)


@dataclass(frozen=True)
class Benchmark:
    """What the card says about a benchmark dataset the runs used, read from its builder and card template."""

    name: str
    pretty_name: str
    license: str
    task_type: str
    citations: tuple[str, ...]
    metrics: tuple[str, ...]


@cache
def benchmark(dataset: str) -> Benchmark:
    builder = get_builder(dataset)
    data = DatasetCard(builder.card_path.read_text(encoding="utf-8")).data
    categories = data.get("task_categories") or ["text-generation"]
    return Benchmark(
        dataset,
        builder.pretty_name,
        data.get("license") or "unknown",
        categories[0],
        tuple(builder.citations),
        tuple(builder.metrics),
    )


def benchmarks(runs: Sequence[ExportedRun]) -> list[Benchmark]:
    return [benchmark(name) for name in dict.fromkeys(run.dataset for run in runs)]


def _rows(records: BuiltRecords, config: str, kind: type[RowT]) -> list[RowT]:
    """The rows of one config of the export, each a ``kind`` as the export built them."""
    rows = [row for row in records[config][SPLIT] if isinstance(row, kind)]
    if len(rows) != len(records[config][SPLIT]):
        raise TypeError(f"the export's {config} rows are not all {kind.__name__}")
    return rows


def card_metadata(records: BuiltRecords) -> dict[str, object]:
    """The front matter the runs decide: the licence (the benchmarks' own when they agree, else ``other``) and the
    Hub datasets the runs read."""
    runs = _rows(records, "runs", ExportedRun)
    licenses = sorted({b.license for b in benchmarks(runs)})
    results = _rows(records, "results", RunResult)
    hub = sorted({row.dataset_source.split("@")[0] for row in results if "@" in row.dataset_source})
    licence = {"license": licenses[0]} if len(licenses) == 1 else {"license": "other", "license_name": "per-benchmark"}
    return {**licence, "source_datasets": ["original", *(f"extended|{repo}" for repo in hub)]}


def card_context(records: BuiltRecords) -> dict[str, str]:
    """The template's variables computed from the rows."""
    runs = _rows(records, "runs", ExportedRun)
    results = _rows(records, "results", RunResult)
    used = benchmarks(runs)
    return {
        "run_count": str(len(runs)),
        "benchmarks": ", ".join(b.pretty_name for b in used),
        "package_versions": ", ".join(sorted({run.package_version for run in runs})),
        "leaderboard": leaderboard(runs, results),
        "runs_table": runs_table(runs),
        "model_index": model_index_section(runs, results),
        "licensing": markdown_table(
            ["benchmark", "dataset", "licence"], [[b.pretty_name, b.name, b.license] for b in used]
        ),
    }


def leaderboard(runs: Sequence[ExportedRun], results: Sequence[RunResult]) -> str:
    """A table per benchmark, configs, split and dataset version: a row per run, ranked by its first number."""
    groups: dict[tuple[str, tuple[str, ...], str, str], dict[str, list[RunResult]]] = {}
    for row in results:
        key = (row.benchmark, tuple(row.configs), row.split, row.dataset_version)
        groups.setdefault(key, {}).setdefault(row.run_id, []).append(row)
    status = {run.run_id: run.status for run in runs}
    parts = []
    for (_, configs, split, version), by_run in groups.items():
        first = next(iter(by_run.values()))[0]
        metrics = list(dict.fromkeys(row.metric for rows in by_run.values() for row in rows))
        titles = {row.metric: row.metric_title for rows in by_run.values() for row in rows}
        varying = _varying_options([json.loads(rows[0].options_json) for rows in by_run.values()])
        ranked = sorted(by_run.items(), key=lambda item: _rank(item[1], metrics[0], item[0]))
        table = []
        for place, (run_id, rows) in enumerate(ranked, start=1):
            values = {row.metric: row for row in rows}
            options = json.loads(rows[0].options_json)
            table.append(
                [
                    place,
                    rows[0].solver,
                    f"`{run_id}`",
                    status.get(run_id, MISSING),
                    rows[0].items_scored,
                    *(_option(options.get(option)) for option in varying),
                    *(_estimate(values.get(metric)) for metric in metrics),
                ]
            )
        headers = ["#", "solver", "run", "status", "scored", *varying, *(titles[m] for m in metrics)]
        title = benchmark(first.dataset).pretty_name
        parts.append(
            f"### {title} (`{', '.join(configs)}`, {split} split, dataset v{version})\n\n"
            f"{markdown_table(headers, table)}"
        )
    if not parts:
        return "No run has headline numbers with intervals."
    return (
        "Each number is the estimate with its 95% interval; runs are ranked by the first number. Runs of "
        "different configs, splits or dataset versions are in separate tables.\n\n" + "\n\n".join(parts)
    )


def _rank(rows: Sequence[RunResult], metric: str, run_id: str) -> tuple[bool, float, str]:
    row = next((r for r in rows if r.metric == metric), None)
    return (row is None, -(row.estimate if row is not None else 0.0), run_id)


def _varying_options(options: Sequence[Mapping[str, object]]) -> list[str]:
    """Option names whose values differ between the runs of one table."""
    names = dict.fromkeys(name for entry in options for name in entry)
    return [name for name in names if len({json.dumps(entry.get(name), sort_keys=True) for entry in options}) > 1]


def _option(value: object) -> str:
    return MISSING if value is None else value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _estimate(row: RunResult | None) -> str:
    if row is None:
        return MISSING
    if row.ci_low is None or row.ci_high is None:
        return format_cell(row.estimate)
    return f"{format_cell(row.estimate)} [{format_cell(row.ci_low)}, {format_cell(row.ci_high)}]"


def runs_table(runs: Sequence[ExportedRun]) -> str:
    return markdown_table(
        ["run", "added in", "benchmark", "solver", "status", "scored", "failed", "dataset version", "causal-datasets"],
        [
            [
                f"`{r.run_id}`",
                r.added_in,
                r.benchmark,
                r.solver,
                r.status,
                r.items_scored,
                r.items_failed,
                r.dataset_version,
                r.package_version,
            ]
            for r in runs
        ],
    )


def model_index(results: Sequence[RunResult]) -> dict[str, str]:
    """Per model (or agent), the YAML of its ``model-index``: a result per benchmark dataset, config and split, a
    metric per headline number (its ``config`` is the run id)."""
    by_model: dict[str, list[EvalResult]] = {}
    for row in results:
        source = benchmark(row.dataset)
        hub_id, _, revision = row.dataset_source.partition("@")
        by_model.setdefault(row.model or row.solver, []).append(
            EvalResult(
                task_type=source.task_type,
                task_name=source.pretty_name,
                dataset_type=hub_id if revision else row.dataset,
                dataset_name=source.pretty_name,
                dataset_config=",".join(row.configs),
                dataset_split=row.split,
                dataset_revision=revision or None,
                metric_type=row.metric,
                metric_name=row.metric_title,
                metric_value=round(row.estimate, MODEL_INDEX_DECIMALS),
                metric_config=row.run_id,
                verified=False,
            )
        )
    blocks = {name: ModelCardData(model_name=name, eval_results=found).to_yaml() for name, found in by_model.items()}
    for name, text in blocks.items():  # read back as a model card's front matter is: every result is there
        if len(parse_model_index(text)) != len(by_model[name]):
            raise ExportError(f"the model-index block of {name!r} does not read back with all its results")
    return blocks


def model_index_section(runs: Sequence[ExportedRun], results: Sequence[RunResult]) -> str:
    blocks = model_index(results)
    if not blocks:
        return "No run has headline numbers to report."
    return "\n\n".join(f"#### {name}\n\n```yaml\n{text}\n```" for name, text in blocks.items())


def parse_model_index(text: str) -> list[EvalResult]:
    """The results of a ``model-index`` block, read by ``huggingface_hub`` as a model card's front matter is."""
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ExportError("a model-index block is not a YAML mapping")
    return ModelCardData(**data).eval_results or []


def findings(runs: Sequence[ExportedRun], results: Sequence[RunResult], details: Sequence[ItemDetail]) -> list[Finding]:
    """What a reader of the numbers should know: runs that are not complete, runs without intervals, failed items."""
    with_numbers = {row.run_id for row in results}
    found = [
        Finding(
            "runs",
            "runs that are not complete (their numbers cover the items they scored)",
            "exported as they are",
            tuple(run.run_id for run in runs if run.status != "complete"),
            unit="runs",
        ),
        Finding(
            "results",
            "runs whose summary has no intervals (summary format 2)",
            "left out of `results` (their numbers are in `runs`); `causal-datasets eval ... --resume` into the run "
            "folder rewrites the summary",
            tuple(run.run_id for run in runs if run.run_id not in with_numbers),
            unit="runs",
        ),
        Finding(
            "details",
            "items a model or transport error ended",
            "exported as `failed`, left out of every number",
            tuple(f"{row.run_id}/{row.item_id}" for row in details if row.status == "failed"),
            unit="items",
        ),
    ]
    return [finding for finding in found if finding.ids]
