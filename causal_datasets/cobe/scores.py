"""A CoBe item's generation and scores as a run stores them, and the per-item values read off them.

:class:`CoBeGeneration` is the rewrite judged (the run's model's or a published one),
:class:`CoBeScores` the judge's verdicts on it; :func:`correct` and :func:`item_scores` give the
values ``eval`` averages and its estimates resample.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.cobe.judge import CriterionVerdict
from causal_datasets.runners.task import Scored


class CoBeGeneration(BaseModel):
    """The rewrite judged: written by the run's model (its call holds the request) or published with the source."""

    query_id: str
    scenario_id: str
    model: str = Field(description="the model that wrote the rewrite")
    response: str
    published_verdict: str | None = Field(default=None, description="the verdict published with a released rewrite")


class CoBeScores(BaseModel):
    """The judge's verdict on every criterion and the rewrite's verdict (the published verdict when no judge
    was asked), and the failure mode of a wrong rewrite with ``--failure-modes``."""

    query_id: str
    scenario_id: str
    model: str
    judged: bool
    verdict: str = Field(description="correct, wrong or unknown")
    criteria: list[CriterionVerdict]
    error: str | None
    error_detail: str | None = None
    published_verdict: str | None = None
    failure_mode: dict[str, Any] | None = None


Rewrite = Scored[CoBeGeneration, CoBeScores]


def correct(scores: CoBeScores) -> float:
    """Judged correct (1) or not (0)."""
    return float(scores.verdict == "correct")


def item_scores(scores: CoBeScores) -> dict[str, float]:
    """Judged correct (1) or not (0): the mean is the run's ``accuracy``."""
    return {"accuracy": correct(scores)}
