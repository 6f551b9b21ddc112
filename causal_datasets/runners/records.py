"""Typed run records shared by every benchmark: one ``ItemResult`` per line of ``results.jsonl`` and the
``RunSummary`` of ``summary.json``.

Shared fields are named once here, whatever the benchmark. What differs per benchmark is typed by its
task (:class:`causal_datasets.runners.task.Task`): an item's ``generation`` (what solving it produced
beyond its model calls) and ``scores`` (what scoring that gave), and the summary's ``metrics`` (whose
count field is ``count`` in every benchmark); breakdowns are ``slices``
(``{"by_<field>": {value: {metric: number}}}``). ``causal-datasets schema run-summary|item-result
BENCHMARK`` prints the JSON Schema of both. ``SUMMARY_FORMAT`` is raised whenever the layout changes;
:mod:`causal_datasets.report.runs` still reads the older layouts it knows and names the version of
any other.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeGuard, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StringConstraints, model_validator

from causal_datasets.errors import LLM_CATEGORIES, LLMCategory
from causal_datasets.llm.chat import CacheReadTokens, CompletionTokens, FinishReason, PromptTokens, ReasoningTokens
from causal_datasets.uncertainty.intervals import ALPHA, CONFIDENCE, POWER, RESAMPLES, SEED, Interval

#: the layout of summary.json written by this version (1: the untyped summaries of 0.1; 2: without ``intervals``
#: and ``selection``; 3: one failure string per item, a count field named per benchmark, calls without their
#: requests, untyped lines)
SUMMARY_FORMAT: Literal[4] = 4

#: what a role's name may be: a lower-case word, so its flags read ``--<role>-model``
ROLE_NAME = r"^[a-z][a-z0-9]*$"
#: a model role, by the name its task declares (:class:`causal_datasets.runners.task.RoleSpec`): ``model``,
#: ``judge``, ``corrector``, ``critic`` ... (the records check the names against the task's roles: :func:`declared`)
Role = Annotated[str, StringConstraints(pattern=ROLE_NAME)]
#: who a failure is charged to: a model role, or the task's own code (``crash``)
TASK_ROLE = "task"
FailureRole = Role
ItemStatus = Literal["scored", "failed"]
RunStatus = Literal["complete", "incomplete", "failed", "interrupted", "empty"]

#: a failure's category: the LLM client's error categories, or ``crash`` (an exception in the task's code)
CRASH: Literal["crash"] = "crash"
FailureCategory = LLMCategory | Literal["crash"]


def is_llm_category(category: str | None) -> TypeGuard[LLMCategory]:
    """Whether ``category`` (a recorded call's) is one of the LLM client's."""
    return category in LLM_CATEGORIES


#: ``{"by_<field>": {value: {metric: number or nested counts}}}``
Slices = dict[str, dict[str, dict[str, Any]]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelCall(_Strict):
    """One model call an item made, in the order made: the request (messages and the settings sent with
    them), who asked, the reply and its reasoning kept apart, and the tokens — or the error."""

    role: Role
    model: str = Field(description="the model that answered, as the server names it (the one asked, when it failed)")
    messages: list[dict[str, JsonValue]] = Field(
        default_factory=list,
        description=(
            "the request's messages as the task sent them — after those of the call it continues, if it does "
            "(empty in runs written before requests were kept)"
        ),
    )
    continues: int | None = Field(
        default=None,
        ge=1,
        description=(
            "the request continues the conversation of the call of the same role this many places earlier in "
            "`calls`: that call's messages and its reply come first, then `messages` (calls.full_messages)"
        ),
    )
    settings: dict[str, JsonValue] = Field(
        default_factory=dict,
        description=(
            "the rest of the request: sampling, token limit, seed, reasoning effort, extra body fields, prefill "
            "(secrets redacted); in results.jsonl only in runs written before `settings_id`"
        ),
    )
    settings_id: str | None = Field(
        default=None,
        description=(
            "the id of `settings` (calls.settings_id): results.jsonl keeps the id and the run folder's "
            "settings.json the settings, once per run (None in runs written before)"
        ),
    )
    reply: str | None = Field(default=None, description="the reply's text as sent (None: the call failed)")
    reasoning: str | None = Field(
        default=None,
        description=(
            "the reply's reasoning: the server's reasoning_content/reasoning field "
            "and the <think> sections of the reply"
        ),
    )
    finish_reason: FinishReason = None
    prompt_tokens: PromptTokens = 0
    completion_tokens: CompletionTokens = 0
    reasoning_tokens: ReasoningTokens = 0
    cache_read_tokens: CacheReadTokens = 0
    category: str | None = Field(default=None, description="the LLM client's category of a call that failed")
    error: str | None = Field(default=None, description="what went wrong in a call that failed")


class Failure(_Strict):
    """Why an item failed: the role whose model call failed (``task``: the task's own code) and the
    category (the LLM client's, or ``crash``). A failed item is left out of the metrics and run again
    by ``--resume``."""

    role: FailureRole
    category: FailureCategory = Field(
        description="timeout, retries_exhausted, request_rejected, config, llm_error, or crash"
    )
    detail: str

    @property
    def key(self) -> str:
        return f"{self.role} {self.category}"


class DeclaredRoles(BaseModel):
    """A record whose role names its task declares: ``roles`` (empty: any name, the records of no one task)
    is set on the task's own subclass (:func:`declared`); a record naming another role does not validate."""

    roles: ClassVar[frozenset[str]] = frozenset()

    def named_roles(self) -> set[str]:
        """The role names the record holds."""
        raise NotImplementedError

    @model_validator(mode="after")
    def _roles_declared(self) -> DeclaredRoles:
        undeclared = sorted(self.named_roles() - self.roles - {TASK_ROLE}) if self.roles else []
        if undeclared:
            raise ValueError(f"role {undeclared[0]!r} is not one the task declares ({', '.join(sorted(self.roles))})")
        return self


Declared = TypeVar("Declared", bound=DeclaredRoles)


@cache
def declared(model: type[Declared], roles: frozenset[str]) -> type[Declared]:
    """``model`` (a task's result or summary model) checking its role names against ``roles``."""
    return type(model.__name__, (model,), {"roles": roles, "__module__": model.__module__})


class Untyped(BaseModel):
    """Fields of a result line written before results were typed (read by ``report`` only)."""

    model_config = ConfigDict(extra="allow")


G = TypeVar("G", bound=BaseModel)
S = TypeVar("S", bound=BaseModel)


class ItemResult(_Strict, DeclaredRoles, Generic[G, S]):
    """One line of ``results.jsonl``: the shared fields, the item's model calls, then the benchmark's own
    ``generation`` and ``scores`` (typed by its task; ``causal-datasets schema item-result BENCHMARK``).

    ``status`` is ``failed`` when a model call the item needed failed or the task's code crashed
    (``failure`` says which): it has no scores, is left out of the metrics and is run again by
    ``--resume``; ``scored`` items never are. ``causal-datasets rescore`` recomputes ``scores`` from
    ``calls`` and ``generation`` alone.
    """

    id: str = Field(description="the dataset row's id")
    config: str = Field(description="the dataset config the row comes from")
    status: ItemStatus
    failure: Failure | None = None
    calls: list[ModelCall] = Field(
        default_factory=list, description=("every model call of the item, in order (empty for a reference agent)")
    )
    cluster: str | None = Field(default=None, description="the unit the item shares with others (its cluster)")
    groups: dict[str, list[str]] | None = Field(default=None, description="the slice entries the item belongs to")
    generation: G | None = Field(default=None, description="what solving the item produced beyond its calls")
    scores: S | None = Field(default=None, description="what scoring the item gave (None when it failed)")

    @model_validator(mode="after")
    def _status_matches(self) -> ItemResult[G, S]:
        if (self.status == "failed") != (self.failure is not None):
            raise ValueError("a failed item has a failure, a scored one none")
        if self.status == "scored" and self.scores is None:
            raise ValueError("a scored item has scores")
        return self

    def named_roles(self) -> set[str]:
        return {call.role for call in self.calls} | ({self.failure.role} if self.failure is not None else set())

    def value(self, name: str) -> Any:
        """A field of the scores, else of the generation (None when neither has it): what report plots read."""
        for part in (self.scores, self.generation):
            if part is not None and hasattr(part, name):
                return getattr(part, name)
        return None


class DatasetRef(_Strict):
    name: str
    version: str
    seed: int
    read_from: str = Field(description="the local folder or 'ORG/NAME@revision' the rows were read from")
    configs: list[str]
    split: str


class RunSelection(_Strict):
    """What the run was asked for beyond its dataset, configs, split, solver and options: ``--resume``
    continues exactly this selection, ``--extend`` may raise the limit (and add configs)."""

    limit: int | None = Field(description="--limit: only the first N items (None: every item)")
    models: dict[Role, dict[str, Any]] = Field(
        default_factory=dict,
        description="per role, the model settings that decide its replies (model, sampling, seed ...)",
    )


class ItemCounts(_Strict):
    selected: int = Field(description="items the run was asked for (after --limit and filters)")
    scored: int
    failed: int = Field(description="items ended by a failed model call or a crash (run again by --resume)")
    missing: int = Field(description="selected items with no result yet (a run stopped before reaching them)")


class Usage(_Strict):
    """Calls, tokens and cost of one role (or all roles together), summed over every invocation of the run.

    ``prompt_tokens`` and ``completion_tokens`` are those of calls sent to the server; of them,
    ``cache_read_tokens`` were read from the provider's prompt cache (billed at the cached-input price)
    and ``reasoning_tokens`` spent on reasoning. ``cached_*`` count replies served by the local
    response cache (not sent, not billed)."""

    calls: int = 0
    http_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = Field(default=0, description="of completion_tokens, spent on reasoning")
    cache_read_tokens: int = Field(default=0, description="of prompt_tokens, read from the provider's prompt cache")
    cached_prompt_tokens: int = Field(default=0, description="prompt tokens of replies the response cache served")
    cached_completion_tokens: int = Field(
        default=0, description="completion tokens of replies the response cache served"
    )
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        counts = {name: getattr(self, name) + getattr(other, name) for name in USAGE_COUNTS}
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(**counts, cost_usd=round(sum(costs), 6) if costs else None)


USAGE_COUNTS = (
    "calls",
    "http_requests",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "cache_read_tokens",
    "cached_prompt_tokens",
    "cached_completion_tokens",
)


class BenchmarkMetrics(_Strict):
    """The base of every benchmark's metrics model: which benchmark, and how many scored items they cover.

    A benchmark's model (declared by its task) fixes ``benchmark`` to its name and may retitle ``count``
    ("episodes", "questions" ...); the report shows every field by its title."""

    benchmark: str
    count: int = Field(title="items", description="scored items the metrics cover")


M = TypeVar("M", bound=BenchmarkMetrics)


class RunIntervals(_Strict):
    """Standard errors and 95% intervals of the summary's numbers (:mod:`causal_datasets.uncertainty`),
    with each interval's method, its unit and the smallest difference the run can detect."""

    confidence: float = CONFIDENCE
    alpha: float = ALPHA
    power: float = POWER
    bootstrap_resamples: int = RESAMPLES
    seed: int = SEED
    unit: str = Field(description="what the items of one cluster share ('item': nothing)")
    clusters: int = Field(description="distinct units among the scored items")
    metrics: dict[str, Interval] = Field(description="per number of `metrics` (inside a mapping: its dotted path)")
    slices: dict[str, dict[str, dict[str, Interval]]] = Field(
        default_factory=dict, description="per slice, entry and number (dotted paths inside an entry), as `slices`"
    )


class Rescored(_Strict):
    """Where the scores of a rescored run come from: the run whose transcripts were scored again."""

    source: str = Field(description="the run folder rescored")
    scored_before_by: str = Field(description="the causal-datasets version that wrote the source run's scores")
    generated_by: str = Field(description="the causal-datasets version that asked the models for the transcripts")
    options_before: dict[str, Any] = Field(description="the source run's options")
    task_version_before: int | str | None = Field(
        default=None, description="the task version that scored the source run (None: written before versions)"
    )
    judge_calls: int = Field(
        default=0, description="judge calls asked anew (the others were read from the transcripts)"
    )
    notes: list[str] = Field(default_factory=list, description="what the new scores cannot change about the old run")


class RunSummary(_Strict, DeclaredRoles, Generic[M]):
    """``summary.json``: what was run, on what, by whom, how many items ended how, usage, metrics, slices and
    their intervals."""

    format: Literal[4] = SUMMARY_FORMAT
    benchmark: str
    status: RunStatus = Field(
        description=(
            "complete: every selected item scored; incomplete: some failed or are missing (--resume goes on); "
            "failed: none scored; interrupted: stopped by Ctrl-C; empty: nothing was selected"
        )
    )
    package_version: str
    task_version: int | str | None = Field(
        default=None, description="the task's version (Task.version; None in runs written before tasks had one)"
    )
    dataset: DatasetRef
    solver: str = Field(
        description="who answered: 'model:<name>', 'agent:<name>' or 'published' (judging released outputs)"
    )
    models: dict[Role, str] = Field(description="model name per role used")
    options: dict[str, Any] = Field(description="the task's own options as given")
    selection: RunSelection | None = Field(
        default=None,
        description="the run's limit and model settings (None in format 2 summaries, written without them)",
    )
    items: ItemCounts
    failures: dict[FailureRole, dict[FailureCategory, int]] = Field(
        description="failed items by the role whose call failed (or 'task'), then by category"
    )
    invocations: int = Field(description="how many times the run was started (1 + resumes)")
    usage: dict[Role, Usage] = Field(description="per role, summed over invocations")
    usage_total: Usage = Field(description="all roles (a client serving two roles counted once)")
    rescored: Rescored | None = Field(
        default=None, description="set when the scores come from `causal-datasets rescore`"
    )
    metrics: M
    slices: Slices = Field(default_factory=dict)
    intervals: RunIntervals | None = Field(default=None, description="None in summaries of format 2 (no intervals)")

    def named_roles(self) -> set[str]:
        chosen = self.selection.models if self.selection is not None else {}
        return {*self.models, *self.usage, *self.failures, *chosen}

    @model_validator(mode="after")
    def _benchmark_matches_metrics(self) -> RunSummary[M]:
        if self.metrics.benchmark != self.benchmark:
            raise ValueError(f"metrics of {self.metrics.benchmark!r} in a summary of {self.benchmark!r}")
        return self


def failure_counts(failures: list[Failure]) -> dict[FailureRole, dict[FailureCategory, int]]:
    """``{role: {category: count}}`` of ``failures``, sorted: the summary's ``failures``."""
    counts: dict[FailureRole, dict[FailureCategory, int]] = {}
    for failure in failures:
        by_category = counts.setdefault(failure.role, {})
        by_category[failure.category] = by_category.get(failure.category, 0) + 1
    return {role: dict(sorted(counts[role].items())) for role in sorted(counts)}
