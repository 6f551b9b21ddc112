"""An evaluation task declared as data: which dataset and configs, which model roles and agents, how
one item is solved (generation) and scored, the types of what each step gives, and how scored items
become typed metrics, slices, a report section and inspect_ai tasks.

A benchmark declares one ``Task(...)`` and registers it under the entry-point group
``causal_datasets.tasks`` (:mod:`causal_datasets.registry`); the engine
(:mod:`causal_datasets.runners.engine`) runs every task the same way, and the command line builds
each task's options from the declaration (a role the task does not declare is not offered).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from pydantic import BaseModel

from causal_datasets.errors import RunConfigurationError
from causal_datasets.hub.location import DatasetLocation, LoadedConfig
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.options import ModelSpec
from causal_datasets.records.base import Record
from causal_datasets.runners.records import BenchmarkMetrics, ItemResult, ModelCall, Role, RunSummary, Slices
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


@dataclass(frozen=True)
class Task(Generic[G, S, M]):
    """One benchmark as the engine runs it.

    ``items`` turns the loaded rows into work items (filters by the options included); ``solve``
    generates one item's transcript — a single-turn prompt, or an episode in an environment — and
    returns its ``generation`` record (the calls are recorded by the engine); ``score`` turns the
    item and its transcript into its ``scores``, a pure function of them (the scoring roles' calls —
    a judge's — aside, which the transcript keeps too, so ``rescore`` reproduces them without a
    model); ``summarize`` turns the scored items into the benchmark's ``metrics`` and its slices;
    ``item_scores`` gives the headline numbers of one item's scores (what per-item tools such as
    inspect_ai average). ``check`` rejects option combinations the declaration cannot express
    (given the settings, the options and the roles that have a model). ``estimates``: the units items
    share and the numbers beyond the means of ``item_scores``, for the intervals of the summary
    (None: every item its own unit, the means of ``item_scores`` only).

    ``scoring_options`` are the options ``rescore`` may change (the others describe the generation);
    ``judge_options`` those of them that change what a scoring role is asked; ``rescore_notes`` says,
    given the old and the new options, what new scores cannot change about the old run. ``view`` is the
    benchmark's section of ``causal-datasets report``; ``inspect`` names its inspect_ai tasks
    (task name → config; default: one per config, ``<name>_<config>``).
    """

    name: str
    help: str
    dataset: str
    configs: tuple[str, ...]
    default_configs: tuple[str, ...]
    items: Callable[[TaskContext], list[Item]]
    solve: Callable[[Item, TaskContext], G]
    score: Callable[[Item, Transcript[G], TaskContext], S]
    summarize: Callable[[list[Scored[G, S]], TaskContext], tuple[M, Slices]]
    item_scores: Callable[[S], dict[str, float]]
    generation: type[G]
    scores: type[S]
    metrics: type[M]
    roles: tuple[RoleSpec, ...] = ()
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

    def role(self, name: Role) -> RoleSpec | None:
        return next((spec for spec in self.roles if spec.role == name), None)

    @property
    def scoring_roles(self) -> tuple[Role, ...]:
        return tuple(spec.role for spec in self.roles if spec.scoring)

    @property
    def result_model(self) -> type[ItemResult[G, S]]:
        """The model of one ``results.jsonl`` line of this task."""
        return ItemResult[self.generation, self.scores]  # type: ignore[name-defined]

    @property
    def summary_model(self) -> type[RunSummary[M]]:
        """The model of this task's ``summary.json``."""
        return RunSummary[self.metrics]  # type: ignore[name-defined]

    def inspect_tasks(self) -> dict[str, str]:
        """inspect_ai task name → config."""
        return dict(self.inspect) if self.inspect is not None else {f"{self.name}_{c}": c for c in self.configs}
