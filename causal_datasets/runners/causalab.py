"""``causal-datasets eval causalab``: play CausaLab episodes with a chat model or a reference agent.

Episodes come from one or more configs of a built ``causalab`` folder (``--hub-dir``; built on
the fly when missing, with the release from ``--source`` or ``$CAUSAL_DATASETS_SOURCES`` when given)
or of a Hub dataset (``--dataset ORG/NAME --revision vX``). Agents and models go through the same
episode loop. Each finished episode is appended to ``results.jsonl`` at once (steps, raw replies,
parsed hypotheses, per-step and final mechanism scores, outcome); ``--resume`` skips finished ids
(episodes that died of an LLM failure are played again). ``summary.json`` holds the aggregate.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Sequence
from statistics import fmean
from typing import Any

from causal_datasets.causalab.dsl import Hypothesis
from causal_datasets.causalab.episode import Agent, EpisodeResult, run_episode
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.llm_agent import ChatAgent
from causal_datasets.causalab.metrics import aggregate, score_trajectory
from causal_datasets.causalab.random_agent import RandomAgent
from causal_datasets.errors import RunConfigurationError
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.options import client_from_args
from causal_datasets.records.causalab import CausaLabEpisode
from causal_datasets.runners import EvalTask
from causal_datasets.runners.inputs import add_dataset_arguments, location_from_args, run_metadata
from causal_datasets.runners.results import ResultsLog, limited, write_summary

DATASET = "causalab"
AGENTS = ("experimenter", "random")
AgentFactory = Callable[[CausaLabEpisode], Agent]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", nargs="+", default=["4nodes"],
                        help="suite config(s), e.g. 4nodes or 3nodes 5nodes 7nodes or upstream_4nodes (default 4nodes)")
    parser.add_argument("--split", default="test", help="split of the config (default test)")
    parser.add_argument("--agent", choices=AGENTS, help="a reference agent instead of --model")
    parser.add_argument("--agent-seed", type=int, default=0, help="seed of the random agent (default 0)")
    parser.add_argument("--verify", action="store_true", help="ask the model to check its hypothesis against past data before submitting")
    parser.add_argument("--max-turns", type=int, default=None,
                        help="steps per episode before it ends unsubmitted (default: budget + submissions + 8)")
    parser.add_argument("--history", type=int, default=None,
                        help="send only the last N exchanges after the opening messages (default: all)")
    add_dataset_arguments(parser, DATASET, from_files=True)


def load_episodes(
    location: DatasetLocation, configs: Sequence[str], split: str = "test"
) -> tuple[list[CausaLabEpisode], dict[str, Any]]:
    """Episodes of the given configs (in order) and the dataset's manifest (a local build is made first if needed)."""
    episodes: list[CausaLabEpisode] = []
    for config in configs:
        loaded = location.load(DATASET, config, split)
        episodes += loaded.records
    return episodes, loaded.manifest


def episode_item(episode: CausaLabEpisode, result: EpisodeResult, agent_name: str) -> dict[str, Any]:
    """The results.jsonl line of one episode."""
    hypotheses = [Hypothesis.model_validate(s["step"]["hypothesis"]) for s in result.steps if s["step"] is not None]
    return {
        "id": episode.id,
        "suite": episode.suite,
        "num_nodes": len(episode.nodes),
        "origin": episode.origin,
        "agent": agent_name,
        "outcome": result.outcome,
        "success": result.success,
        "error": result.error,
        "predictions": result.predictions,
        "reactor_frequency": episode.reactor_frequency,
        "interventions_used": result.interventions_used,
        "budget": episode.budget,
        "invalid_steps": result.invalid_steps,
        "refusals": result.refusals,
        "final_hypothesis": result.final_hypothesis.model_dump(),
        "scores": result.scores(episode),
        "trajectory": [s.to_dict() for s in score_trajectory(hypotheses, episode)],
        "steps": result.steps,
    }


def play(
    episodes: Sequence[CausaLabEpisode], make_agent: AgentFactory, agent_name: str, log: ResultsLog,
    *, concurrency: int = 4, max_turns: int | None = None,
) -> list[str]:
    """Play every episode not finished in ``log``, appending each as it ends; returns crash messages."""
    pending = [e for e in episodes if not (log.done(e.id) and log.items[e.id].get("outcome") != "llm_error")]

    def one(episode: CausaLabEpisode) -> dict[str, Any]:
        return episode_item(episode, run_episode(episode, make_agent(episode), max_turns=max_turns), agent_name)

    failures = log.record_all(pending, one, concurrency=concurrency, desc="causalab episodes")
    return [f"{e.id}: {type(error).__name__}: {error}" for e, error in failures]


def summarize(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate scores, outcome counts and budget use of finished episodes."""
    summary: dict[str, Any] = aggregate(items)
    summary["outcomes"] = dict(sorted(Counter(i["outcome"] for i in items).items()))
    summary["by_num_nodes"] = _by(items, "num_nodes")
    summary["by_suite"] = _by(items, "suite")
    if items:
        summary["budget_used"] = fmean(i["interventions_used"] / i["budget"] if i["budget"] else 0.0 for i in items)
        summary["invalid_steps"] = fmean(i["invalid_steps"] for i in items)
    return summary


def _by(items: Sequence[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(str(item[field]), []).append(item)
    return {key: aggregate(group) for key, group in sorted(groups.items())}


def run(args: argparse.Namespace) -> dict[str, Any]:
    client = client_from_args(args)
    if (client is None) == (args.agent is None):
        raise RunConfigurationError("give exactly one of --agent (experimenter, random) or --model")
    location = location_from_args(args)
    episodes, manifest = load_episodes(location, args.config, args.split)
    episodes = limited(episodes, args.limit)
    log = ResultsLog(args.out, resume=args.resume)
    if client is None:
        factory: AgentFactory = (
            (lambda e: ExperimenterAgent()) if args.agent == "experimenter" else (lambda e: RandomAgent(seed=args.agent_seed))
        )
        agent_name = f"agent:{args.agent}"
    else:
        factory = lambda e: ChatAgent(client, e, verify=args.verify, history=args.history)  # noqa: E731
        agent_name = f"model:{client.config.model}"
    try:
        crashed = play(episodes, factory, agent_name, log, concurrency=args.concurrency, max_turns=args.max_turns)
    finally:
        if client is not None:
            client.close()
    wanted = {e.id for e in episodes}
    items = [item for item_id, item in log.items.items() if item_id in wanted]
    metrics = summarize(items)
    run_info = run_metadata(
        location, manifest, ",".join(args.config), {"model": client},
        split=args.split,
        agent=agent_name,
        agent_seed=args.agent_seed if args.agent == "random" else None,
        verify=args.verify,
        history=args.history,
        max_turns=args.max_turns,
        episodes_selected=len(episodes),
        episodes_scored=len(items),
        crashed=crashed,
    )
    write_summary(args.out, metrics, run_info)
    return {"run": run_info, "metrics": metrics}


EVAL_TASK = EvalTask(
    name=DATASET,
    help="interactive CausaLab episodes: intervene on crystals, predict the reactor frequency, state the mechanism",
    add_arguments=add_arguments,
    run=run,
)
