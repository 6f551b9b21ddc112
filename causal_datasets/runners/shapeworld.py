"""``causal-datasets eval shapeworld``: ShapeWorld (CausalLink) episodes played by a chat model or a reference agent.

Models and agents go through the same episode loop (:func:`causal_datasets.shapeworld.episode.play_episode`):
the played episode is the item's generation, scored afterwards by
:func:`~causal_datasets.shapeworld.episode.score_play`; an episode the model server could not finish
(``llm_error``) is a failed item, played again by ``--resume``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from causal_datasets.markdown import markdown_table
from causal_datasets.records.shapeworld import ShapeWorldTask
from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import (
    CallFailed,
    Estimates,
    Item,
    RoleSpec,
    Scored,
    Task,
    TaskContext,
    Transcript,
)
from causal_datasets.shapeworld.agents import AGENTS
from causal_datasets.shapeworld.chat import ChatPolicy
from causal_datasets.shapeworld.entities import THEMES, ThemeName
from causal_datasets.shapeworld.episode import EpisodePlay, EpisodeScores, Policy, play_episode, score_play
from causal_datasets.shapeworld.prompts import Variant
from causal_datasets.shapeworld.scoring import score_episodes
from causal_datasets.uncertainty import Mean, ratio
from causal_datasets.views import MappingBars, RunTable, SlicePlot, View

if TYPE_CHECKING:
    from causal_datasets.report.runs import Run


class ShapeWorldOptions(BaseModel):
    variant: Variant = Field(default="basic", description="prompt variant")
    entities: ThemeName = Field(
        default="shapes", description="what the world's entities are called (the graphs stay the same)"
    )
    system_role: bool = Field(
        default=True,
        description="send the rules as a system message, not in the first user "
        "message (turn off for models without a system role)",
    )
    agent_seed: int = Field(default=0, ge=0, description="seed of the random agent")


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


def items(context: TaskContext) -> list[Item]:
    return [Item(row.id, config, row) for config in context.configs for row in context.rows(config, ShapeWorldTask)]


def solve(item: Item, context: TaskContext) -> EpisodePlay:
    task: ShapeWorldTask = item.row
    options: ShapeWorldOptions = context.options
    agent = context.settings.agent
    theme = THEMES[options.entities]
    policy: Policy
    if agent is not None:
        policy, name = AGENTS[agent](task, options.agent_seed, theme), f"agent:{agent}"
    else:
        client = context.clients["model"]
        policy, name = ChatPolicy(client), f"model:{client.config.model}"
    play = play_episode(task, policy, options.variant, name, system_role=options.system_role, theme=theme)
    if play.error == "llm_error":
        raise CallFailed(play.error_detail)
    return play


def score(item: Item, transcript: Transcript[EpisodePlay], context: TaskContext) -> EpisodeScores:
    return score_play(item.row, transcript.generation)


def summarize(
    results: list[Scored[EpisodePlay, EpisodeScores]], context: TaskContext
) -> tuple[ShapeWorldMetrics, Slices]:
    scores = score_episodes([result.scores.model_dump() for result in results])
    slices = {name: scores.pop(name) for name in ("by_structure", "by_num_variables", "by_num_variables_all_moving")}
    return ShapeWorldMetrics(count=scores.pop("episodes"), **scores), slices


def item_scores(scores: EpisodeScores) -> dict[str, float]:
    """Right (1) or wrong (0): the episode's mean over episodes is the run's ``accuracy``."""
    return {"accuracy": float(scores.correct)}


def groups(item: Item, context: TaskContext) -> dict[str, str | None]:
    """The slice entries of an episode (the all-moving slice only holds episodes with every shape moving)."""
    task: ShapeWorldTask = item.row
    size = str(task.num_variables)
    return {
        "by_structure": task.structure,
        "by_num_variables": size,
        "by_num_variables_all_moving": size if task.all_moving else None,
    }


def _right_on(gold: str) -> Callable[[EpisodeScores], float | None]:
    """Right (1) or wrong (0) on the episodes whose answer is ``gold``; None on the others."""
    return lambda scores: float(scores.prediction == gold) if scores.gold == gold else None


def _answered(scores: EpisodeScores) -> float:
    return float(bool(scores.prediction))


#: episodes of one initial setup share their graph and start: the paper's error bars vary over setups
ESTIMATES = Estimates(
    unit="initial setup",
    cluster=lambda item: item.row.setup,
    groups=groups,
    estimators=(
        Mean("accuracy_true", _right_on("yes")),
        Mean("accuracy_false", _right_on("no")),
        ratio("mean_steps", lambda scores: _answered(scores) * scores.steps, _answered),
    ),
)


def best_variant_table(runs: Sequence[Run]) -> str | None:
    """ShapeWorld Table 1: per solver and configs, the run whose prompt variant scored best (a ``*``
    marks a step-limiting variant, as the paper marks models that did better with it)."""
    groups: dict[tuple[str, tuple[str, ...]], list[Run]] = {}
    for run in runs:
        if run.summary.metrics.accuracy is not None:
            groups.setdefault((run.summary.solver, tuple(run.summary.dataset.configs)), []).append(run)
    rows = []
    for (solver, configs), group in groups.items():
        best = max(group, key=lambda run: run.summary.metrics.accuracy)
        metrics, variant = best.summary.metrics, best.summary.options.get("variant", "basic")
        compared = ", ".join(sorted({str(run.summary.options.get("variant", "basic")) for run in group}))
        rows.append(
            [
                solver + ("*" if variant != "basic" else ""),
                ", ".join(configs),
                variant,
                compared,
                _cell(metrics.accuracy_false),
                _cell(metrics.accuracy_true),
                _cell(metrics.accuracy),
                _cell(metrics.mean_steps),
                metrics.error_total,
            ]
        )
    if not rows:
        return None
    headers = [
        "model",
        "configs",
        "best variant",
        "variants compared",
        "Acc. (F)",
        "Acc. (T)",
        "Acc.",
        "Avg. Steps",
        "Err.",
    ]
    return markdown_table(headers, rows)


def _cell(value: object) -> object:
    return "–" if value is None else value


VIEW = View(
    "ShapeWorld (CausalLink)",
    (
        SlicePlot(
            "by_num_variables", "accuracy", "ShapeWorld accuracy by number of variables", "variables", "accuracy"
        ),
        SlicePlot(
            "by_structure",
            "accuracy",
            "ShapeWorld accuracy by structure, 95% interval over setups (Fig. 2)",
            "causal structure",
            "accuracy",
            error="accuracy_se",
        ),
        SlicePlot(
            "by_num_variables_all_moving",
            "accuracy",
            "ShapeWorld all-moving accuracy by variables (Fig. 3)",
            "variables (every shape moving at the start)",
            "accuracy",
        ),
        MappingBars(
            "failure_pattern_shares", "ShapeWorld failure patterns, share of wrong (Table 2)", "share of wrong answers"
        ),
    ),
    (RunTable("Best prompt variant per model (Table 1)", best_variant_table, "No run has an accuracy to compare."),),
)

TASK = Task(
    name="shapeworld",
    help="interactive ShapeWorld (CausalLink) episodes: a model or agent intervenes on shapes to answer a causal "
    "question",
    dataset="shapeworld",
    configs=("core", "advanced"),
    default_configs=("core",),
    items=items,
    solve=solve,
    score=score,
    summarize=summarize,
    item_scores=item_scores,
    generation=EpisodePlay,
    scores=EpisodeScores,
    metrics=ShapeWorldMetrics,
    roles=(RoleSpec("model", "the model that plays the episodes"),),
    agents=tuple(sorted(AGENTS)),
    options=ShapeWorldOptions,
    multiple_configs=True,
    estimates=ESTIMATES,
    view=VIEW,
)
