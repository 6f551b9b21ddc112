"""``causal-datasets eval causalab``: CausaLab episodes played by a chat model or a reference agent.

Agents and models go through the same episode loop; each result holds the steps, raw replies,
parsed hypotheses, per-step and final mechanism scores and the outcome. An episode the model
server could not finish (``llm_error``) is a failed item, played again by ``--resume``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any, get_args

from pydantic import BaseModel, Field

from causal_datasets.causalab.dsl import Hypothesis
from causal_datasets.causalab.episode import Agent, EpisodeResult, run_episode
from causal_datasets.causalab.episode import Outcome as EpisodeOutcome
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.llm_agent import ChatAgent
from causal_datasets.causalab.metrics import SCORE_FIELDS, aggregate, score_trajectory
from causal_datasets.causalab.random_agent import RandomAgent
from causal_datasets.causalab.suites import SUITE_SPECS
from causal_datasets.causalab.upstream import SUITES
from causal_datasets.records.causalab import CausaLabEpisode
from causal_datasets.runners.records import CausaLabMetrics, Slices
from causal_datasets.runners.task import Item, Outcome, RoleSpec, Task, TaskContext

AGENTS = ("experimenter", "random")


class CausaLabOptions(BaseModel):
    agent_seed: int = Field(default=0, ge=0, description="seed of the random agent")
    verify: bool = Field(default=False, description="ask the model to check its hypothesis against past data before submitting")
    max_turns: int | None = Field(default=None, ge=1, description="steps per episode before it ends unsubmitted (default: budget + submissions + 8)")
    history: int | None = Field(default=None, ge=0, description="send only the last N exchanges after the opening messages (default: all)")


def episode_item(episode: CausaLabEpisode, result: EpisodeResult, agent_name: str) -> dict[str, Any]:
    """The result fields of one episode."""
    hypotheses = [Hypothesis.model_validate(s["step"]["hypothesis"]) for s in result.steps if s["step"] is not None]
    return {
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


def items(context: TaskContext) -> list[Item]:
    return [Item(row.id, config, row) for config in context.configs for row in context.load(config).records]


def solve(item: Item, context: TaskContext) -> Outcome:
    episode: CausaLabEpisode = item.row
    options: CausaLabOptions = context.options
    agent: Agent
    if context.settings.agent == "experimenter":
        agent, name = ExperimenterAgent(), "agent:experimenter"
    elif context.settings.agent == "random":
        agent, name = RandomAgent(seed=options.agent_seed), "agent:random"
    else:
        client = context.clients["model"]
        agent = ChatAgent(client, episode, verify=options.verify, history=options.history)
        name = f"model:{client.config.model}"
    result = run_episode(episode, agent, max_turns=options.max_turns)
    fields = episode_item(episode, result, name)
    return Outcome(fields, f"llm_error: {result.error}" if result.outcome == "llm_error" else None)


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[CausaLabMetrics, Slices]:
    """Aggregate scores, outcome counts and budget use, overall and per number of nodes and per suite."""
    metrics: dict[str, Any] = aggregate(results)
    counts = Counter(r["outcome"] for r in results)
    metrics["outcomes"] = {outcome: counts[outcome] for outcome in get_args(EpisodeOutcome)}  # zeros shown, not missing
    if results:
        metrics["budget_used"] = fmean(r["interventions_used"] / r["budget"] if r["budget"] else 0.0 for r in results)
        metrics["invalid_steps"] = fmean(r["invalid_steps"] for r in results)
    return CausaLabMetrics(**metrics), {"by_num_nodes": _by(results, "num_nodes"), "by_suite": _by(results, "suite")}


def _by(results: Sequence[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        groups.setdefault(str(result[field]), []).append(result)
    return {key: aggregate(group) for key, group in sorted(groups.items())}


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Success and the final mechanism scores: their means over episodes are the run's metrics."""
    return {"task_accuracy": float(bool(result["success"])), **{name: float(result["scores"][name]) for name in SCORE_FIELDS}}


TASK = Task(
    name="causalab",
    help="interactive CausaLab episodes: intervene on crystals, predict the reactor frequency, state the mechanism",
    dataset="causalab",
    configs=(*SUITE_SPECS, *(f"upstream_{suite}" for suite in SUITES)),
    default_configs=("4nodes",),
    items=items,
    solve=solve,
    summarize=summarize,
    item_scores=item_scores,
    roles=(RoleSpec("model", "the model that runs the experiments"),),
    agents=AGENTS,
    options=CausaLabOptions,
    multiple_configs=True,
    from_files=True,
)
