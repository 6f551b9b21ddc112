"""Scoring one played CausaLab episode: the final hypothesis against the true mechanism and against the
agent's own data, every hypothesis stated along the way, and the episode's facts the summary splits by."""

from __future__ import annotations

from pydantic import BaseModel, Field

from causal_datasets.causalab.dsl import Hypothesis
from causal_datasets.causalab.metrics import (
    SCORE_FIELDS,
    Consistency,
    MechanismScores,
    consistency,
    score_hypothesis,
    score_trajectory,
)
from causal_datasets.causalab.play import CausaLabGeneration
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.regimes import regime_of
from causal_datasets.runners.task import Item, Scored, TaskContext, Transcript


class CausaLabScores(BaseModel):
    """The scores of a finished episode: the episode's facts, the final hypothesis against the true
    mechanism and against the agent's own data, and every hypothesis stated along the way."""

    suite: str
    num_nodes: int
    origin: str
    regime: str
    prior_observations: int
    budget: int
    reactor_frequency: float
    success: bool
    interventions_used: int
    invalid_steps: int
    reasks: int
    mechanism: MechanismScores = Field(description="the final hypothesis against the true mechanism")
    consistency: Consistency = Field(description="the final hypothesis against every record the agent saw")
    trajectory: list[MechanismScores] = Field(description="the hypothesis of each readable step, scored")


#: a played and scored episode, as the summary reads it
Episode = Scored[CausaLabGeneration, CausaLabScores]


def score(item: Item, transcript: Transcript[CausaLabGeneration], context: TaskContext) -> CausaLabScores:
    """Score the played episode of ``item``."""
    episode: CausaLabEpisode = item.row
    played = transcript.generation
    hypotheses = [Hypothesis.model_validate(s["step"]["hypothesis"]) for s in played.steps if s["step"] is not None]
    return CausaLabScores(
        suite=episode.suite,
        num_nodes=len(episode.nodes),
        origin=episode.origin,
        regime=regime_of(len(episode.observation_crystals), episode.budget),
        prior_observations=len(episode.observation_crystals),
        budget=episode.budget,
        reactor_frequency=episode.reactor_frequency,
        success=played.success,
        interventions_used=played.interventions_used,
        invalid_steps=played.invalid_steps,
        reasks=played.reasks,
        mechanism=score_hypothesis(played.final_hypothesis, episode),
        consistency=consistency(played.final_hypothesis, played.data, episode.tolerance),
        trajectory=score_trajectory(hypotheses, episode),
    )


def item_scores(scores: CausaLabScores) -> dict[str, float]:
    """Success and the final mechanism scores: their means over episodes are the run's metrics."""
    return {
        "task_accuracy": float(scores.success),
        **{name: float(getattr(scores.mechanism, name)) for name in SCORE_FIELDS},
    }


def budget_share(scores: CausaLabScores) -> float | None:
    """The share of its budget an episode used (None for an episode with no budget to use)."""
    return scores.interventions_used / scores.budget if scores.budget else None
