"""``causal-datasets eval shapeworld``: ShapeWorld (CausalLink) episodes played by a chat model or a reference agent.

Models and agents go through the same episode loop (:func:`causal_datasets.shapeworld.episode.play_episode`):
the played episode is the item's generation, scored afterwards by
:func:`~causal_datasets.shapeworld.episode.score_play`; an episode the model server could not finish
(``llm_error``) is a failed item, played again by ``--resume``. The summary is in
:mod:`~causal_datasets.shapeworld.summary`, the report's view in :mod:`~causal_datasets.shapeworld.view`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from causal_datasets.runners.task import CallFailed, Estimates, Item, RoleSpec, Task, TaskContext, Transcript
from causal_datasets.shapeworld.agents import AGENTS
from causal_datasets.shapeworld.chat import ChatPolicy
from causal_datasets.shapeworld.entities import THEMES, Theme, ThemeName
from causal_datasets.shapeworld.episode import EpisodePlay, EpisodeScores, Policy, play_episode, score_play
from causal_datasets.shapeworld.records import ShapeWorldTask, Variant
from causal_datasets.shapeworld.summary import ShapeWorldMetrics, summarize
from causal_datasets.shapeworld.theme_file import ThemeSpec, read_theme_file
from causal_datasets.shapeworld.view import VIEW
from causal_datasets.uncertainty import Mean, ratio


class ShapeWorldOptions(BaseModel):
    variant: Variant = Field(default="basic", description="prompt variant")
    entities: ThemeName = Field(
        default="shapes", description="what the world's entities are called (the graphs stay the same)"
    )
    entities_file: ThemeSpec | None = Field(
        default=None,
        description="a JSON file naming the entities instead (name, noun, plural, 8 entities; see "
        "docs/benchmarks/shapeworld.md); replaces --entities, and the run records the theme itself",
    )

    @field_validator("entities_file", mode="before")
    @classmethod
    def _read(cls, value: object) -> object:
        """A path (the flag's text) is read here; a recorded run's options hold the theme already."""
        return read_theme_file(Path(value)) if isinstance(value, str | Path) else value

    def theme(self) -> Theme:
        """The theme the episodes are played in: the file's, else the built-in one named."""
        return THEMES[self.entities] if self.entities_file is None else self.entities_file.theme()

    system_role: bool = Field(
        default=True,
        description="send the rules as a system message, not in the first user "
        "message (turn off for models without a system role)",
    )
    agent_seed: int = Field(default=0, ge=0, description="seed of the random agent")


def items(context: TaskContext) -> list[Item]:
    return [Item(row.id, config, row) for config in context.configs for row in context.rows(config, ShapeWorldTask)]


def solve(item: Item, context: TaskContext) -> EpisodePlay:
    task: ShapeWorldTask = item.row
    options: ShapeWorldOptions = context.options
    agent = context.settings.agent
    theme = options.theme()
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


TASK = Task(
    name="shapeworld",
    version=1,
    help="interactive ShapeWorld (CausalLink) episodes: a model or agent intervenes on shapes to answer a causal "
    "question",
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
