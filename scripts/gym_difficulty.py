"""Measured difficulty of every gym knob, as the Markdown tables of docs/generators.md.

    python scripts/gym_difficulty.py --size 200

For each generator and knob: each level of the knob (the other knobs at their defaults), ``--size`` entries
(seed 0) measured by the generator (the reference agent's steps or failures, graph statistics); the measure
the knob is claimed to raise (``causal_datasets.gym.difficulty.TRACKED``) is marked and checked.
"""

from __future__ import annotations

import argparse

from causal_datasets import gym
from causal_datasets.gym.difficulty import TRACKED, knob_levels, rises
from causal_datasets.markdown import markdown_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--generator", action="append", choices=gym.names(), help="default: every generator")
    args = parser.parse_args()
    for name in args.generator or gym.names():
        generator = gym.get(name)
        print(f"### {name}\n")
        for knob in generator.knobs:
            tracked = TRACKED[(name, knob)]
            levels = knob_levels(name, knob, size=args.size)
            measures = list(levels[0][1])
            header = [knob, *(f"**{m}**" if m == tracked else m for m in measures)]
            rows = [[str(level), *(f"{values[m]:.3f}" for m in measures)] for level, values in levels]
            verdict = "rises" if rises([values[tracked] for _, values in levels]) else "DOES NOT RISE"
            print(f"{markdown_table(header, rows)}\n\n{tracked} {verdict} with {knob} ({args.size} entries a level)\n")


if __name__ == "__main__":
    main()
