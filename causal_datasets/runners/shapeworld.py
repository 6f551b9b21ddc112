"""``causal-datasets eval shapeworld``: ShapeWorld (CausalLink) episodes played by a chat model or a reference agent.

Models and agents go through the same episode loop (:func:`causal_datasets.shapeworld.episode.run_episode`);
an episode the model server could not finish (``llm_error``) is a failed item, played again by ``--resume``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.records.shapeworld import ShapeWorldTask
from causal_datasets.runners.records import ShapeWorldMetrics, Slices
from causal_datasets.runners.task import Estimates, Item, Outcome, RoleSpec, Task, TaskContext
from causal_datasets.shapeworld.agents import AGENTS
from causal_datasets.shapeworld.chat import ChatPolicy
from causal_datasets.shapeworld.entities import THEMES, ThemeName
from causal_datasets.shapeworld.episode import run_episode
from causal_datasets.shapeworld.prompts import Variant
from causal_datasets.shapeworld.scoring import score_episodes
from causal_datasets.uncertainty import Mean, ratio


class ShapeWorldOptions(BaseModel):
    variant: Variant = Field(default="basic", description="prompt variant")
    entities: ThemeName = Field(default="shapes", description="what the world's entities are called (the graphs stay the same)")
    system_role: bool = Field(default=True, description="send the rules as a system message, not in the first user message (turn off for models without a system role)")
    agent_seed: int = Field(default=0, ge=0, description="seed of the random agent")


def items(context: TaskContext) -> list[Item]:
    return [Item(row.id, config, row) for config in context.configs for row in context.load(config).records]


def solve(item: Item, context: TaskContext) -> Outcome:
    task: ShapeWorldTask = item.row
    options: ShapeWorldOptions = context.options
    agent = context.settings.agent
    theme = THEMES[options.entities]
    if agent is not None:
        policy, name = AGENTS[agent](task, options.agent_seed, theme), f"agent:{agent}"
    else:
        client = context.clients["model"]
        policy, name = ChatPolicy(client), f"model:{client.config.model}"
    result = run_episode(task, policy, options.variant, name, system_role=options.system_role, theme=theme)
    result = result.model_dump(mode="json")
    failure = f"llm_error: {result['error_detail']}" if result["error"] == "llm_error" else None
    return Outcome(result, failure)


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[ShapeWorldMetrics, Slices]:
    scores = score_episodes(results)
    slices = {name: scores.pop(name) for name in ("by_structure", "by_num_variables", "by_num_variables_all_moving")}
    return ShapeWorldMetrics(**scores), slices


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Right (1) or wrong (0): the episode's mean over episodes is the run's ``accuracy``."""
    return {"accuracy": float(result.get("prediction") == result["gold"])}


def groups(item: Item, context: TaskContext) -> dict[str, str | None]:
    """The slice entries of an episode (the all-moving slice only holds episodes with every shape moving)."""
    task: ShapeWorldTask = item.row
    size = str(task.num_variables)
    return {"by_structure": task.structure, "by_num_variables": size,
            "by_num_variables_all_moving": size if task.all_moving else None}


def _right_on(gold: str) -> Callable[[Mapping[str, Any]], float | None]:
    """Right (1) or wrong (0) on the episodes whose answer is ``gold``; None on the others."""
    return lambda result: float(result.get("prediction") == gold) if result["gold"] == gold else None


def _answered(result: Mapping[str, Any]) -> float:
    return float(bool(result.get("prediction")))


#: episodes of one initial setup share their graph and start: the paper's error bars vary over setups
ESTIMATES = Estimates(
    unit="initial setup",
    cluster=lambda item: item.row.setup,
    groups=groups,
    estimators=(
        Mean("accuracy_true", _right_on("yes")),
        Mean("accuracy_false", _right_on("no")),
        ratio("mean_steps", lambda result: _answered(result) * result.get("steps", 0), _answered),
    ),
)


TASK = Task(
    name="shapeworld",
    help="interactive ShapeWorld (CausalLink) episodes: a model or agent intervenes on shapes to answer a causal question",
    dataset="shapeworld",
    configs=("core", "advanced"),
    default_configs=("core",),
    items=items,
    solve=solve,
    summarize=summarize,
    item_scores=item_scores,
    roles=(RoleSpec("model", "the model that plays the episodes"),),
    agents=tuple(sorted(AGENTS)),
    options=ShapeWorldOptions,
    multiple_configs=True,
    estimates=ESTIMATES,
)
