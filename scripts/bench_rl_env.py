"""The RL environments (``causal_datasets.integrations.rl_episodes``): what a trainer waits for per episode.

For each benchmark and difficulty, ``--episodes`` episodes (default 200) drawn by seed are played by the
reference agent (ShapeWorld's oracle, CausaLab's experimenter) through ``RLEpisode``: reset (drawing the
episode and writing its opening messages), one step per message, and the reward (the task's own scoring).
Printed: milliseconds per reset, per step and per reward, and whole episodes per second (the agent's own
time left out), wall clock, best of ``--repeat``; the machine may be shared.

    .venv/bin/python scripts/bench_rl_env.py [--episodes 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from functools import partial
from typing import Any

from timing import best_of

from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.integrations.rl_episodes import RLEpisode, draw_episode
from causal_datasets.shapeworld.agents import OracleAgent

CASES: list[tuple[str, dict[str, Any]]] = [
    ("shapeworld", {"num_variables": 3}),
    ("shapeworld", {"num_variables": 7}),
    ("causalab", {"nodes": 4}),
    ("causalab", {"nodes": 7, "hidden": 2}),
]


def replies(benchmark: str, seed: int, difficulty: dict[str, Any]) -> list[str]:
    """The reference agent's messages for the episode of ``seed`` (played once, untimed)."""
    episode = RLEpisode(benchmark)
    episode.reset(seed=seed, **difficulty)
    sent: list[str] = []
    agent: Any = OracleAgent(episode.row) if benchmark == "shapeworld" else ExperimenterAgent()
    while not episode.done:
        assert episode.env is not None
        sent.append(agent.respond(episode.env.turn()) if benchmark == "shapeworld" else agent.act(episode.env.view).raw)
        episode.step(sent[-1])
    return sent


def timed(benchmark: str, difficulty: dict[str, Any], scripts: list[list[str]]) -> tuple[float, float, float, float]:
    """Seconds spent resetting, stepping and scoring the episodes, and the rewards' total."""
    episode = RLEpisode(benchmark)
    reset = step = reward = total = 0.0
    for seed, messages in enumerate(scripts):
        start = time.perf_counter()
        episode.reset(draw_episode(benchmark, seed, **difficulty))
        stepped = time.perf_counter()
        for message in messages:
            episode.step(message)
        scored = time.perf_counter()
        total += episode.reward()
        reset, step, reward = reset + stepped - start, step + scored - stepped, reward + time.perf_counter() - scored
    return reset, step, reward, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| benchmark | difficulty | reset (ms) | step (ms) | reward (ms) | episodes/s | mean reward |")
    print("|---|---|---|---|---|---|---|")
    for benchmark, difficulty in CASES:
        scripts = [replies(benchmark, seed, difficulty) for seed in range(args.episodes)]
        steps = sum(map(len, scripts))
        best, (reset, step, reward, total) = best_of(partial(timed, benchmark, difficulty, scripts), args.repeat)
        knobs = ", ".join(f"{k}={v}" for k, v in difficulty.items())
        print(
            f"| {benchmark} | {knobs} | {1000 * reset / args.episodes:.2f} | {1000 * step / steps:.3f} | "
            f"{1000 * reward / args.episodes:.2f} | {args.episodes / best:,.0f} | {total / args.episodes:.2f} |"
        )


if __name__ == "__main__":
    main()
