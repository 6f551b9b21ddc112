"""Benchmark: the experimenter agent under the paper's interaction regimes (Fig. 3) and along its
scaling curves (App. Figs. 13–14) on the released 4- and 6-node suites, the replay of every hidden
suite under the authors' definition of H, and scoring the released gpt-5-mini run; prints timings
and the curves.

    .venv/bin/python scripts/bench_causalab_regimes.py [--suites 4nodes 6nodes]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from statistics import fmean

from checkout import SHARED_DATA_DIR

from causal_datasets.causalab.episode import run_episode
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.lab import Lab
from causal_datasets.causalab.regimes import REGIMES, SCALING_COUNTS, scaling_setting, with_setting
from causal_datasets.causalab.upstream import SUITES, load_suite
from causal_datasets.causalab.upstream_scores import score_upstream_runs
from causal_datasets.markdown import markdown_table

RELEASE = SHARED_DATA_DIR / "causalab" / "data"
SAMPLE = SHARED_DATA_DIR / "causalab" / "sample_run_4nodes_0_gpt-5-mini"


def play(episodes, setting) -> tuple[list, float]:
    """(accuracy, edge F1, coefficient F1, consistent share, budget used), and the seconds it took."""
    start = time.perf_counter()
    variants = [with_setting(e, setting) for e in episodes]
    results = [run_episode(e, ExperimenterAgent()) for e in variants]
    elapsed = time.perf_counter() - start
    scores = [r.scores(e) for r, e in zip(results, variants, strict=True)]
    budgets = [r.interventions_used / e.budget for r, e in zip(results, variants, strict=True) if e.budget]
    row = [
        fmean(r.success for r in results),
        fmean(s["edge_f1"] for s in scores),
        fmean(s["coefficient_f1"] for s in scores),
        fmean(budgets) if budgets else "–",
    ]
    return [round(v, 3) if isinstance(v, float) else v for v in row], elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suites", nargs="+", default=["4nodes", "6nodes"])
    args = parser.parse_args()

    headers = ["suite", "setting", "records", "budget", "task acc.", "edge F1", "coef. F1", "budget used"]
    rows, played, seconds = [], 0, 0.0
    for suite in args.suites:
        episodes = load_suite(RELEASE, suite)
        for name, setting in REGIMES.items():
            row, elapsed = play(episodes, setting)
            budget = setting.budget if setting.budget is not None else episodes[0].budget
            rows.append([suite, name, setting.prior_observations, budget, *row])
            played, seconds = played + len(episodes), seconds + elapsed
        for family in ("observation", "intervention", "mixed"):
            for count in SCALING_COUNTS:
                setting = scaling_setting(family, count)
                row, elapsed = play(episodes, setting)
                rows.append([suite, f"scaling {family}", setting.prior_observations, setting.budget, *row])
                played, seconds = played + len(episodes), seconds + elapsed
    print(f"experimenter: {played} episodes in {seconds:.2f} s ({1000 * seconds / played:.1f} ms per episode)")
    print()
    print(markdown_table(headers, rows))

    start, readings = time.perf_counter(), 0
    for suite in (s for s in SUITES if "hidden" in s):
        for episode in load_suite(RELEASE, suite):
            lab, rng = Lab(episode), random.Random(episode.id)
            for node in episode.controllable * 4:
                lab.intervene(node, float(rng.randint(0, 100)))
                readings += 1
    print()
    print(f"hidden suites: {readings} interventions replayed in {time.perf_counter() - start:.2f} s")

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        summary = score_upstream_runs([SAMPLE], Path(folder) / "scored")
        metrics = summary.metrics
        print(
            f"score-upstream-run on the released gpt-5-mini episode: {time.perf_counter() - start:.2f} s; "
            f"task accuracy {metrics.task_accuracy}, edge F1 {metrics.edge_f1:.3f}, SHD {metrics.shd}, "
            f"coefficient F1 {metrics.coefficient_f1}, budget used {metrics.budget_used}, "
            f"consistent {metrics.consistent}"
        )


if __name__ == "__main__":
    main()
