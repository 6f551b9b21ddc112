"""ShapeWorld speed and reference-agent figures.

Times generating both configs, writing the hub folder, and playing all 1284 episodes with the
oracle (the issue's target: build + oracle under 5 s), then reports accuracy and mean steps of the
oracle, strategy and random agents per structure and size. Usage: ``python scripts/bench_shapeworld.py``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from causal_datasets.builder import BuildContext
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.markdown import markdown_table
from causal_datasets.registry import get_builder
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.task import RunSettings
from causal_datasets.shapeworld.agents import AGENTS
from causal_datasets.shapeworld.answer_prompts import answer_prompt_rows
from causal_datasets.shapeworld.episode import run_episode
from causal_datasets.shapeworld.generate import advanced_tasks, core_tasks
from causal_datasets.shapeworld.task import TASK


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    (core, advanced), generate_s = timed(lambda: (core_tasks(0), advanced_tasks(0)))
    tasks = core + advanced
    prompts, prompts_s = timed(lambda: answer_prompt_rows({"core": core, "advanced": advanced}))
    with tempfile.TemporaryDirectory() as out:
        _, folder_s = timed(lambda: build_to_folder(get_builder("shapeworld"), Path(out), BuildContext(seed=0)))
        location = DatasetLocation(hub_dir=Path(out))
        _, load_s = timed(lambda: location.load("shapeworld", "advanced"))
        settings = RunSettings(
            out=Path(out) / "run",
            location=location,
            configs=("advanced",),
            agent="oracle",
            concurrency=1,
            progress=False,
        )
        _, runner_s = timed(lambda: run_task(TASK, settings))
    results, seconds = {}, {}
    for name, make in AGENTS.items():
        results[name], seconds[name] = timed(
            lambda make=make, name=name: [run_episode(t, make(t, 0), "basic", name) for t in tasks]
        )
    print(
        markdown_table(
            ["step", "seconds"],
            [
                ["generate core + advanced records (1284)", round(generate_s, 3)],
                [
                    f"`prompts` rows ({len(prompts):,}: the strategy agent's episodes in 4 prompt variants)",
                    round(prompts_s, 3),
                ],
                ["build hub folder (records, Parquet, card, manifest)", round(folder_s, 3)],
                *[[f"play 1284 episodes, {name} agent", round(s, 3)] for name, s in seconds.items()],
                ["**build folder + oracle episodes**", round(folder_s + seconds["oracle"], 3)],
                [
                    "load the advanced config back as typed records (`DatasetLocation.load`, hashes checked)",
                    round(load_s, 3),
                ],
                ["`eval shapeworld --agent oracle --config advanced` (load, play, JSONL, summary)", round(runner_s, 3)],
            ],
        )
    )
    print()
    groups = defaultdict(lambda: defaultdict(list))
    for name, played in results.items():
        for r in played:
            groups[(r.structure, r.num_variables)][name].append(r)
    rows = []
    for (structure, n), by_agent in groups.items():
        row = [structure, n, len(by_agent["oracle"])]
        for name in AGENTS:
            played = by_agent[name]
            row += [
                round(sum(r.correct for r in played) / len(played), 3),
                round(statistics.fmean(r.steps for r in played), 2),
            ]
        rows.append(row)
    headers = ["structure", "n", "episodes"] + [f"{name} {what}" for name in AGENTS for what in ("acc", "steps")]
    print(markdown_table(headers, rows))
    overall = {name: sum(r.correct for r in played) / len(played) for name, played in results.items()}
    errors = {name: sum(r.error is not None for r in played) for name, played in results.items()}
    print(f"\noverall accuracy {overall}; episodes ending in an error {errors}")


if __name__ == "__main__":
    main()
