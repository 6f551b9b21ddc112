"""What a chat request is made of: ``LLMConfig`` (model, endpoint, sampling, retry limits) and prices.

The API key is never a field: the config only holds the *name* of the environment variable, and
the key is read when a request is sent, so it cannot reach a cache key, a file, a log or a repr.
"""

from __future__ import annotations

import ipaddress
import json
import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from causal_datasets.errors import LLMConfigError
from causal_datasets.redaction import redact_url

#: sent as the bearer token to a loopback server when the key variable is unset (llama.cpp, vLLM, Ollama ignore it)
LOCAL_PLACEHOLDER_KEY = "sk-local-no-key"

Message = dict[str, Any]


class LLMConfig(BaseModel):
    """One model endpoint and its sampling parameters; immutable and safe to log."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1)
    base_url: str = "https://api.openai.com/v1"
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=512, ge=1)
    token_limit_param: Literal["max_tokens", "max_completion_tokens"] = Field(
        default="max_tokens", description="body field for max_tokens (OpenAI reasoning models want max_completion_tokens)")
    seed: int | None = 0
    extra_body: dict[str, JsonValue] = Field(default_factory=dict)
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    backoff_base: float = Field(default=1.0, ge=0, description="first retry waits about this long (s)")
    backoff_max: float = Field(default=60.0, ge=0, description="no computed or Retry-After wait exceeds this (s)")
    concurrency: int = Field(default=4, ge=1, description="requests in flight at once for map/achat")
    prefill: str | None = Field(
        default=None, min_length=1,
        description="assistant prefill: sent as the start of the reply (a final assistant message) and put back in front of it")
    context_window: int | None = Field(
        default=None, ge=1, description="the model's context window in tokens (None: ask the server; see llm.context)")

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http(s) URL, got {value!r}")
        return value.rstrip("/")

    @property
    def endpoint(self) -> str:
        """``base_url`` without credentials (user info, query): what logs, errors, caches and summaries show."""
        return redact_url(self.base_url)

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
            self.token_limit_param: self.max_tokens if max_tokens is None else max_tokens,
        }
        chosen_seed = self.seed if seed is None else seed
        if chosen_seed is not None:
            body["seed"] = chosen_seed
        if self.prefill:
            body["messages"] = [*messages, {"role": "assistant", "content": self.prefill}]
        body.update(self.extra_body)
        body.update(extra_body or {})
        return body


class ModelPrice(BaseModel):
    """USD per one million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: float = Field(ge=0)
    completion: float = Field(ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1_000_000


PriceTable = dict[str, ModelPrice]


def load_price_table(path: Path) -> PriceTable:
    """A JSON or YAML mapping ``model -> {prompt: usd_per_1M, completion: usd_per_1M}``."""
    text = Path(path).read_text(encoding="utf-8")
    raw = json.loads(text) if Path(path).suffix == ".json" else yaml.safe_load(text)
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: a price table maps model names to {{prompt, completion}} prices")
    return {str(model): ModelPrice.model_validate(price) for model, price in raw.items()}
