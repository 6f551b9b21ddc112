"""``causal-datasets eval shapeworld``: play ShapeWorld episodes with a chat model or a reference agent.

Episodes come from a built ``shapeworld`` folder (``--hub-dir``, built on the fly when missing) or a
Hub dataset (``--dataset ORG/NAME --revision vX``),
run concurrently, and each finished episode is appended to ``results.jsonl`` at once, so an
interrupted run keeps its work; ``--resume`` skips finished episodes (those that died of an LLM
failure are played again). ``summary.json`` holds :func:`score_episodes` of the selected episodes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from causal_datasets.errors import RunConfigurationError
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.options import client_from_args
from causal_datasets.records.shapeworld import ShapeWorldTask
from causal_datasets.runners import EvalTask
from causal_datasets.runners.inputs import add_dataset_arguments, location_from_args, run_metadata
from causal_datasets.runners.results import ResultsLog, limited, write_summary
from causal_datasets.shapeworld.agents import AGENTS
from causal_datasets.shapeworld.chat import ChatPolicy
from causal_datasets.shapeworld.episode import Policy, run_episode
from causal_datasets.shapeworld.prompts import VARIANTS, Variant
from causal_datasets.shapeworld.scoring import score_episodes

DATASET = "shapeworld"
PolicyFactory = Callable[[ShapeWorldTask], Policy]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", choices=("core", "advanced"), default="core", help="task set (default core)")
    parser.add_argument("--split", default="test", help="split of the config (default test)")
    parser.add_argument("--variant", choices=VARIANTS, default="basic", help="prompt variant (default basic)")
    parser.add_argument("--no-system-role", action="store_true",
                        help="send the rules in the first user message (for models without a system role)")
    parser.add_argument("--agent", choices=sorted(AGENTS), help="a reference agent instead of --model")
    parser.add_argument("--agent-seed", type=int, default=0, help="seed of the random agent (default 0)")
    add_dataset_arguments(parser, DATASET, from_files=False)


def load_tasks(location: DatasetLocation, config: str, split: str = "test") -> tuple[list[ShapeWorldTask], dict[str, Any]]:
    """The tasks of one config and the dataset's manifest (a local build is made first if needed)."""
    loaded = location.load(DATASET, config, split)
    return loaded.records, loaded.manifest


def play(
    tasks: Sequence[ShapeWorldTask], make_policy: PolicyFactory, policy_name: str, variant: Variant,
    log: ResultsLog, *, concurrency: int = 4, system_role: bool = True,
) -> list[str]:
    """Play every task not finished in ``log``, appending each result as it ends; returns crash messages."""
    pending = [t for t in tasks if not _finished(log, t.id)]

    def one(task: ShapeWorldTask) -> dict[str, Any]:
        return run_episode(task, make_policy(task), variant, policy_name, system_role=system_role).model_dump(mode="json")

    failures = log.record_all(pending, one, concurrency=concurrency, desc="shapeworld episodes")
    return [f"{task.id}: {type(error).__name__}: {error}" for task, error in failures]


def run(args: argparse.Namespace) -> dict[str, Any]:
    if bool(args.model) == bool(args.agent):
        raise RunConfigurationError("give exactly one of --agent (oracle, random, strategy) or --model")
    client = client_from_args(args)
    location = location_from_args(args)
    tasks, manifest = load_tasks(location, args.config, args.split)
    tasks = limited(tasks, args.limit)
    log = ResultsLog(args.out, resume=args.resume)
    if client is None:
        factory = lambda task: AGENTS[args.agent](task, args.agent_seed)  # noqa: E731
        policy_name = f"agent:{args.agent}"
    else:
        factory, policy_name = (lambda task: ChatPolicy(client)), f"model:{client.config.model}"
    try:
        crashed = play(tasks, factory, policy_name, args.variant, log, concurrency=args.concurrency,
                       system_role=not args.no_system_role)
    finally:
        if client is not None:
            client.close()
    wanted = {t.id for t in tasks}
    items = [item for item_id, item in log.items.items() if item_id in wanted]
    metrics = score_episodes(items)
    run_info = run_metadata(
        location, manifest, args.config, {"model": client},
        split=args.split,
        variant=args.variant,
        system_role=not args.no_system_role,
        policy=policy_name,
        agent_seed=args.agent_seed if args.agent == "random" else None,
        episodes_selected=len(tasks),
        episodes_scored=len(items),
        crashed=crashed,
    )
    write_summary(args.out, metrics, run_info)
    return {"run": run_info, "metrics": metrics}


def _finished(log: ResultsLog, task_id: str) -> bool:
    return log.done(task_id) and log.items[task_id].get("error") != "llm_error"


EVAL_TASK = EvalTask(
    name=DATASET,
    help="interactive ShapeWorld (CausalLink) episodes: a model or agent intervenes on shapes to answer a causal question",
    add_arguments=add_arguments,
    run=run,
)
