"""Command-line flags for a model (``--model`` …) or a second one (``prefix="judge-"`` → ``--judge-model`` …)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from causal_datasets.llm.client import LLMClient
from causal_datasets.llm.config import LLMConfig, PriceTable, load_price_table
from causal_datasets.errors import LLMConfigError

#: response cache file name inside ``--cache-dir``
CACHE_FILE = "llm.sqlite"
DEFAULT_CACHE_DIR = Path(".cache")


def add_model_arguments(
    parser: argparse.ArgumentParser, prefix: str = "", *, purpose: str | None = None, omitted: str | None = None
) -> None:
    """Add ``--{prefix}model``, ``--{prefix}base-url`` … to ``parser`` (see ``spec_from_args``).

    ``purpose`` says what the model is for and ``omitted`` what happens without it (both in the help).
    """
    who = f"{prefix.rstrip('-')} " if prefix else ""
    group = parser.add_argument_group(f"{who}model".strip(), purpose)
    group.add_argument(f"--{prefix}model",
                       help=f"{who}model name as the server knows it (omitted: {omitted or f'no {who}model'})")
    group.add_argument(
        f"--{prefix}base-url",
        default=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 (default: $OPENAI_BASE_URL or OpenAI)",
    )
    group.add_argument(f"--{prefix}api-key-env", default="OPENAI_API_KEY",
                       help="environment variable holding the API key (default OPENAI_API_KEY; not needed on 127.0.0.1)")
    group.add_argument(f"--{prefix}temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    group.add_argument(f"--{prefix}max-tokens", type=int, default=512, help="completion token limit (default 512)")
    group.add_argument(f"--{prefix}token-limit-param", choices=("max_tokens", "max_completion_tokens"),
                       default="max_tokens",
                       help=f"request field for --{prefix}max-tokens (OpenAI o-series: max_completion_tokens)")
    group.add_argument(f"--{prefix}seed", type=int, default=0, help="sampling seed sent to the server (default 0)")
    group.add_argument(f"--{prefix}timeout", type=float, default=60.0, help="seconds per HTTP attempt (default 60)")
    group.add_argument(f"--{prefix}max-retries", type=int, default=4, help="retries of transient failures (default 4)")
    group.add_argument(f"--{prefix}prefill", metavar="TEXT",
                       help="assistant prefill: the reply starts with TEXT (e.g. '<think>', as ReCAST's base-model "
                            "case study); the server must continue a final assistant message")
    group.add_argument(f"--{prefix}context-window", type=int, metavar="TOKENS",
                       help="the model's context window; a request that would not fit is not sent "
                            "(default: what the server reports, else unchecked)")
    group.add_argument(f"--{prefix}prices", type=Path,
                       help="JSON/YAML price table {model: {prompt: USD per 1M, completion: USD per 1M}}")
    group.add_argument(f"--{prefix}cache-dir", type=Path, default=DEFAULT_CACHE_DIR,
                       help=f"response cache folder, file {CACHE_FILE} (default .cache)")
    group.add_argument(f"--{prefix}no-cache", action="store_true", help="do not read or write the response cache")


def config_from_args(args: argparse.Namespace, prefix: str = "") -> LLMConfig | None:
    """The ``LLMConfig`` the flags describe, or None when ``--{prefix}model`` was not given; ``LLMConfigError`` if invalid."""
    value = _reader(args, prefix)
    if not value("model"):
        return None
    try:
        return LLMConfig(
            model=value("model"),
            base_url=value("base_url"),
            api_key_env=value("api_key_env"),
            temperature=value("temperature"),
            max_tokens=value("max_tokens"),
            token_limit_param=value("token_limit_param"),
            seed=value("seed"),
            timeout=value("timeout"),
            max_retries=value("max_retries"),
            prefill=value("prefill") or None,
            context_window=value("context_window"),
            concurrency=getattr(args, "concurrency", None) or 4,
        )
    except ValidationError as error:
        problems = "; ".join(f"--{prefix}{'-'.join(str(p) for p in e['loc']).replace('_', '-')}: {e['msg']}"
                             for e in error.errors())
        raise LLMConfigError(problems, model=value("model"), base_url=value("base_url")) from error


@dataclass(frozen=True)
class ModelSpec:
    """How to reach one model: its config, response cache file and price table (a client is made on demand)."""

    config: LLMConfig
    cache_path: Path | None = None
    prices: PriceTable | None = None

    def client(self) -> LLMClient:
        return LLMClient(self.config, cache_path=self.cache_path, prices=self.prices)


def spec_from_args(args: argparse.Namespace, prefix: str = "") -> ModelSpec | None:
    """The :class:`ModelSpec` the flags describe (cache at ``--cache-dir/llm.sqlite`` unless ``--no-cache``), or None."""
    config = config_from_args(args, prefix)
    if config is None:
        return None
    value = _reader(args, prefix)
    cache_path = None if value("no_cache") else Path(value("cache_dir")) / CACHE_FILE
    prices = load_price_table(value("prices")) if value("prices") else None
    return ModelSpec(config, cache_path=cache_path, prices=prices)


def client_from_args(args: argparse.Namespace, prefix: str = "") -> LLMClient | None:
    """An ``LLMClient`` from the flags (see :func:`spec_from_args`), or None when no model was given."""
    spec = spec_from_args(args, prefix)
    return spec.client() if spec is not None else None


def _reader(args: argparse.Namespace, prefix: str):
    dest_prefix = prefix.replace("-", "_")
    return lambda name: getattr(args, f"{dest_prefix}{name}")


def judge_client(
    metric: str, model: str | None, base_url: str, *, cache_path: str | Path | None = None, **config: Any
) -> LLMClient:
    """The judge client of an ``evaluate`` module's ``compute(judge_model=..., judge_base_url=..., ...)``.

    ``config`` holds further ``LLMConfig`` fields (api_key_env, max_tokens, temperature, seed, timeout).
    """
    if not model:
        raise ValueError(f"{metric} needs judge_model=... (and judge_base_url for a non-OpenAI endpoint)")
    return LLMClient(LLMConfig(model=model, base_url=base_url, **config), cache_path=Path(cache_path) if cache_path else None)
