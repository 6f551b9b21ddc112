"""Building the ShapeWorld dataset from a seed: the build options, the three configs, the findings and the
card's tables.

:mod:`causal_datasets.builders.shapeworld` declares the builder (configs, releases, options) and calls these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from pydantic import BaseModel, Field, field_validator

from causal_datasets.builder import BuildContext, BuildOutcome, BuiltRecords
from causal_datasets.shapeworld.answer_prompts import answer_prompt_rows
from causal_datasets.shapeworld.generate import ADVANCED_SIZES, GRAPHS_PER_SIZE, advanced_tasks, check_sizes, core_tasks
from causal_datasets.shapeworld.quality import graph_findings
from causal_datasets.shapeworld.records import ShapeWorldTask
from causal_datasets.shapeworld.statistics import composition_table, graph_table


class ShapeWorldBuildOptions(BaseModel):
    sizes: list[int] = Field(
        default=list(ADVANCED_SIZES), description="numbers of variables of the advanced set, 2 to 8"
    )
    graphs_per_size: int = Field(
        default=GRAPHS_PER_SIZE, ge=1, le=10_000, description="random graphs per size in the advanced set"
    )

    @field_validator("sizes")
    @classmethod
    def _sizes(cls, sizes: list[int]) -> list[int]:
        check_sizes(sizes, 1)
        return sizes


def build(context: BuildContext) -> BuildOutcome:
    """The ``core`` and ``advanced`` episodes of the seed and their ``prompts`` rows."""
    options = context.options if isinstance(context.options, ShapeWorldBuildOptions) else ShapeWorldBuildOptions()
    tasks = {
        "core": core_tasks(context.seed),
        "advanced": advanced_tasks(context.seed, options.sizes, options.graphs_per_size, context.num_proc),
    }
    records = {config: {"test": episodes} for config, episodes in tasks.items()}
    return BuildOutcome(
        records=records | {"prompts": {"test": answer_prompt_rows(tasks)}},
        findings=graph_findings("advanced", tasks["advanced"]),
    )


def card_context(records: BuiltRecords) -> dict[str, str]:
    """The card's composition tables of both configs and the advanced set's graphs (the builder declares the
    configs' row type)."""
    core = cast(Sequence[ShapeWorldTask], records["core"]["test"])
    advanced = cast(Sequence[ShapeWorldTask], records["advanced"]["test"])
    return {
        "core_composition": composition_table(core),
        "advanced_composition": composition_table(advanced),
        "advanced_graphs": graph_table(advanced),
    }
