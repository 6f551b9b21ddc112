"""Every error the library raises across its public boundary, in one place.

All derive from :class:`CausalDatasetsError`, so a caller (the CLI among them) can catch the whole
family at once; each message is one line that names the dataset, file, option or endpoint at
fault. Parse errors that the library turns into a result category (an unreadable graph, an
unparsable expression) stay in their own rooms and never reach a caller as exceptions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from causal_datasets.redaction import redact_url, redact_urls
from causal_datasets.secret_values import scrub

if TYPE_CHECKING:
    from pydantic import ValidationError


class CausalDatasetsError(Exception):
    """Base class of every error the library raises on purpose."""


# --- datasets: builders, sources, built folders, hub ids -----------------------------------------


class UnknownName(CausalDatasetsError, KeyError):
    """A name the library does not know; the message lists the known ones (printed as is, unquoted)."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownDataset(UnknownName):
    """No builder of that name is registered."""


class UnknownConfig(UnknownName):
    """The dataset has no such config (or split)."""


class UnknownMetric(UnknownName):
    """No evaluate module of that name ships with the package."""


class BuilderRegistrationError(CausalDatasetsError):
    """An installed package registers a builder that is not a ``DatasetBuilder`` or clashes with another."""


class SourceUnavailable(CausalDatasetsError):
    """The builder's source files are not available; the message says where to get them."""


class SourceFormatError(CausalDatasetsError, ValueError):
    """A source file exists but is not what its builder reads; the message names the file and the place."""


class DatasetFolderError(CausalDatasetsError):
    """A folder is not a (complete, unaltered) built dataset: no manifest, or files that differ from it."""


class UnreadableFile(CausalDatasetsError, ValueError):
    """A file the package was given to read is not UTF-8, not JSON, nested too deep or too large (the message
    names the file and, for a JSON-lines file, the line)."""


class HubDatasetError(CausalDatasetsError):
    """A dataset could not be read by hub id (unknown repository or revision, offline, not one of ours)."""


class RecordValidationError(CausalDatasetsError, ValueError):
    """A row failed validation; the message names the dataset, the record and the fields."""

    def __init__(self, where: str, record_key: str, error: ValidationError):
        self.where = where
        self.record_key = record_key
        self.errors = error.errors()
        problems = "; ".join(
            f"field '{'.'.join(str(p) for p in e['loc']) or '<record>'}': {e['msg']}" for e in self.errors
        )
        super().__init__(f"{where} record {record_key}: {problems}")


class PushError(CausalDatasetsError):
    """An upload to the Hub failed: offline, unauthenticated, or refused (the message says which).

    URLs in the message are redacted (``HF_ENDPOINT`` may hold a user name and password), and so is every secret
    the process holds (a server may echo the token it was sent)."""

    def __init__(self, message: str):
        super().__init__(scrub(redact_urls(message)))


# --- runs and reports ------------------------------------------------------------------------------


class RunConfigurationError(CausalDatasetsError):
    """A run was asked for with options that do not fit together (e.g. both an agent and a model)."""


class ResultsExist(RunConfigurationError):
    """The output folder already has results and resuming was not asked for."""


class NotInTranscript(RunConfigurationError):
    """Rescoring asked a model something the run's transcript does not hold, and no model was given to ask."""


class UnknownBenchmark(UnknownName):
    """No installed package registers a task of this name."""


class TaskRegistrationError(CausalDatasetsError):
    """An installed package registers a task that cannot be used (fails to load, wrong type or name, twice)."""


class RunFolderError(CausalDatasetsError, ValueError):
    """A folder given to the report is not a finished run (the message says what is missing)."""


class ComparisonError(CausalDatasetsError, ValueError):
    """Two runs cannot be compared: different benchmarks, no item scored in both, an unknown number."""


class ExportError(CausalDatasetsError, ValueError):
    """Runs cannot be exported as a results dataset: a name the Hub refuses, runs without items or numbers, a folder
    that is not an export (or one written by a newer causal-datasets)."""


# --- the LLM client ---------------------------------------------------------------------------------

#: the ``category`` of every LLM failure: a result whose error is one of these was ended by the
#: model server or the transport, not by the model's answer
LLMCategory = Literal["llm_error", "config", "request_rejected", "retries_exhausted", "timeout"]
LLM_CATEGORIES: frozenset[str] = frozenset(get_args(LLMCategory))


class LLMError(CausalDatasetsError):
    """Base class of every failure raised (or returned, by ``map``) by the LLM client.

    Every error names the model, the base URL, the HTTP status (if any) and the number of
    attempts (a configuration error, raised before any request, only what it has), and carries a short
    ``category`` string a runner stores in its results. Every URL in it is redacted
    (:mod:`causal_datasets.redaction`): no user info, query or fragment; and so is every secret the process
    holds (:mod:`causal_datasets.secret_values`: a server may echo the key it was sent).
    """

    category: LLMCategory = "llm_error"

    def __init__(
        self, detail: str, *, model: str = "", base_url: str = "", status: int | None = None, attempts: int = 0
    ):
        detail, base_url = scrub(redact_urls(detail)), redact_url(base_url) if base_url else base_url
        self.detail = detail
        self.model = model
        self.base_url = base_url
        self.status = status
        self.attempts = attempts
        named = (f"model {model!r}" if model else "", f"at {base_url}" if base_url else "")
        where = " ".join(part for part in named if part)
        if attempts or status is not None:
            status_text = f"HTTP {status}" if status is not None else "no HTTP status"
            tried = f" (after {attempts} attempt{'s' if attempts != 1 else ''})"
        else:  # never sent: a configuration error, or the item's time ran out before the call
            status_text, tried = "", ""
        prefix = ": ".join(part for part in (self.category, where, status_text) if part)
        super().__init__(f"{prefix}: {detail}{tried}")


class LLMConfigError(LLMError):
    """The client cannot send the request as configured (e.g. no API key for a remote server)."""

    category: LLMCategory = "config"


class LLMRequestError(LLMError):
    """The server rejected the request with a 4xx status that retrying cannot fix."""

    category: LLMCategory = "request_rejected"


class LLMRetriesExhausted(LLMError):
    """Every attempt met a transient failure (rate limit, 5xx, connection, bad body); ``kind`` is the last one."""

    category: LLMCategory = "retries_exhausted"

    def __init__(self, detail: str, *, kind: str, **context):
        self.kind = kind
        super().__init__(f"last failure {kind}: {detail}", **context)


class LLMTimeout(LLMRetriesExhausted):
    """Every attempt, the last one included, ran past the configured timeout."""

    category: LLMCategory = "timeout"


class LocalModelUnavailable(CausalDatasetsError):
    """The bundled model or the local extra (torch, transformers, gguf) is missing, or its server did not come up."""


class ClusterError(CausalDatasetsError):
    """A Ray cluster could not be reached, or a task on it was lost more often than it may be retried."""


class MissingExtra(CausalDatasetsError, ImportError):
    """A feature needs an optional dependency; the message names the extra that installs it."""

    def __init__(self, feature: str, extra: str, module: str):
        self.extra = extra
        super().__init__(f"{feature} needs the optional dependency {module!r}: pip install 'causal-datasets[{extra}]'")
