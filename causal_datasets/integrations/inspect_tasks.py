"""The benchmarks as inspect_ai tasks: ``inspect eval causal_datasets/shapeworld_core --model ...``.

One ``@task`` per benchmark and config, as each registered task names them (``Task.inspect``;
:func:`inspect_tasks`), registered through inspect's ``inspect_ai`` entry point. Each runs the
engine's own task declaration: the samples are the task's items, the solver runs the engine's
``solve_item`` — the task's ``solve`` then its ``score`` of the transcript (the same prompts,
environments, step limits, parsing and error handling as ``causal-datasets eval``) — with inspect's
models behind the package's chat-client interface, and the scorer reports the task's per-item scores
(their mean and standard error, clustered by the task's unit as in ``summary.json``) with the whole
``results.jsonl`` line as the score's metadata.

Generation settings are inspect's own options, named as ``causal-datasets eval``'s
(:data:`GENERATE_FIELDS`: ``--reasoning-effort``, ``--extra-body``, ``--max-tokens``, ``--seed``,
``--temperature`` ...); the task's defaults are ``causal-datasets eval``'s. Each call's request,
reply, reasoning and tokens are kept in the item's result line (``calls``), as the engine keeps them.

Models: the eval's model plays the ``model`` role; ``--model-role judge=...`` and
``--model-role corrector=...`` fill the others (a role left out behaves as in ``causal-datasets
eval``: CoBe's judge falls back to the model, ReCAST without a judge gives name-based scores only).
Task parameters (``-T``): ``hub_dir``, ``dataset`` (a Hub id) and ``revision``, ``source``,
``split``, ``agent`` (a reference agent instead of the model) and the task's own options.
An item the model server could not finish raises, so inspect records a sample error (run again with
``--retry-on-error`` or ``inspect eval-retry``), its message the failure's role and category in the
engine's vocabulary (inspect's own errors mapped to the LLM client's categories); an exceeded inspect
limit ends the sample as inspect ends any other, and any other failure inside a model call (e.g. a
tokenizer file inspect cannot download offline) fails the sample with its own exception, not as the
model's error.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio.from_thread
import anyio.to_thread
from inspect_ai import Task as InspectTask
from inspect_ai import task as register_task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentReasoning,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
    model_roles,
)
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.util import LimitExceededError, registry_info
from pydantic import ValidationError

from causal_datasets import __version__
from causal_datasets.errors import LLMError, LLMRequestError, LLMRetriesExhausted, LLMTimeout, RunConfigurationError
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.chat import ChatClient, ChatResult, reasoning_text
from causal_datasets.llm.config import LLMConfig, Message
from causal_datasets.paths import DEFAULT_HUB_DIR
from causal_datasets.runners.engine import check_settings, solve_item
from causal_datasets.runners.estimates import item_units
from causal_datasets.runners.records import Failure, Role
from causal_datasets.runners.registry import tasks
from causal_datasets.runners.task import Item, RunSettings, Task, TaskContext

#: what inspect puts before each task's name: ``inspect eval causal_datasets/shapeworld_core``
NAMESPACE = "causal_datasets"
#: the key of a sample's store that holds its ``results.jsonl`` line between solver and scorer
RESULT_KEY = "causal_datasets:result"
#: the key of a sample's metadata that holds its cluster (its task's unit; its own id when items share none)
CLUSTER_KEY = "cluster"


def inspect_tasks() -> dict[str, tuple[str, str]]:
    """inspect task name -> (engine task, config), as every registered task names its inspect tasks."""
    return {name: (task.name, config) for task in tasks().values() for name, config in task.inspect_tasks().items()}


#: each ``LLMConfig`` field inspect carries, and the ``GenerateConfig`` field (inspect's option of that name) carrying
#: it; the rest belong to the inspect model (provider, base URL, key, timeouts, connections) or have no counterpart
GENERATE_FIELDS = {
    "temperature": "temperature",
    "max_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "reasoning_effort": "reasoning_effort",
    "seed": "seed",
    "extra_body": "extra_body",
    "max_retries": "max_retries",
}


def generate_config(settings: dict[str, Any]) -> GenerateConfig:
    """``LLMConfig`` fields (a chat call's overrides, or defaults) as inspect's ``GenerateConfig``."""
    unknown = sorted(set(settings) - set(GENERATE_FIELDS))
    if unknown:
        raise LLMError(f"inspect has no generation setting for {', '.join(unknown)}")
    return GenerateConfig(**{GENERATE_FIELDS[name]: value for name, value in settings.items()})


#: the sampling ``causal-datasets eval`` sends by default; an eval's own settings win
DEFAULT_GENERATE_CONFIG = generate_config(
    {name: LLMConfig.model_fields[name].default for name in ("temperature", "max_tokens", "seed")}
)
#: inspect's own timeouts of a model call (not exported by inspect_ai.model)
MODEL_TIMEOUTS = ("AttemptTimeoutError", "StreamIdleTimeoutError")


#: inspect's stop reasons spelled as an OpenAI-compatible server's finish_reason (the others are spelled alike)
FINISH_REASONS = {"max_tokens": "length", "model_length": "length"}


class SampleFailed(RuntimeError):
    """The item failed (``failure`` of its result line): inspect's sample error, ``<role> <category>: <detail>``."""

    def __init__(self, failure: Failure):
        self.failure = failure
        super().__init__(f"{failure.key}: {failure.detail}")


@dataclass(frozen=True)
class _ModelName:
    model: str


class InspectChatClient:
    """An inspect_ai model as a :class:`~causal_datasets.llm.chat.ChatClient` (``config.model`` and ``chat``).

    The task's code runs in a worker thread; each ``chat`` hands its request to inspect's event loop
    (so inspect's retries, connection limits, usage limits and transcript apply) and waits for it.
    A failure of the model (:func:`model_failure`) becomes an :class:`~causal_datasets.errors.LLMError`,
    as the package's own client raises; an exceeded inspect limit is kept in ``limit_error`` and any
    other exception in ``other_error`` for the solver to re-raise as the sample's error.
    """

    def __init__(self, model: Model):
        self.model = model
        self.config = _ModelName(str(model))
        self.last: tuple[list[ChatMessage], ModelOutput] | None = None
        self.limit_error: LimitExceededError | None = None
        self.other_error: Exception | None = None
        self.cancelled = False

    def chat(self, messages: list[Message], **overrides: Any) -> ChatResult:
        """One reply for ``messages``; ``overrides``: temperature, max_tokens, seed, extra_body. Raises ``LLMError``."""
        if self.cancelled:
            raise self._error(LLMError, "the sample was cancelled before this call")
        conversation = [_chat_message(message) for message in messages]
        generate = partial(self.model.generate, conversation, config=generate_config(overrides))
        try:
            output = anyio.from_thread.run(generate)
        except LimitExceededError as error:
            self.limit_error = error
            kind = LLMTimeout if error.type in ("time", "working") else LLMError
            raise self._error(kind, f"inspect limit exceeded: {error}") from error
        except Exception as error:  # noqa: BLE001 - the model's failures become LLMError, others are kept as they are
            if not model_failure(self.model, error):
                self.other_error = error
                raise
            raise self._error(_category(error), _describe(error)) from error
        if output.error:
            raise self._error(LLMError, output.error)
        self.last = (conversation, output)
        usage = output.usage
        return ChatResult(
            text=output.completion,
            prompt_tokens=_prompt_tokens(usage),
            completion_tokens=usage.output_tokens if usage else 0,
            cached=False,
            attempts=1,
            model=output.model or self.config.model,
            finish_reason=FINISH_REASONS.get(output.stop_reason, output.stop_reason),
            reasoning=reasoning_text(output.completion, *_thoughts(output)),
            reasoning_tokens=(usage.reasoning_tokens or 0) if usage else 0,
            cache_read_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
        )

    def request_settings(self, **overrides: Any) -> dict[str, Any]:
        """What a request with ``overrides`` sends besides its messages: the model and inspect's generation settings."""
        merged = self.model.config.merge(generate_config(overrides))
        return {"model": self.config.model, **merged.model_dump(mode="json", exclude_none=True)}

    def _error(self, kind: type[LLMError], detail: str) -> LLMError:
        model, base_url = self.config.model, self.model.api.base_url or ""
        if issubclass(kind, LLMRetriesExhausted):
            return kind(detail, kind="provider", model=model, base_url=base_url)
        return kind(detail, model=model, base_url=base_url)


def _category(error: BaseException) -> type[LLMError]:
    """The LLM client's error class (so its category) of an error inspect's provider raised: a timeout, retries
    exhausted (inspect's retry wrapper), a request the server refused (4xx other than 429), or any other."""
    attempt = getattr(error, "last_attempt", None)
    if attempt is not None:
        return LLMTimeout if attempt.failed and isinstance(attempt.exception(), TimeoutError) else LLMRetriesExhausted
    if isinstance(error, TimeoutError) or "Timeout" in type(error).__name__:
        return LLMTimeout
    status = getattr(error, "status_code", None)
    if isinstance(status, int) and 400 <= status < 500 and status != 429:
        return LLMRequestError
    return LLMError


def model_failure(model: Model, error: BaseException) -> bool:
    """Whether ``error``, raised by ``model.generate``, is the model's failure: an HTTP status or error reply
    from the provider (``status_code``), a timeout, or a failure its provider retries (connection, rate limit,
    5xx). Anything else, such as a tokenizer file inspect cannot load, is not."""
    error = _last_attempt(error)
    if hasattr(error, "status_code") or isinstance(error, (TimeoutError, ConnectionError)):
        return True
    if type(error).__name__ in MODEL_TIMEOUTS:
        return True
    try:
        return bool(model.api.should_retry(error))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - a provider that cannot classify the error does not claim it
        return False


def _prompt_tokens(usage: ModelUsage | None) -> int:
    """All prompt tokens, as an OpenAI-compatible server counts them: inspect leaves cache reads and writes out."""
    if usage is None:
        return 0
    return usage.input_tokens + (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)


def _thoughts(output: ModelOutput) -> list[str]:
    """The reasoning blocks of the reply (inspect reads a server's reasoning field and ``<think>`` sections
    into them)."""
    content = output.message.content if output.choices else ""
    if isinstance(content, str):
        return []
    return [part.reasoning for part in content if isinstance(part, ContentReasoning) and not part.redacted]


def _describe(error: BaseException) -> str:
    """``Type: message`` of the provider's error, looking through a retry wrapper to the last attempt's."""
    error = _last_attempt(error)
    return f"{type(error).__name__}: {error}"


def _last_attempt(error: BaseException) -> BaseException:
    """The last attempt's exception of a retry wrapper (tenacity's ``RetryError``), else ``error``."""
    attempt = getattr(error, "last_attempt", None)
    if attempt is not None and attempt.failed:
        return attempt.exception()
    return error


def _chat_message(message: Message) -> ChatMessage:
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    role = message.get("role")
    if role not in kinds or not isinstance(message.get("content"), str):
        raise LLMError(f"cannot send a message with role {role!r} and non-text or missing content")
    return kinds[role](content=message["content"])


def build_task(
    task: Task,
    config: str,
    *,
    hub_dir: str | None = None,
    dataset: str | None = None,
    revision: str | None = None,
    source: str | None = None,
    split: str = "test",
    agent: str | None = None,
    **options: Any,
) -> InspectTask:
    """The inspect task of ``task`` on ``config``: the items as samples, the engine's solver and scores."""
    settings = RunSettings(
        location=_location(hub_dir, dataset, revision, source),
        configs=(config,),
        split=split,
        agent=agent,
        item_timeout=None,  # inspect's own --time-limit bounds a sample
        options=_options(task, options),
    )
    roles = _roles(task, agent)
    options_model, configs = check_settings(task, settings, roles)
    context = TaskContext(task, settings, options_model, configs, clients={})
    items = {item.id: item for item in task.items(context)}
    return InspectTask(
        dataset=[_sample(task, item, context) for item in items.values()],
        solver=engine_solver(task, context, items),
        scorer=engine_scorer(task),
        config=DEFAULT_GENERATE_CONFIG,
        version=task.version,
        metadata={
            "causal_datasets": __version__,
            "benchmark": task.name,
            "config": config,
            "dataset": settings.location.describe(task.dataset),
            "split": split,
            "agent": agent,
            "options": options_model.model_dump(mode="json"),
        },
    )


def _location(hub_dir: str | None, dataset: str | None, revision: str | None, source: str | None) -> DatasetLocation:
    if revision and not dataset:
        raise RunConfigurationError("revision needs dataset=ORG/NAME (a local build has no revisions)")
    if source is not None and not Path(source).exists():
        raise RunConfigurationError(f"source {source} does not exist")
    return DatasetLocation(
        hub_dir=Path(hub_dir) if hub_dir else DEFAULT_HUB_DIR,
        repo_id=dataset,
        revision=revision,
        source=Path(source) if source else None,
    )


def _options(task: Task, given: dict[str, Any]) -> Any:
    unknown = sorted(set(given) - set(task.options.model_fields))
    if unknown:
        known = ", ".join(task.options.model_fields) or "none"
        raise RunConfigurationError(f"{task.name} has no option {unknown[0]!r} (options: {known})")
    try:
        return task.options(**given)
    except ValidationError as error:
        first = error.errors()[0]
        raise RunConfigurationError(f"{task.name} option {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def _roles(task: Task, agent: str | None) -> frozenset[Role]:
    """The roles with a model: the eval's model (unless an agent plays) and the declared roles given by
    ``--model-role``."""
    given = set(model_roles())
    played: set[Role] = {"model"} if agent is None else set()
    return frozenset(played | {spec.role for spec in task.roles if spec.role in given})


def _sample(task: Task, item: Item, context: TaskContext) -> Sample:
    """The item as a sample; its metadata names its config and its cluster (what the clustered stderr reads)."""
    return Sample(
        id=item.id,
        input=f"{task.name} item {item.id} (config {item.config})",
        metadata={"config": item.config, CLUSTER_KEY: item_units(task, item, context)["cluster"]},
    )


@solver
def engine_solver(task: Task, context: TaskContext, items: dict[str, Item]) -> Callable:
    """Run the task's ``solve`` on the sample's item with inspect's models; keep its result line in the store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        clients = _clients(task, context.settings.agent)
        shared: dict[Role, ChatClient] = dict(clients)
        sample_context = dataclasses.replace(context, clients=shared)
        try:
            line = await anyio.to_thread.run_sync(solve_item, task, items[str(state.sample_id)], sample_context)
        finally:
            for client in clients.values():
                client.cancelled = True  # a cancelled sample's worker thread makes no further calls
        model = clients.get("model")
        if model is not None and model.last is not None:
            conversation, output = model.last
            state.messages = [*conversation, output.message]
            state.output = output
        state.store.set(RESULT_KEY, line)
        if line["status"] == "failed":
            for kept in ("limit_error", "other_error"):  # an inspect limit, or a failure that is not the model's
                error = next((getattr(c, kept) for c in clients.values() if getattr(c, kept) is not None), None)
                if error is not None:
                    raise error
            raise SampleFailed(Failure.model_validate(line["failure"]))
        return state

    return solve


def _clients(task: Task, agent: str | None) -> dict[Role, InspectChatClient]:
    """A client per role with a model; a role left out shares its declared fallback's client."""
    given = model_roles()
    clients: dict[Role, InspectChatClient] = {}
    if agent is None:
        clients["model"] = InspectChatClient(get_model())
    for spec in task.roles:
        if spec.role != "model" and spec.role in given:
            clients[spec.role] = InspectChatClient(get_model(role=spec.role))
    for spec in task.roles:
        if spec.role not in clients and spec.fallback in clients:
            clients[spec.role] = clients[spec.fallback]
    return clients


@scorer(metrics={"*": [mean(), stderr(cluster=CLUSTER_KEY)]})
def engine_scorer(task: Task) -> Callable:
    """The task's per-item scores; the metadata is the item's whole ``results.jsonl`` line. Each mean's standard
    error is clustered by the sample's ``cluster`` (the task's unit, e.g. a CoBe scenario): the same SE as the
    mean's in ``summary.json``."""

    async def score(state: TaskState, target: Target) -> Score:
        line = state.store.get(RESULT_KEY)
        scores = task.scores.model_validate(line["scores"])
        return Score(value=task.item_scores(scores), explanation=getattr(scores, "error", None) or None, metadata=line)

    return score


def _task_function(name: str, task: Task, config: str) -> Callable[..., InspectTask]:
    """``name(**parameters)``, with a signature inspect reads for ``-T`` (the task's options included)."""

    def create(**parameters: Any) -> InspectTask:
        return build_task(task, config, **parameters)

    common = [p for p in inspect.signature(build_task).parameters.values() if p.kind == p.KEYWORD_ONLY]
    own = [
        inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, default=info.get_default(call_default_factory=True))
        for field, info in task.options.model_fields.items()
    ]
    create.__signature__ = inspect.Signature(common + own)  # type: ignore[attr-defined]
    create.__name__ = create.__qualname__ = name
    create.__doc__ = f"{task.help} (config {config}; causal-datasets {__version__})"
    registered = register_task(name=name)(create)
    if registry_info(registered).name != f"{NAMESPACE}/{name}":
        # inspect puts a package's name in front only when it finds the package installed, which it does not
        # when a checkout's own causal_datasets.egg-info comes first on sys.path (the current folder on it)
        registered = register_task(name=f"{NAMESPACE}/{name}")(create)
    return registered


def register_tasks() -> dict[str, Callable[..., InspectTask]]:
    """Every registered task's inspect tasks, registered with inspect (and returned by name)."""
    engine_tasks = tasks()
    return {name: _task_function(name, engine_tasks[task], config) for name, (task, config) in inspect_tasks().items()}


globals().update(register_tasks())
