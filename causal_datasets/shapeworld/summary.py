"""The summary of a ShapeWorld run: :class:`ShapeWorldMetrics` (accuracy overall and per answer, steps, errors,
failure patterns) and its slices per structure and number of variables, from the scored episodes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import Scored, TaskContext
from causal_datasets.shapeworld.episode import EpisodePlay, EpisodeScores
from causal_datasets.shapeworld.scoring import score_episodes


class ShapeWorldMetrics(BenchmarkMetrics):
    benchmark: Literal["shapeworld"] = "shapeworld"
    count: int = Field(title="episodes")
    accuracy: float | None = Field(
        title="accuracy", description="right answers / episodes (an episode without one is wrong)"
    )
    accuracy_true: float | None = Field(title="accuracy (yes cases)")
    accuracy_false: float | None = Field(title="accuracy (no cases)")
    true_cases: int = Field(title="yes cases")
    false_cases: int = Field(title="no cases")
    answered: int = Field(title="answered")
    predicted_yes: int = Field(title="answered yes")
    mean_steps: float | None = Field(
        title="mean steps", description="actions before a final answer, over answered episodes"
    )
    error_total: int = Field(title="errors")
    accuracy_se: float | None = Field(
        default=None,
        title="accuracy SE over setups",
        description="standard error of the per-setup accuracies (Fig. 2 error bars)",
    )
    setups: int = Field(default=0, title="initial setups")
    unparsable: int = Field(default=0, title="unparsable (no yes/no answer: wrong)")
    errors: dict[str, int] = Field(title="errors by mode")
    failure_patterns: dict[str, int] = Field(title="failure patterns")
    failure_pattern_shares: dict[str, float | None] | None = Field(
        default=None, title="failure patterns (share of wrong answers)"
    )


def summarize(
    results: list[Scored[EpisodePlay, EpisodeScores]], context: TaskContext
) -> tuple[ShapeWorldMetrics, Slices]:
    scores = score_episodes([result.scores.model_dump() for result in results])
    slices = {name: scores.pop(name) for name in ("by_structure", "by_num_variables", "by_num_variables_all_moving")}
    return ShapeWorldMetrics(count=scores.pop("episodes"), **scores), slices
