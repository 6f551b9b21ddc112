"""Benchmark: generate every CausaLab suite (19 × 50) and play the experimenter (and the random
agent) on every generated and released episode; prints timings and per-suite scores.

    .venv/bin/python scripts/bench_causalab.py [--seed 0] [--no-upstream]
"""

from __future__ import annotations

import argparse
import time
from statistics import fmean

from checkout import SHARED_DATA_DIR

from causal_datasets.causalab.episode import run_episode
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.generator import generate_suite
from causal_datasets.causalab.random_agent import RandomAgent
from causal_datasets.causalab.suites import SUITE_SPECS
from causal_datasets.causalab.upstream import SUITES, load_suite
from causal_datasets.markdown import markdown_table


def scores_row(label: str, episodes, agent_factory) -> tuple[list, float]:
    start = time.perf_counter()
    results = [run_episode(e, agent_factory()) for e in episodes]
    elapsed = time.perf_counter() - start
    scores = [r.scores(e) for r, e in zip(results, episodes, strict=True)]
    row = [
        label,
        len(episodes),
        fmean(r.success for r in results),
        fmean(s["edge_f1"] for s in scores),
        fmean(s["shd"] for s in scores),
        fmean(s["coefficient_f1"] for s in scores),
        fmean(s["root_f1"] for s in scores),
        fmean(r.interventions_used / e.budget for r, e in zip(results, episodes, strict=True)),
    ]
    return row, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-upstream", action="store_true", help="skip the released suites")
    args = parser.parse_args()

    start = time.perf_counter()
    generated = {name: generate_suite(spec, args.seed) for name, spec in SUITE_SPECS.items()}
    generate_s = time.perf_counter() - start
    start = time.perf_counter()
    release = SHARED_DATA_DIR / "causalab" / "data"
    upstream = (
        {} if args.no_upstream or not release.exists() else {s: load_suite(release, s, args.seed) for s in SUITES}
    )
    import_s = time.perf_counter() - start

    headers = ["suite", "episodes", "task acc.", "edge F1", "SHD", "coef. F1", "root F1", "budget used"]
    rows, experimenter_s = [], 0.0
    for origin, suites in (("generated", generated), ("upstream", upstream)):
        for name, episodes in suites.items():
            row, elapsed = scores_row(f"{origin} {name}", episodes, ExperimenterAgent)
            rows.append(row)
            experimenter_s += elapsed
    all_episodes = [e for suites in (generated, upstream) for episodes in suites.values() for e in episodes]
    random_row, random_s = scores_row("random agent, all suites", all_episodes, lambda: RandomAgent(seed=args.seed))

    print(f"episodes: {sum(map(len, generated.values()))} generated + {sum(map(len, upstream.values()))} released")
    print(f"generate all 19 suites: {generate_s:.2f} s; import the release: {import_s:.2f} s")
    print(f"experimenter on every episode: {experimenter_s:.2f} s; random agent: {random_s:.2f} s")
    print(f"total (generate + import + experimenter): {generate_s + import_s + experimenter_s:.2f} s")
    print()
    print("Experimenter agent")
    print(markdown_table(headers, rows))
    print()
    print(markdown_table(headers, [random_row]))


if __name__ == "__main__":
    main()
