"""An evaluation task declared as data: which dataset and configs, which model roles and agents, how
one item is solved (generation) and scored, the types of what each step gives, and how scored items
become typed metrics, slices, a report section and inspect_ai tasks.

A benchmark declares one ``Task(...)`` and registers it under the entry-point group
``causal_datasets.tasks`` (:mod:`causal_datasets.registry`). Only ``name``, ``solve``, ``score`` and
``scores`` have no default (as inspect_ai's ``Task``, it carries a ``version``); the others default to
the dataset's configs, one item per row, and means of the numeric scores (:mod:`causal_datasets.runners.means`).
The engine (:mod:`causal_datasets.runners.engine`) runs every task the same way, and the command line
builds each task's options from the declaration (a role the task does not declare is not offered).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from pydantic import BaseModel

from causal_datasets.errors import RunConfigurationError, TaskRegistrationError
from causal_datasets.hub.location import DatasetLocation, LoadedConfig
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.options import ModelSpec
from causal_datasets.records.base import Record
from causal_datasets.registry import get_builder
from causal_datasets.runners.means import mean_metrics_model, mean_summary, numeric_scores
from causal_datasets.runners.records import (
    ROLE_NAME,
    TASK_ROLE,
    BenchmarkMetrics,
    ItemResult,
    ModelCall,
    Role,
    RunSummary,
    Slices,
    declared,
)
from causal_datasets.uncertainty import Estimator

if TYPE_CHECKING:
    from causal_datasets.views import View

G = TypeVar("G", bound=BaseModel)
S = TypeVar("S", bound=BaseModel)
M = TypeVar("M", bound=BenchmarkMetrics)
R = TypeVar("R", bound=Record)


#: items a run works on at once unless told otherwise (or limited by the model server's slots)
DEFAULT_CONCURRENCY = 4


class NoOptions(BaseModel):
    """A task without options of its own."""


class NoGeneration(BaseModel):
    """The generation of a task whose model calls say everything (single-turn prompts)."""


@dataclass(frozen=True)
class RoleSpec:
    """A model role a task uses. ``required``: the run cannot go without it (a reference agent aside);
    ``fallback``: the role whose client serves this one when it is not given; ``scoring``: the role is
    asked while scoring (a judge) — ``rescore`` serves its calls from the transcript and asks it anew
    only when it is given."""

    role: Role
    help: str
    required: bool = False
    fallback: Role | None = None
    scoring: bool = False

    def __post_init__(self) -> None:
        if not re.fullmatch(ROLE_NAME, self.role) or self.role == TASK_ROLE:
            raise TaskRegistrationError(
                f"role {self.role!r}: a role is one lower-case word (letters, digits), not {TASK_ROLE!r}"
            )

    @property
    def flag(self) -> str:
        """The command-line prefix of the role's options: ``--model``, ``--judge-model`` ..."""
        return "" if self.role == "model" else f"{self.role}-"


@dataclass(frozen=True)
class Item:
    """One unit of work: a dataset row (or rows) under an id, from one config."""

    id: str
    config: str
    row: Any


def every_row(context: TaskContext) -> list[Item]:
    """One item per row of each of the run's configs, the row's ``id`` as the item's."""
    return [
        Item(_row_id(row, config), config, row) for config in context.configs for row in context.load(config).records
    ]


def _row_id(row: Record, config: str) -> str:
    value = getattr(row, "id", None)
    if value is None:
        raise RunConfigurationError(
            f"{type(row).__name__} rows of config {config!r} have no id: the task must declare its items"
        )
    return str(value)


@dataclass(frozen=True)
class Transcript(Generic[G]):
    """Everything solving an item produced: its model calls (requests and replies, in order) and the
    task's generation record (what the calls alone do not say, e.g. an episode's actions)."""

    calls: tuple[ModelCall, ...]
    generation: G

    def replies(self, role: Role = "model") -> list[str]:
        """The texts of ``role``'s answered calls, in order."""
        return [call.reply for call in self.calls if call.role == role and call.reply is not None]


@dataclass(frozen=True)
class Scored(Generic[G, S]):
    """A scored item as ``summarize`` receives it: id, config, generation and scores, typed."""

    id: str
    config: str
    generation: G
    scores: S


class CallFailed(Exception):
    """Raised by a task's ``solve`` or ``score``: a model call the item needed failed (a transport failure,
    never a model's mistake). The failed call is in the transcript; the engine records its role and category."""


@dataclass(frozen=True)
class RunSettings:
    """Everything one run is asked for. ``out``: the run folder (``run_task`` needs one; None where
    another tool keeps the results, e.g. inspect_ai); ``configs`` empty: the task's defaults;
    ``options``: an instance of the task's options model (None: its defaults); ``resume``: continue the
    run in ``out`` exactly as it was asked for (:mod:`causal_datasets.runners.resume`); ``limit``: that many
    items, spread over the task's clusters (:mod:`causal_datasets.runners.selection`); ``extend``: continue
    it and add the configs or items these settings ask for beyond it; ``concurrency``:
    items run at once (None: :data:`DEFAULT_CONCURRENCY`, or fewer when a model server reports fewer
    slots); ``item_timeout``: seconds an item may spend on model calls (a call started later fails at
    once, and the item counts as failed)."""

    out: Path | None = None
    location: DatasetLocation = field(default_factory=DatasetLocation)
    configs: Sequence[str] = ()
    split: str = "test"
    limit: int | None = None
    resume: bool = False
    extend: bool = False
    concurrency: int | None = None
    agent: str | None = None
    item_timeout: float | None = 3600.0
    models: Mapping[Role, ModelSpec] = field(default_factory=dict)
    options: BaseModel | None = None
    progress: bool | None = None


@dataclass
class TaskContext:
    """What a task's functions see while a run goes on (``clients``: the roles with a model, each
    recording its calls; in ``score``, only the scoring roles)."""

    task: Task[Any, Any, Any]
    settings: RunSettings
    options: Any
    configs: tuple[str, ...]
    clients: dict[Role, ChatClient]
    _loaded: dict[str, LoadedConfig] = field(default_factory=dict)
    #: the model name of each role that had one when the transcripts were made (a rescore's context has no
    #: client for them)
    models: Mapping[Role, str] = field(default_factory=dict)

    def load(self, config: str) -> LoadedConfig:
        """The rows of ``config`` (the run's split) and the dataset's manifest, loaded once per run."""
        if config not in self._loaded:
            self._loaded[config] = self.settings.location.load(self.task.dataset, config, self.settings.split)
        return self._loaded[config]

    def rows(self, config: str, kind: type[R]) -> list[R]:
        """The rows of ``config`` as records of ``kind`` (the builder's record model of that config)."""
        records = self.load(config).records
        strangers = [type(record).__name__ for record in records if not isinstance(record, kind)]
        if strangers:
            raise RunConfigurationError(
                f"{self.task.dataset} config {config!r} holds {strangers[0]} rows, "
                f"not the {kind.__name__} the {self.task.name} task reads"
            )
        return cast(list[R], records)

    def client(self, role: Role) -> ChatClient | None:
        return self.clients.get(role)

    def model_name(self, role: Role) -> str | None:
        """The name of ``role``'s model: its client's, else the one that made the transcripts (None: no model)."""
        client = self.clients.get(role)
        return client.config.model if client is not None else self.models.get(role)


@dataclass(frozen=True)
class Estimates:
    """How a task's numbers get their intervals (:mod:`causal_datasets.runners.estimates`).

    ``unit``: what the items of one cluster share ("scenario"); ``cluster``: an item's unit (None: every
    item its own); ``groups``: the slice entries an item belongs to, ``{slice: key or keys}`` (none, one, or
    several, as ReCAST's domains); ``estimators``: the summary's numbers that are not plain means of
    ``item_scores`` (ratios, F1, κ, means over a subset), each replacing the mean of the same name, read off
    each item's typed ``scores``; ``crossed``: mappings inside slice entries that break an entry down by
    another slice, ``{field: (slice, number)}`` (CoBe's ``model_accuracy``: the accuracy of each model's
    items within the entry).
    """

    unit: str
    cluster: Callable[[Item], str] | None = None
    groups: Callable[[Item, TaskContext], Mapping[str, str | Sequence[str] | None]] | None = None
    estimators: tuple[Estimator, ...] = ()
    crossed: Mapping[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Task(Generic[G, S, M]):
    """One benchmark as the engine runs it.

    ``items`` turns the loaded rows into work items (filters by the options included; default: one item
    per row of each config, its ``id`` field as id); ``solve`` generates one item's transcript — a
    single-turn prompt, or an episode in an environment — and returns its ``generation`` record (the calls
    are recorded by the engine; default :class:`NoGeneration`); ``score`` turns the item and its transcript
    into its ``scores``, a pure function of them (the scoring roles' calls — a judge's — aside, which the
    transcript keeps too, so ``rescore`` reproduces them without a model); ``summarize`` turns the scored
    items into the benchmark's ``metrics`` and its slices; ``item_scores`` gives the headline numbers of one
    item's scores (what per-item tools such as inspect_ai average). By default ``item_scores`` are the
    numeric fields of ``scores``, ``metrics`` a model of their means and ``summarize`` those means, without
    slices (:mod:`causal_datasets.runners.means`). ``check`` rejects option combinations the declaration
    cannot express (given the settings, the options and the roles that have a model). ``estimates``: the
    units items share and the numbers beyond the means of ``item_scores``, for the intervals of the summary
    (None: every item its own unit, the means of ``item_scores`` only).

    ``version`` (as inspect_ai's ``Task.version``): raise it whenever the task's items, prompts or scoring
    change, so runs of different versions are told apart (the summary records it; ``--resume`` refuses to
    continue a run of another version; a rescore notes the change). ``dataset``: the builder's name
    (default ``name``); ``help``: default the builder's pretty name; ``configs``: default every config of
    its builder, ``default_configs`` those a run without ``--config`` takes (default: the first, or all
    when ``multiple_configs``). ``roles``: the model roles the task uses, each a name of its own (default:
    one required ``model``).

    ``scoring_options`` are the options ``rescore`` may change (the others describe the generation);
    ``judge_options`` those of them that change what a scoring role is asked; ``rescore_notes`` says,
    given the old and the new options, what new scores cannot change about the old run. ``view`` is the
    benchmark's section of ``causal-datasets report``; ``inspect`` names its inspect_ai tasks
    (task name → config; default: one per config, ``<name>_<config>``).
    """

    name: str
    solve: Callable[[Item, TaskContext], G]
    score: Callable[[Item, Transcript[G], TaskContext], S]
    scores: type[S]
    help: str = ""
    version: int | str = 0
    dataset: str = ""
    configs: tuple[str, ...] = ()
    default_configs: tuple[str, ...] = ()
    items: Callable[[TaskContext], list[Item]] = every_row
    summarize: Callable[[list[Scored[G, S]], TaskContext], tuple[M, Slices]] = cast(
        "Callable[[list[Scored[G, S]], TaskContext], tuple[M, Slices]]", mean_summary
    )
    item_scores: Callable[[S], dict[str, float]] = numeric_scores
    generation: type[G] = cast("type[G]", NoGeneration)
    #: left as the bare base: a model of the means of ``item_scores`` (:mod:`causal_datasets.runners.means`)
    metrics: type[M] = cast("type[M]", BenchmarkMetrics)
    roles: tuple[RoleSpec, ...] = (RoleSpec("model", "the model that answers", required=True),)
    agents: tuple[str, ...] = ()
    options: type[BaseModel] = NoOptions
    multiple_configs: bool = False
    from_files: bool = False
    check: Callable[[RunSettings, Any, frozenset[Role]], None] | None = None
    estimates: Estimates | None = None
    scoring_options: tuple[str, ...] = ()
    judge_options: tuple[str, ...] = ()
    rescore_notes: Callable[[Any, Any], list[str]] | None = None
    view: View | None = None
    inspect: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        """Fill in the defaults that depend on other fields (configs and help from the dataset's registered builder)."""
        dataset = self.dataset or self.name
        builder = get_builder(dataset) if not (self.configs and self.help) else None
        configs = self.configs or tuple(builder.configs if builder is not None else ())
        defaults = {
            "dataset": dataset,
            "help": self.help or (builder.pretty_name if builder is not None else ""),
            "configs": configs,
            "default_configs": self.default_configs or (configs if self.multiple_configs else configs[:1]),
            "metrics": mean_metrics_model(self.name, self.scores) if self.metrics is BenchmarkMetrics else self.metrics,
        }
        for name, value in defaults.items():
            object.__setattr__(self, name, value)
        names = [spec.role for spec in self.roles]
        if len(set(names)) != len(names):
            raise TaskRegistrationError(f"task {self.name} declares a role twice: {', '.join(names)}")

    def role(self, name: Role) -> RoleSpec | None:
        return next((spec for spec in self.roles if spec.role == name), None)

    @property
    def scoring_roles(self) -> tuple[Role, ...]:
        return tuple(spec.role for spec in self.roles if spec.scoring)

    @property
    def role_names(self) -> frozenset[Role]:
        return frozenset(spec.role for spec in self.roles)

    @property
    def result_model(self) -> type[ItemResult[G, S]]:
        """The model of one ``results.jsonl`` line of this task (its calls and failure of the declared roles)."""
        return declared(ItemResult[self.generation, self.scores], self.role_names)  # type: ignore[name-defined]

    @property
    def summary_model(self) -> type[RunSummary[M]]:
        """The model of this task's ``summary.json`` (its models, usage and failures of the declared roles)."""
        return declared(RunSummary[self.metrics], self.role_names)  # type: ignore[name-defined]

    def inspect_tasks(self) -> dict[str, str]:
        """inspect_ai task name → config."""
        return dict(self.inspect) if self.inspect is not None else {f"{self.name}_{c}": c for c in self.configs}
