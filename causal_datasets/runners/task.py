"""An evaluation task declared as data: which dataset and configs, which model roles and agents, how
one item is solved and scored, and how results become typed metrics and slices.

Each benchmark module in this package declares one ``TASK = Task(...)``; the engine
(:mod:`causal_datasets.runners.engine`) runs every task the same way, and the command line builds
each task's options from the declaration (a role the task does not declare is not offered).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from causal_datasets.hub.location import DatasetLocation, LoadedConfig
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.options import ModelSpec
from causal_datasets.runners.records import ItemResult, ModelCall, Role, Slices
from causal_datasets.uncertainty import Estimator


#: items a run works on at once unless told otherwise (or limited by the model server's slots)
DEFAULT_CONCURRENCY = 4


class NoOptions(BaseModel):
    """A task without options of its own."""


@dataclass(frozen=True)
class RoleSpec:
    """A model role a task uses. ``required``: the run cannot go without it (a reference agent aside);
    ``fallback``: the role whose client serves this one when it is not given."""

    role: Role
    help: str
    required: bool = False
    fallback: Role | None = None

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
class Outcome:
    """What solving an item gave: its result fields, and ``failure`` when a model or transport error
    ended it (``"<category>: <message>"``; the item then counts as failed and ``--resume`` runs it again)."""

    fields: Mapping[str, Any]
    failure: str | None = None


@dataclass(frozen=True)
class RunSettings:
    """Everything one run is asked for. ``out``: the run folder (``run_task`` needs one; None where
    another tool keeps the results, e.g. inspect_ai); ``configs`` empty: the task's defaults;
    ``options``: an instance of the task's options model (None: its defaults); ``resume``: continue the
    run in ``out`` exactly as it was asked for (:mod:`causal_datasets.runners.resume`); ``extend``: continue
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
    """What a task's functions see while a run goes on."""

    task: Task
    settings: RunSettings
    options: Any
    configs: tuple[str, ...]
    clients: dict[Role, ChatClient]
    _loaded: dict[str, LoadedConfig] = field(default_factory=dict)

    def load(self, config: str) -> LoadedConfig:
        """The rows of ``config`` (the run's split) and the dataset's manifest, loaded once per run."""
        if config not in self._loaded:
            self._loaded[config] = self.settings.location.load(self.task.dataset, config, self.settings.split)
        return self._loaded[config]

    def client(self, role: Role) -> ChatClient | None:
        return self.clients.get(role)


@dataclass(frozen=True)
class Estimates:
    """How a task's numbers get their intervals (:mod:`causal_datasets.runners.estimates`).

    ``unit``: what the items of one cluster share ("scenario"); ``cluster``: an item's unit (None: every
    item its own); ``groups``: the slice entries an item belongs to, ``{slice: key or keys}`` (none, one, or
    several, as ReCAST's domains); ``estimators``: the summary's numbers that are not plain means of
    ``item_scores`` (ratios, F1, κ, means over a subset), each replacing the mean of the same name;
    ``crossed``: mappings inside slice entries that break an entry down by another slice, ``{field: (slice,
    number)}`` (CoBe's ``model_accuracy``: the accuracy of each model's items within the entry).
    """

    unit: str
    cluster: Callable[[Item], str] | None = None
    groups: Callable[[Item, TaskContext], Mapping[str, str | Sequence[str] | None]] | None = None
    estimators: tuple[Estimator, ...] = ()
    crossed: Mapping[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    """One benchmark as the engine runs it.

    ``items`` turns the loaded rows into work items (filters by the options included); ``solve``
    runs one item (a single-turn prompt, or an episode in an environment) and scores it;
    ``summarize`` turns the scored results (dicts of ``results.jsonl``) into the benchmark's typed
    metrics and its slices; ``item_scores`` gives the headline numbers of one scored result (what
    per-item tools such as inspect_ai average). ``check`` rejects option combinations the
    declaration cannot express (given the settings, the options and the roles that have a model).
    ``estimates``: the units items share and the numbers beyond the means of ``item_scores``, for the
    intervals of the summary (None: every item its own unit, the means of ``item_scores`` only).
    """

    name: str
    help: str
    dataset: str
    configs: tuple[str, ...]
    default_configs: tuple[str, ...]
    items: Callable[[TaskContext], list[Item]]
    solve: Callable[[Item, TaskContext], Outcome]
    summarize: Callable[[list[dict[str, Any]], TaskContext], tuple[BaseModel, Slices]]
    item_scores: Callable[[Mapping[str, Any]], dict[str, float]]
    roles: tuple[RoleSpec, ...] = ()
    agents: tuple[str, ...] = ()
    options: type[BaseModel] = NoOptions
    multiple_configs: bool = False
    from_files: bool = False
    check: Callable[[RunSettings, Any, frozenset[Role]], None] | None = None
    estimates: Estimates | None = None

    def role(self, name: Role) -> RoleSpec | None:
        return next((spec for spec in self.roles if spec.role == name), None)


def result_line(item: Item, outcome: Outcome, calls: Sequence[ModelCall] = (), *,
                units: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``results.jsonl`` line of a solved item and its model calls (validated as an :class:`ItemResult`);
    ``units``: its ``cluster`` and slice ``groups`` (:func:`causal_datasets.runners.estimates.item_units`)."""
    shared = ("id", "config", "status", "failure", "calls", "cluster", "groups")
    fields = {k: v for k, v in outcome.fields.items() if k not in shared} | dict(units or {})
    status = "failed" if outcome.failure else "scored"
    result = ItemResult(id=item.id, config=item.config, status=status, failure=outcome.failure, calls=list(calls),
                        **fields)
    return result.model_dump(mode="json")
