"""Rows of the ``shapeworld`` dataset: one interactive CausalLink episode each.

A row holds everything needed to replay its episode without the generator: the graph over node
ids, the shape naming each node, the initially moving nodes, the question (cause, effect), the
ground-truth answer, the step cap and where the graph came from (seed, graph id). The ``prompts``
config holds, per episode and prompt variant, the request for the answer after an experiment
(:class:`ShapeWorldPromptRow`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from causal_datasets.records.base import Record
from causal_datasets.records.prompts import PromptRow

Structure = Literal["direct", "mediation", "confounder", "confounder_with_edge", "random"]
#: the prompt variants of the protocol (:mod:`causal_datasets.shapeworld.prompts`)
Variant = Literal["basic", "step_limit", "cot_step_limit", "instructed_cot"]
Shape = Literal["circle", "square", "triangle", "rectangle", "hexagon", "pentagon", "octagon", "ellipse"]


class NodeEdge(Record):
    """A directed edge between node ids (``shapes[source]`` moving makes ``shapes[target]`` move)."""

    source: int = Field(description="Node id of the cause (an index into `shapes`).")
    target: int = Field(description="Node id of the effect (an index into `shapes`).")


class ShapeWorldTask(Record):
    """One question "does the <cause> moving cause the <effect> to move?" in one initial setup."""

    id: str = Field(
        description="Episode id: `<graph_id>-s<setup>-<cause><effect>` (core) or `<graph_id>-p<pair>` (advanced)."
    )
    structure: Structure = Field(
        description="Causal structure: the four core graphs (`direct` 0→1, `mediation` 0→1→2, `confounder` 1→0, 1→2, "
        "`confounder_with_edge` with 0→2 as well) or `random` (advanced)."
    )
    num_variables: int = Field(description="Number of shapes n.")
    graph_id: str = Field(description="The graph the episode uses; six advanced episodes share one graph.")
    shapes: list[Shape] = Field(description="Shape that names node 0, 1, … of the graph.")
    edges: list[NodeEdge] = Field(description="The hidden causal graph over node ids.")
    initially_moving: list[int] = Field(description="Node ids moving at the start (closed under descendants).")
    cause: int = Field(description="Node id of the cause in the question.")
    effect: int = Field(description="Node id of the effect in the question.")
    question: str = Field(description="The question as the model sees it.")
    answer: Literal["yes", "no"] = Field(
        description="Ground truth: `yes` iff the graph has a directed path from cause to effect."
    )
    step_limit: int = Field(
        description="Action cap 2n; an episode still interacting after it fails with too many attempts."
    )
    seed: int = Field(description="Generation seed; with `graph_id` it regenerates the graph and the shape names.")

    @property
    def setup(self) -> str:
        """The initial setup, ``<graph_id>:<moving node ids>``: what the paper's error bars vary over."""
        return f"{self.graph_id}:{','.join(map(str, self.initially_moving))}"

    @property
    def all_moving(self) -> bool:
        return len(self.initially_moving) == self.num_variables


class ShapeWorldPromptRow(PromptRow):
    """An episode's request for the answer, after the ``strategy`` agent's experiment; ``reference`` is
    the reply it asks for (``{"answer": "yes"}``) and ``answer`` the label ``shapeworld_answer_reward`` reads."""

    task_id: str = Field(description="The episode's `id` in its config.")
    config: Literal["core", "advanced"] = Field(description="The config the episode comes from (slice).")
    variant: Variant = Field(
        description="Prompt variant, as `eval shapeworld --variant`: `basic`, `step_limit`, `cot_step_limit` "
        "(think step by step before the JSON) or `instructed_cot` (the experiment procedure spelled out, too)."
    )
    structure: Structure = Field(description="Causal structure of the episode (slice).")
    num_variables: int = Field(description="Number of shapes (slice).")
    steps: int = Field(description="Actions of the experiment the conversation shows, 1 to n + 1 (slice).")
    answer: Literal["yes", "no"] = Field(
        description="Ground truth: `yes` iff the graph has a directed path from cause to effect."
    )
