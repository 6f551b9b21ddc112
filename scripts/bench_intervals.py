"""What the intervals cost: a summary with and without them, and the bootstrap beside inspect_ai's.

    .venv/bin/python scripts/bench_intervals.py

1. CoBe's published verdicts (1,143 responses of nine models, 127 scenarios) scored offline: the
   benchmark's own ``summarize`` (the summary as before intervals) and ``summary_intervals`` (every
   headline and slice interval, per model included) over the same results, best of 3.
2. The bootstrap standard error of a mean of 3,410 0/1 scores (the CLadder estimand task's size) with
   1,000 resamples: inspect_ai's ``bootstrap_stderr`` (one numpy call per resample) and the package's
   vectorised cluster bootstrap (scipy, batched), best of 5; both SEs printed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from checkout import SHARED_DATA_DIR
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.scorer._metrics.std import bootstrap_stderr
from timing import best_of

from causal_datasets.builder import BuildContext
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.markdown import markdown_table
from causal_datasets.registry import get_builder
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import check_settings, run_task
from causal_datasets.runners.estimates import item_units, summary_intervals
from causal_datasets.runners.results import read_results
from causal_datasets.runners.task import RunSettings, TaskContext
from causal_datasets.uncertainty import bootstrap_interval

COBE_SOURCE = SHARED_DATA_DIR / "cobe" / "category-examples.json"
RESAMPLES = 1000


def bench_summary(root: Path) -> list[list[object]]:
    build_to_folder(get_builder("cobe"), root, BuildContext(seed=0, source=COBE_SOURCE))
    task = tasks()["cobe"]
    settings = RunSettings(
        out=root / "run", location=DatasetLocation(hub_dir=root), configs=("responses",), progress=False
    )
    run_task(task, settings)
    options, configs = check_settings(task, settings, frozenset())
    context = TaskContext(task, settings, options, configs, clients={})
    results = read_results(root / "run")
    items = {item.id: item for item in task.items(context)}
    before, (metrics, slices) = best_of(lambda: task.summarize(results, context), 3)
    units = [item_units(task, items[r["id"]], context) for r in results]
    added, intervals = best_of(lambda: summary_intervals(task, metrics, slices, results, units), 3)
    count = len(intervals.metrics) + sum(
        len(numbers) for entries in intervals.slices.values() for numbers in entries.values()
    )
    return [
        ["CoBe responses: summarize (before)", len(results), "–", round(before, 3), "1.00×"],
        [
            f"CoBe responses: + summary_intervals ({count} intervals)",
            len(results),
            intervals.clusters,
            round(added, 3),
            f"{(before + added) / before:.2f}×",
        ],
    ]


def bench_bootstrap() -> list[list[object]]:
    rng = np.random.default_rng(0)
    values = (rng.random(3410) < 0.4).astype(float)
    scores = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate(values)]
    peer = bootstrap_stderr(num_samples=RESAMPLES)
    peer_seconds, peer_se = best_of(lambda: peer(scores), 5)
    components = np.column_stack([values, np.ones_like(values)])
    ours, interval = best_of(
        lambda: bootstrap_interval(
            components,
            ("numerator", "denominator"),
            lambda t: t["numerator"] / t["denominator"],
            np.arange(len(values)),
            "item",
            resamples=RESAMPLES,
        ),
        5,
    )
    return [
        [
            f"inspect_ai bootstrap_stderr, {RESAMPLES} resamples",
            len(values),
            f"SE {peer_se:.5f}",
            round(peer_seconds, 3),
            "1.00×",
        ],
        [
            f"bootstrap_interval (vectorised), {RESAMPLES} resamples",
            len(values),
            f"SE {interval.se:.5f}",
            round(ours, 3),
            f"{peer_seconds / ours:.1f}× faster",
        ],
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = bench_summary(Path(tmp)) + bench_bootstrap()
    print(markdown_table(["what", "items", "clusters / SE", "seconds", "ratio"], rows))


if __name__ == "__main__":
    main()
