"""Typed run records: one ``ItemResult`` per line of ``results.jsonl`` and the ``RunSummary`` of ``summary.json``.

Shared fields are named once here, whatever the benchmark; the benchmark's own numbers are a
typed sub-model (``metrics``, discriminated by ``benchmark``) and its breakdowns are ``slices``
(``{"by_<field>": {value: {metric: number}}}``). ``causal-datasets schema run-summary`` and
``schema item-result`` print the JSON Schema of both. ``SUMMARY_FORMAT`` is raised whenever the
layout changes; a reader meets an older file with a clear message naming the version that wrote it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: the layout of summary.json written by this version (1: the untyped summaries of 0.1)
SUMMARY_FORMAT = 2

Role = Literal["model", "judge", "corrector"]
ItemStatus = Literal["scored", "failed"]
RunStatus = Literal["complete", "incomplete", "failed", "interrupted", "empty"]

Number = int | float | None
#: ``{"by_<field>": {value: {metric: number or nested counts}}}``
Slices = dict[str, dict[str, dict[str, Any]]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ItemResult(BaseModel):
    """One line of ``results.jsonl``: the shared fields, then the benchmark's own (transcript, scores...).

    ``status`` is ``failed`` when a model or transport error ended the item (``failure`` says which):
    it is left out of the metrics and run again by ``--resume``; ``scored`` items never are.
    """

    model_config = ConfigDict(extra="allow")

    id: str = Field(description="the dataset row's id")
    config: str = Field(description="the dataset config the row comes from")
    status: ItemStatus
    failure: str | None = Field(default=None, description="'<category>: <message>' of the error that ended a failed item")


class DatasetRef(_Strict):
    name: str
    version: str
    seed: int
    read_from: str = Field(description="the local folder or 'ORG/NAME@revision' the rows were read from")
    configs: list[str]
    split: str


class ItemCounts(_Strict):
    selected: int = Field(description="items the run was asked for (after --limit and filters)")
    scored: int
    failed: int = Field(description="items ended by a model or transport error (run again by --resume)")
    missing: int = Field(description="selected items with no result yet (a run stopped before reaching them)")


class Usage(_Strict):
    """Calls, tokens and cost of one role (or all roles together), summed over every invocation of the run."""

    calls: int = 0
    http_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        counts = {name: getattr(self, name) + getattr(other, name) for name in USAGE_COUNTS}
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(**counts, cost_usd=round(sum(costs), 6) if costs else None)


USAGE_COUNTS = ("calls", "http_requests", "prompt_tokens", "completion_tokens", "cached_prompt_tokens",
                "cached_completion_tokens")


# --- the benchmarks' own metrics ------------------------------------------------------------------


class ShapeWorldMetrics(_Strict):
    benchmark: Literal["shapeworld"] = "shapeworld"
    episodes: int = Field(title="episodes")
    accuracy: float | None = Field(title="accuracy", description="right answers / episodes (an episode without one is wrong)")
    accuracy_true: float | None = Field(title="accuracy (yes cases)")
    accuracy_false: float | None = Field(title="accuracy (no cases)")
    true_cases: int = Field(title="yes cases")
    false_cases: int = Field(title="no cases")
    answered: int = Field(title="answered")
    predicted_yes: int = Field(title="answered yes")
    mean_steps: float | None = Field(title="mean steps", description="actions before a final answer, over answered episodes")
    error_total: int = Field(title="errors")
    errors: dict[str, int] = Field(title="errors by mode")
    failure_patterns: dict[str, int] = Field(title="failure patterns")


class CausaLabMetrics(_Strict):
    benchmark: Literal["causalab"] = "causalab"
    count: int = Field(title="episodes")
    task_accuracy: float | None = Field(default=None, title="task accuracy")
    edge_precision: float | None = Field(default=None, title="edge precision")
    edge_recall: float | None = Field(default=None, title="edge recall")
    edge_f1: float | None = Field(default=None, title="edge F1")
    shd: float | None = Field(default=None, title="SHD")
    freq_edge_f1: float | None = Field(default=None, title="frequency-edge F1")
    coefficient_f1: float | None = Field(default=None, title="coefficient F1")
    root_f1: float | None = Field(default=None, title="root-node F1")
    formula_hit: float | None = Field(default=None, title="formula hit")
    budget_used: float | None = Field(default=None, title="budget used")
    invalid_steps: float | None = Field(default=None, title="invalid steps per episode")
    outcomes: dict[str, int] = Field(default_factory=dict, title="outcomes")


class CladderMetrics(_Strict):
    benchmark: Literal["cladder_pairs"] = "cladder_pairs"
    n: int = Field(title="questions")
    accuracy: float = Field(title="equivalence accuracy", description="share of answers the verifier finds equivalent")
    string_match: float = Field(title="string match", description="share equal to the reference after normalization")
    errors: dict[str, int] = Field(title="answers by error category")
    methods: dict[str, int] = Field(title="verdicts by method")
    proof_lengths: dict[str, int] = Field(title="proof lengths")


class RecastMetrics(_Strict):
    benchmark: Literal["recast"] = "recast"
    samples: int = Field(title="samples")
    scored_share: float = Field(title="scored share", description="samples with a predicted graph / samples")
    corrected: int = Field(title="answers fixed by the corrector")
    judge_errors: int = Field(title="samples with a judge error")
    generation: dict[str, int] = Field(title="generation outcomes")
    deterministic: dict[str, dict[str, float | None]] = Field(title="name-based scores by node matching")
    judge: dict[str, float | int | None] | None = Field(default=None, title="judge scores (mean, SD, count)")


class CoBeMetrics(_Strict):
    benchmark: Literal["cobe"] = "cobe"
    n: int = Field(title="responses")
    accuracy: float | None = Field(title="accuracy", description="responses passing every criterion / responses")
    correct: int = Field(title="correct")
    wrong: int = Field(title="wrong")
    unknown: int = Field(title="unknown", description="responses with a criterion the judge could not decide")
    failure_rate: dict[str, float | None] = Field(title="failure rate per criterion")
    criteria: dict[str, dict[str, float | int | None]] = Field(title="criterion counts")
    errors: dict[str, dict[str, int]] = Field(title="errors (items, criteria)")
    agreement: dict[str, float | int | None] | None = Field(default=None, title="agreement with the published verdicts")


BenchmarkMetrics = Annotated[
    ShapeWorldMetrics | CausaLabMetrics | CladderMetrics | RecastMetrics | CoBeMetrics, Field(discriminator="benchmark")
]


class RunSummary(_Strict):
    """``summary.json``: what was run, on what, by whom, how many items ended how, usage, metrics and slices."""

    format: Literal[2] = SUMMARY_FORMAT
    benchmark: str
    status: RunStatus = Field(description=(
        "complete: every selected item scored; incomplete: some failed or are missing (--resume goes on); "
        "failed: none scored; interrupted: stopped by Ctrl-C; empty: nothing was selected"))
    package_version: str
    dataset: DatasetRef
    solver: str = Field(description="who answered: 'model:<name>', 'agent:<name>' or 'published' (judging released outputs)")
    models: dict[Role, str] = Field(description="model name per role used")
    options: dict[str, Any] = Field(description="the task's own options as given")
    items: ItemCounts
    failures: dict[str, int] = Field(description="failed items by error category")
    invocations: int = Field(description="how many times the run was started (1 + resumes)")
    usage: dict[Role, Usage] = Field(description="per role, summed over invocations")
    usage_total: Usage = Field(description="all roles (a client serving two roles counted once)")
    metrics: BenchmarkMetrics
    slices: Slices = Field(default_factory=dict)

    @model_validator(mode="after")
    def _benchmark_matches_metrics(self) -> RunSummary:
        if self.metrics.benchmark != self.benchmark:
            raise ValueError(f"metrics of {self.metrics.benchmark!r} in a summary of {self.benchmark!r}")
        return self


SCHEMAS: dict[str, type[BaseModel]] = {"run-summary": RunSummary, "item-result": ItemResult}
