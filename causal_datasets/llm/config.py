"""What a chat request is made of: ``LLMConfig`` (model, endpoint, sampling, retry limits) and prices.

The API key is never a field: the config only holds the *name* of the environment variable, and
the key is read when a request is sent, so it cannot reach a cache key, a file, a log or a repr.
Every secret a config holds is registered as it is read (:mod:`causal_datasets.secret_values`): the key
(whatever its variable is called), the base URL's user info and query values, and the ``extra_body``
values marked ``{"$secret": ...}``, under a secret-named key or shaped like a known key; the settings a
config describes (:meth:`LLMConfig.reply_settings`) show them as ``<redacted>``. Numbers must be finite
and text valid (:mod:`causal_datasets.bounded_values`), so a request is never refused for its own settings.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, field_validator

from causal_datasets.bounded_values import BadValue, check_value, load_json, load_yaml, read_options_text
from causal_datasets.errors import LLMConfigError
from causal_datasets.redaction import redact_url
from causal_datasets.secret_values import register, register_url, scrub_value, take_marked

#: sent as the bearer token to a loopback server when the key variable is unset (llama.cpp, vLLM, Ollama ignore it)
LOCAL_PLACEHOLDER_KEY = "sk-local-no-key"
#: seconds per HTTP attempt unless the config or the server says otherwise
DEFAULT_TIMEOUT = 60.0
#: seconds per HTTP attempt to a server that reports a single slot: a CPU server such as llama.cpp's or
#: ``serve-local``, computing one reply at a time; 512 tokens of a 7B model on a laptop CPU take minutes
SINGLE_SLOT_TIMEOUT = 600.0

Message = dict[str, Any]
#: LLMConfig fields about reaching the server, not about what it answers (a resumed run may change them)
TRANSPORT_FIELDS = frozenset(
    {"base_url", "api_key_env", "timeout", "max_retries", "backoff_base", "backoff_max", "concurrency"}
)


#: the values of ``reasoning_effort`` (``extra_body`` can send any other a provider takes)
ReasoningEffort = Literal["minimal", "low", "medium", "high"]


def _default_base_url() -> str:
    """``$OPENAI_BASE_URL`` when set (as the openai SDK reads it), else OpenAI's endpoint."""
    return os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"


class LLMConfig(BaseModel):
    """One model endpoint and its sampling parameters; immutable and safe to log.

    The field descriptions are the help of the command-line flags (:mod:`causal_datasets.llm.options`
    makes ``--<field>`` of every field), so each default is defined here only."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    model: str = Field(min_length=1, description="model name as the server knows it")
    base_url: str = Field(
        default_factory=_default_base_url,
        validate_default=True,
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 (default: $OPENAI_BASE_URL, "
        "else OpenAI)",
    )
    api_key_env: str = Field(
        default="OPENAI_API_KEY", description="environment variable holding the API key (not needed on 127.0.0.1)"
    )
    temperature: float = Field(default=0.0, ge=0.0, description="sampling temperature")
    max_tokens: int = Field(default=512, ge=1, description="completion token limit")
    token_limit_param: Literal["max_tokens", "max_completion_tokens"] = Field(
        default="max_tokens",
        description="request field that carries max_tokens (OpenAI reasoning models want max_completion_tokens)",
    )
    max_completion_tokens: int | None = Field(
        default=None,
        ge=1,
        description="completion token limit, reasoning included, sent as max_completion_tokens (instead of max_tokens)",
    )
    reasoning_effort: ReasoningEffort | None = Field(
        default=None, description="how much a reasoning model thinks before answering (sent as reasoning_effort)"
    )
    seed: int | None = Field(default=0, description="sampling seed sent to the server")
    extra_body: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="JSON object merged into every request body, its keys winning, e.g. "
        '\'{"chat_template_kwargs": {"enable_thinking": true}}\'; a value given as {"$secret": "..."} is sent '
        "as its text and never written or printed",
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        description=f"seconds one HTTP attempt may take in total (default {DEFAULT_TIMEOUT:g}, or "
        f"{SINGLE_SLOT_TIMEOUT:g} for a server that reports a single slot: serve-local, llama.cpp's server "
        "with --parallel 1; raise it for long reasoning replies)",
    )
    max_retries: int = Field(default=4, ge=0, description="retries of transient failures")
    backoff_base: float = Field(default=1.0, ge=0, description="seconds the first retry waits, about")
    backoff_max: float = Field(default=60.0, ge=0, description="seconds no computed or Retry-After wait exceeds")
    concurrency: int = Field(default=4, ge=1, description="requests in flight at once for map/achat")
    prefill: str | None = Field(
        default=None,
        min_length=1,
        description="assistant prefill: the reply starts with this text (e.g. '<think>', as ReCAST's base-model case "
        "study); the server must continue a final assistant message",
    )
    context_window: int | None = Field(
        default=None,
        ge=1,
        description="the model's context window in tokens; a request that would not fit is not "
        "sent (default: what the server reports, else unchecked)",
    )

    @field_validator("model", "api_key_env", "prefill")
    @classmethod
    def _valid_text(cls, value: str | None) -> str | None:
        if value is not None:
            check_value(value)
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        check_value(value)
        register_url(value)
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http(s) URL, got {redact_url(value)!r}")
        return value.rstrip("/")

    @field_validator("extra_body")
    @classmethod
    def _secrets_taken(cls, value: dict[str, JsonValue]) -> dict[str, JsonValue]:
        """Checked (finite numbers, valid text, nesting), its marked and key-shaped secrets registered."""
        check_value(value)
        return take_marked(value)

    @property
    def endpoint(self) -> str:
        """``base_url`` without credentials (user info, query): what logs, errors, caches and summaries show."""
        return redact_url(self.base_url)

    def reply_settings(self) -> dict[str, Any]:
        """The fields that decide the model's replies (model, sampling, seed, prefill ...), as JSON, secrets
        redacted: what a resumed run must keep; where the server is and how long or often to try are left out."""
        return scrub_value(self.model_dump(mode="json", exclude=set(TRANSPORT_FIELDS)))

    def is_loopback(self) -> bool:
        host = urlsplit(self.base_url).hostname or ""
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    def api_key(self) -> str:
        """The key from ``$api_key_env`` now; a placeholder for a loopback server; else ``LLMConfigError``."""
        key = os.environ.get(self.api_key_env, "")
        if key:
            register(key)
            return key
        if self.is_loopback():
            return LOCAL_PLACEHOLDER_KEY
        raise LLMConfigError(
            f"environment variable {self.api_key_env} is not set (needed for a non-local server)",
            model=self.model,
            base_url=self.base_url,
        )

    def request_body(
        self,
        messages: list[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        extra_body: dict[str, JsonValue] | None = None,
    ) -> dict[str, Any]:
        """The JSON body of ``POST /chat/completions``; per-call arguments override the config."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature if temperature is None else temperature,
            self.limit_param: self.completion_limit if max_tokens is None else max_tokens,
        }
        chosen_seed = self.seed if seed is None else seed
        if chosen_seed is not None:
            body["seed"] = chosen_seed
        if self.reasoning_effort is not None:
            body["reasoning_effort"] = self.reasoning_effort
        if self.prefill:
            body["messages"] = [*messages, {"role": "assistant", "content": self.prefill}]
        body.update(self.extra_body)
        body.update(extra_body or {})
        return body

    @property
    def limit_param(self) -> str:
        """The request field of the completion token limit."""
        return "max_completion_tokens" if self.max_completion_tokens is not None else self.token_limit_param

    @property
    def completion_limit(self) -> int:
        """The completion token limit sent (``max_completion_tokens`` when given, else ``max_tokens``)."""
        return self.max_completion_tokens if self.max_completion_tokens is not None else self.max_tokens


class ModelPrice(BaseModel):
    """USD per one million tokens; ``cache_read`` is the cached-input price (prompt tokens the provider
    read from its prompt cache), the prompt price when not given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: float = Field(ge=0)
    completion: float = Field(ge=0)
    cache_read: float | None = Field(default=None, ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int, cache_read_tokens: int = 0) -> float:
        """USD of one call; ``cache_read_tokens`` are part of ``prompt_tokens`` (at most all of them)."""
        cache_read = min(max(cache_read_tokens, 0), prompt_tokens)
        cache_price = self.prompt if self.cache_read is None else self.cache_read
        return (
            (prompt_tokens - cache_read) * self.prompt + cache_read * cache_price + completion_tokens * self.completion
        ) / 1_000_000


PriceTable = dict[str, ModelPrice]


def load_price_table(path: Path) -> PriceTable:
    """A JSON or YAML mapping ``model -> {prompt, completion, cache_read}`` (USD per 1M tokens; ``cache_read``
    optional); ``ValueError`` naming the file and the entry otherwise."""
    try:
        text = read_options_text(Path(path))
        raw = load_json(text) if Path(path).suffix == ".json" else load_yaml(text)
    except BadValue as error:
        raise ValueError(f"{path}: not a readable price table: {error}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: a price table maps model names to {{prompt, completion, cache_read}} prices")
    table = {}
    for model, price in raw.items():
        try:
            table[str(model)] = ModelPrice.model_validate(price)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ValueError(f"{path}: price of {model!r}{f' {where}' if where else ''}: {first['msg']}") from None
    return table
