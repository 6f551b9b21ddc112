"""Benchmark: the paper's ShapeWorld analyses on the reference agents — accuracy ± standard error over
initial setups per structure (Fig. 2), all-moving accuracy per number of variables over the core
and the advanced set (Fig. 3), failure-pattern shares (Table 2) — every entity theme, and generating
a larger advanced set (sizes 4–8, 100 graphs each); prints timings and the tables.

    .venv/bin/python scripts/bench_shapeworld_analysis.py
"""

from __future__ import annotations

import time

from causal_datasets.markdown import markdown_table
from causal_datasets.shapeworld.agents import AGENTS
from causal_datasets.shapeworld.entities import THEMES
from causal_datasets.shapeworld.episode import run_episode
from causal_datasets.shapeworld.generate import advanced_tasks, core_tasks
from causal_datasets.shapeworld.scoring import score_episodes


def main() -> None:
    tasks = core_tasks(0) + advanced_tasks(0)
    headers = ["agent", "theme", "seconds", "accuracy", "SE over setups", "setups"]
    rows, scores = [], {}
    for agent in ("oracle", "strategy", "random"):
        for theme in THEMES.values() if agent == "oracle" else [THEMES["shapes"]]:
            start = time.perf_counter()
            results = [
                run_episode(t, AGENTS[agent](t, 0, theme), "basic", agent, theme=theme).model_dump() for t in tasks
            ]
            seconds = time.perf_counter() - start
            summary = score_episodes(results)
            rows.append(
                [agent, theme.name, round(seconds, 2), summary["accuracy"], summary["accuracy_se"], summary["setups"]]
            )
            scores.setdefault(agent, summary)
    print(f"{len(tasks)} episodes per row")
    print(markdown_table(headers, rows))

    print()
    print("Fig. 2: accuracy ± SE over initial setups, per structure (random agent)")
    structures = scores["random"]["by_structure"]
    print(
        markdown_table(
            ["structure", "setups", "accuracy", "SE"],
            [[s, g["setups"], g["accuracy"], g["accuracy_se"]] for s, g in structures.items()],
        )
    )
    print()
    print("Fig. 3: accuracy of the all-moving episodes per number of variables (random agent)")
    sizes = scores["random"]["by_num_variables_all_moving"]
    print(
        markdown_table(
            ["variables", "episodes", "accuracy"], [[n, g["episodes"], g["accuracy"]] for n, g in sizes.items()]
        )
    )
    print()
    print("Table 2: failure patterns as a share of the wrong answers (random agent)")
    print(markdown_table(["pattern", "share"], list(scores["random"]["failure_pattern_shares"].items())))

    start = time.perf_counter()
    larger = advanced_tasks(0, sizes=(4, 5, 6, 7, 8), graphs_per_size=100)
    print()
    print(
        f"advanced set with sizes 4-8 and 100 graphs each: {len(larger)} tasks in {time.perf_counter() - start:.2f} s"
    )


if __name__ == "__main__":
    main()
