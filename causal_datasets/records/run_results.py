"""Rows of an exported results dataset (``causal-datasets export-runs``): its ``results``, ``details`` and ``runs``.

A run's ``summary.json`` becomes one ``runs`` row and one ``results`` row per headline number (the numbers its
summary gives an interval); each line of its ``results.jsonl`` becomes one ``details`` row. Columns are typed for
the dataset viewer: no mapping columns (a benchmark's own item fields are one JSON string, ``fields_json``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from causal_datasets.llm.chat import CacheReadTokens, CompletionTokens, FinishReason, PromptTokens, ReasoningTokens
from causal_datasets.records.base import Record
from causal_datasets.records.prompts import ChatMessage
from causal_datasets.uncertainty.intervals import (
    ClusterCount,
    ClusterUnit,
    DetectableDifference,
    Estimate,
    IntervalMethod,
    ItemCount,
    LowerEnd,
    StandardError,
    UpperEnd,
)

#: the columns the three kinds of rows share, described once
RunId = Annotated[
    str,
    Field(description="The run's id: the first 16 hex digits of the sha256 of its exported summary and result lines."),
]
Benchmark = Annotated[str, Field(description="The benchmark the run evaluated.")]
Solver = Annotated[str, Field(description="Who answered: `model:<name>`, `agent:<name>` or `published`.")]
AnsweringModel = Annotated[
    str | None, Field(description="The answering model (null for an agent or published outputs).")
]
Dataset = Annotated[str, Field(description="The benchmark dataset the items came from.")]
PackageVersion = Annotated[str, Field(description="The causal-datasets version that made the run.")]


class RoleModel(Record):
    """The model that served one role of a run."""

    role: str = Field(description="The role: `model` (answers), `judge` or `corrector`.")
    name: str = Field(description="The model's name as the run was given it.")


class RunResult(Record):
    """One headline number of one run with its standard error and 95% interval, beside the run's settings."""

    run_id: RunId
    benchmark: str = Field(description="The benchmark the run evaluated (`causal-datasets eval <benchmark>`).")
    solver: str = Field(
        description=("Who answered: `model:<name>`, `agent:<name>` or `published` (released outputs judged).")
    )
    model: AnsweringModel
    models: list[RoleModel] = Field(description="The model of every role the run used.")
    metric: str = Field(description="The number's name in the run's summary (a dotted path inside a mapping).")
    metric_title: str = Field(description="The number as the run's report heads it.")
    estimate: Estimate
    se: StandardError
    ci_low: LowerEnd
    ci_high: UpperEnd
    method: IntervalMethod
    cluster_unit: ClusterUnit
    clusters: ClusterCount
    n: ItemCount
    mdd: DetectableDifference
    status: str = Field(description="The run's status: `complete`, `incomplete`, `failed`, `interrupted` or `empty`.")
    items_scored: int = Field(description="Items the run scored (its numbers cover these only).")
    items_selected: int = Field(description="Items the run was asked for.")
    dataset: Dataset
    dataset_version: str = Field(description="Its version (the rows; a Hub tag `v<version>` when pushed).")
    dataset_seed: int = Field(description="The seed its generated configs were built with.")
    dataset_source: str = Field(description="`ORG/NAME@revision` when read from the Hub, `local build` otherwise.")
    configs: list[str] = Field(description="The dataset configs the run read.")
    split: str = Field(description="The dataset split the run read.")
    options_json: str = Field(description="The run's task options as a JSON object (secrets removed).")
    package_version: PackageVersion


class Score(Record):
    """One per-item headline number."""

    name: str = Field(description="The number, as the run's summary averages it (e.g. `accuracy`).")
    value: float | None = Field(description="The item's value (1/0 for right/wrong).")


class SliceEntries(Record):
    """The entries of one slice that an item belongs to."""

    slice: str = Field(description="The slice, e.g. `by_structure`.")
    entries: list[str] = Field(description="The item's entries in it.")


class Call(Record):
    """One model call of an item, in the order made."""

    role: str = Field(description="Who asked: `model`, `judge` or `corrector`.")
    model: str = Field(description="The model that answered, as the server names it.")
    reply: str | None = Field(description="The reply's text as sent (null: the call failed).")
    reasoning: str | None = Field(description="The reply's reasoning text, apart from the reply.")
    finish_reason: FinishReason
    prompt_tokens: PromptTokens
    completion_tokens: CompletionTokens
    reasoning_tokens: ReasoningTokens
    cache_read_tokens: CacheReadTokens
    error: str | None = Field(description="`<category>: <detail>` of a call that failed.")


class ItemDetail(Record):
    """One item of one run: its prompt and reply (or the whole transcript), its scores and how it ended."""

    run_id: RunId
    benchmark: Benchmark
    solver: Solver
    model: AnsweringModel
    config: str = Field(description="The dataset config the item comes from.")
    item_id: str = Field(description="The dataset row's id.")
    status: Literal["scored", "failed"] = Field(
        description=(
            "`failed`: a model or transport error ended the item (left out of every number); `scored` otherwise."
        )
    )
    failure: str | None = Field(
        description=(
            "`<role> <category>: <detail>` of what ended a failed item: the role whose model call failed (`model`, "
            "`judge`, `corrector`; `task` for a crash) and the LLM client's category (runs before summary format 4: "
            "`<category>: <message>`)."
        )
    )
    scores: list[Score] = Field(description="The item's headline numbers (empty for a failed item).")
    prompt: str | None = Field(description="The first user turn of the item's conversation.")
    reply: str | None = Field(description="The model's last reply (an agent's: the last assistant turn).")
    reasoning: str | None = Field(description="The reasoning text of that reply (null when the model gave none).")
    transcript: list[ChatMessage] = Field(
        description=(
            "The item's conversation as the benchmark records it: the request, or every turn of an interactive episode."
        )
    )
    transcript_field: str | None = Field(
        description=(
            "The result field the transcript was recorded in (a dotted path, e.g. `generation.transcript`; "
            "null when it was read off the model's calls)."
        )
    )
    calls: list[Call] = Field(description="Every model call of the item, in order (empty for a reference agent).")
    cluster: str | None = Field(description="The unit the item shares with others (what intervals cluster by).")
    groups: list[SliceEntries] | None = Field(description="The slice entries the item belongs to.")
    fields_json: str = Field(
        description=("The benchmark's own result fields of the item as a JSON object: its `generation` and `scores`.")
    )


class ExportedRun(Record):
    """One run: who answered what, how it ended, and its whole summary."""

    run_id: RunId
    added_in: str = Field(description="The version of this dataset that added the run.")
    benchmark: Benchmark
    solver: Solver
    model: AnsweringModel
    status: str = Field(description="`complete`, `incomplete`, `failed`, `interrupted` or `empty`.")
    dataset: Dataset
    dataset_version: str = Field(description="Its version.")
    items_scored: int = Field(description="Items the run scored.")
    items_failed: int = Field(description="Items a model or transport error ended.")
    package_version: PackageVersion
    summary_json: str = Field(
        description=("The run's `summary.json` (secrets and local paths removed): metrics, slices, intervals, usage.")
    )
