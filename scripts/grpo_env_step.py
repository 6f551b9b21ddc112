"""One real TRL ``GRPOTrainer`` step in environment mode on ShapeWorld or CausaLab, on the CPU.

A tiny random model made in code (``causal_datasets.training.tiny_tool_model``: no download) plays two
episodes twice each; the episodes are the environments ``eval`` plays
(:mod:`causal_datasets.integrations.trl_env`), and the reward is the environment's ``get_reward``. With
``--out FILE`` every rollout (its seed, the messages the model sent through the ``send`` tool, the
environment's reward) and the reward TRL logged are written as JSON, for a check against ``eval``'s
scoring of the same transcripts (tests/integrations/test_trl_env.py). Exits 0 after the step.

    python scripts/grpo_env_step.py --env shapeworld --out rollouts.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from trl import GRPOTrainer  # noqa: E402

from causal_datasets.integrations.trl_env import CausaLabEnvironment, ShapeWorldEnvironment, episode_rows  # noqa: E402
from causal_datasets.training import one_step_config, tiny_tool_model  # noqa: E402

ENVIRONMENTS = {"shapeworld": ShapeWorldEnvironment, "causalab": CausaLabEnvironment}
PROMPTS, GENERATIONS = 2, 2


def sent_messages(completion: list[dict[str, Any]]) -> list[str]:
    """The messages a rollout's model sent to the environment: the ``message`` of each ``send`` call, in order."""
    return [
        call["function"]["arguments"]["message"]
        for message in completion
        for call in message.get("tool_calls") or []
        if call.get("function", {}).get("name") == "send"
        and set(call["function"].get("arguments") or {}) == {"message"}
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=sorted(ENVIRONMENTS), required=True)
    parser.add_argument("--out", type=Path, help="write the rollouts and rewards here (JSON)")
    parser.add_argument("--max-completion-length", type=int, default=32)
    args = parser.parse_args(argv)
    environment = ENVIRONMENTS[args.env]
    rollouts: list[dict[str, Any]] = []

    def recorded(prompts: list[Any], completions: list[Any], environments: list[Any], seed: list[int], **_: Any):
        """Keeps each rollout's seed, messages and reward; adds nothing to the reward (None: not applicable)."""
        for completion, env, row_seed in zip(completions, environments, seed, strict=True):
            rollouts.append({"seed": row_seed, "sent": sent_messages(completion), "reward": env.get_reward()})
        return [None] * len(completions)

    model, tokenizer = tiny_tool_model(seed=0)
    with tempfile.TemporaryDirectory() as folder:
        config = one_step_config(folder, PROMPTS * GENERATIONS, args.max_completion_length, GENERATIONS)
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            reward_funcs=recorded,
            train_dataset=episode_rows(args.env, range(PROMPTS)),
            environment_factory=environment,
            args=config,
        )
        trainer.train()
    logged = trainer.state.log_history[0][f"rewards/{environment.__name__}/mean"]
    print(f"{args.env}: {len(rollouts)} rollouts, step {trainer.state.global_step}, mean reward {logged}")
    if args.out:
        args.out.write_text(json.dumps({"env": args.env, "rollouts": rollouts, "logged_mean_reward": logged}))
    return 0 if trainer.state.global_step == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
