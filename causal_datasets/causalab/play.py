"""Playing one CausaLab item: the agent or chat model that plays it, and the finished episode it leaves
(steps, raw replies, parsed hypotheses, submissions, outcome, every record the agent saw) as the item's
generation. An episode the model server could not finish (``llm_error``) is a failed item."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.causalab.dsl import Hypothesis
from causal_datasets.causalab.episode import Agent, EpisodeResult, run_episode
from causal_datasets.causalab.episode import Outcome as EpisodeOutcome
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.llm_agent import ChatAgent
from causal_datasets.causalab.options import CausaLabOptions
from causal_datasets.causalab.random_agent import RandomAgent
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.runners.task import CallFailed, Item, TaskContext

#: the reference agents ``--agent`` may name instead of a model
AGENTS = ("experimenter", "random")


class CausaLabGeneration(BaseModel):
    """A finished episode as the loop recorded it, before any scoring."""

    agent: str = Field(description="'model:<name>', 'agent:<name>' or 'published'")
    outcome: EpisodeOutcome
    success: bool = Field(description="the reactor activated")
    error: str | None
    predictions: list[float] = Field(description="the reactor frequencies submitted, in order")
    interventions_used: int
    invalid_steps: int
    reasks: int = Field(description="unreadable replies asked again")
    refusals: dict[str, int]
    final_hypothesis: Hypothesis
    data: list[dict[str, Any]] = Field(description="every record the agent saw: prior records, then each reading")
    steps: list[dict[str, Any]] = Field(description="each step: raw reply, parsed step, parse error, warnings, event")

    @classmethod
    def of(cls, result: EpisodeResult, agent: str) -> CausaLabGeneration:
        """The episode's result as the generation of ``agent`` (the result's fields this model keeps)."""
        kept = {f.name: getattr(result, f.name) for f in fields(result) if f.name in cls.model_fields}
        return cls(agent=agent, **kept)


def solve(item: Item, context: TaskContext) -> CausaLabGeneration:
    """Play the item's episode with the run's reference agent or model."""
    episode: CausaLabEpisode = item.row
    options: CausaLabOptions = context.options
    agent: Agent
    if context.settings.agent == "experimenter":
        agent, name = ExperimenterAgent(), "agent:experimenter"
    elif context.settings.agent == "random":
        agent, name = RandomAgent(seed=options.agent_seed), "agent:random"
    else:
        client = context.clients["model"]
        model = ChatAgent(client, episode, verify=options.verifies(), history=options.history, reask=options.reask)
        return _generation(model.play(max_turns=options.max_turns), model.name)
    return _generation(run_episode(episode, agent, max_turns=options.max_turns), name)


def _generation(result: EpisodeResult, name: str) -> CausaLabGeneration:
    """The generation of a finished episode; one the model server could not finish is a failed item."""
    if result.outcome == "llm_error":
        raise CallFailed(result.error)
    return CausaLabGeneration.of(result, name)
