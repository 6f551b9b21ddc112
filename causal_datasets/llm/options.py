"""Command-line flags for a model (``--model`` …) or another role's (``prefix="judge-"`` → ``--judge-model`` …).

Every field of :class:`LLMConfig` is a flag (:mod:`causal_datasets.flags`; the field's description is
its help and its default the only one), except ``concurrency``, which the command's own
``--concurrency`` sets. ``--{prefix}model-config FILE`` reads a role's whole setting from a YAML
mapping of the same fields, and flags given beside it win; ``--{prefix}prices``, ``--{prefix}cache-dir``
and ``--{prefix}no-cache`` say how the client prices and caches. A file is read within the limits of
:mod:`causal_datasets.bounded_values` (size, nesting, no YAML aliases, finite numbers, valid text); a value
they or pydantic reject is an ``LLMConfigError`` naming the flag or the file.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from causal_datasets.bounded_values import BadValue, load_yaml, read_options_text
from causal_datasets.errors import LLMConfigError
from causal_datasets.flags import add_flags, dest, flag, flag_problem, given_values
from causal_datasets.llm.client import LLMClient
from causal_datasets.llm.config import LLMConfig, PriceTable, load_price_table

#: response cache file name inside ``--cache-dir``
CACHE_FILE = "llm.sqlite"
DEFAULT_CACHE_DIR = Path(".cache")
#: LLMConfig fields that are no flag of a role: the command's ``--concurrency`` sets them
NOT_FLAGS = ("concurrency",)


def add_model_arguments(
    parser: argparse.ArgumentParser,
    prefix: str = "",
    *,
    purpose: str | None = None,
    omitted: str | None = None,
    exclude: Collection[str] = (),
) -> None:
    """Add ``--{prefix}model``, ``--{prefix}base-url`` … to ``parser`` (see ``spec_from_args``).

    ``purpose`` says what the model is for and ``omitted`` what happens without it (both in the help);
    ``exclude`` names fields the command sets with a flag of its own (e.g. ``build``'s ``--seed``).
    """
    who = f"{prefix.rstrip('-')} " if prefix else ""
    group = parser.add_argument_group(f"{who}model".strip(), purpose)
    model_help = f"{who}model name as the server knows it (omitted: {omitted or f'no {who}model'})"
    add_flags(group, LLMConfig, prefix=prefix, exclude=(*NOT_FLAGS, *exclude), helps={"model": model_help})
    group.add_argument(
        flag("model_config", prefix),
        type=Path,
        metavar="FILE",
        help=f"YAML mapping of this role's settings, the fields of the --{prefix}* flags "
        "(model, base_url, reasoning_effort, extra_body ...); flags given beside it win",
    )
    group.add_argument(
        flag("prices", prefix),
        type=Path,
        metavar="FILE",
        help="JSON/YAML price table {model: {prompt, completion, cache_read}}, USD per 1M tokens "
        "(cache_read: the cached-input price; default the prompt price)",
    )
    group.add_argument(
        flag("cache_dir", prefix),
        type=Path,
        default=DEFAULT_CACHE_DIR,
        metavar="DIR",
        help=f"response cache folder, file {CACHE_FILE} (default .cache)",
    )
    group.add_argument(flag("no_cache", prefix), action="store_true", help="do not read or write the response cache")


def config_from_args(args: argparse.Namespace, prefix: str = "") -> LLMConfig | None:
    """The ``LLMConfig`` the flags (over ``--{prefix}model-config``) describe, or None when they name no model;
    ``LLMConfigError`` naming the flag or file of a value that is not valid."""
    path = getattr(args, dest("model_config", prefix), None)
    from_file = read_model_config(path, prefix) if path is not None else {}
    given = given_values(LLMConfig, args, prefix=prefix, exclude=NOT_FLAGS)
    if not given.get("model") and not from_file.get("model"):
        if path is not None:
            raise _config_error(
                f"{flag('model_config', prefix)} {path}: no model (give model: in the file or {flag('model', prefix)})",
                given,
            )
        return None
    concurrency = {"concurrency": args.concurrency} if getattr(args, "concurrency", None) else {}
    try:
        return LLMConfig.model_validate(concurrency | from_file | given)
    except ValidationError as error:
        problems = []
        for problem in error.errors():
            field = str(problem["loc"][0]) if problem["loc"] else ""
            if field in from_file and field not in given:
                problems.append(f"{flag('model_config', prefix)} {path}: {field}: {problem['msg']}")
            else:
                problems.append(flag_problem(problem, "" if field == "concurrency" else prefix))
        raise _config_error("; ".join(problems), from_file | given) from None


def read_model_config(path: Path, prefix: str = "") -> dict[str, Any]:
    """The mapping of a ``--{prefix}model-config`` YAML file; ``LLMConfigError`` naming the flag and file otherwise."""
    where = f"{flag('model_config', prefix)} {path}"
    try:
        raw = load_yaml(read_options_text(Path(path)))
    except OSError as error:
        raise _config_error(f"{where}: cannot be read ({error.strerror or error})", {}) from None
    except BadValue as error:
        raise _config_error(f"{where}: {error}", {}) from None
    if not isinstance(raw, dict) or not all(isinstance(key, str) for key in raw):
        raise _config_error(
            f"{where}: expected a mapping of LLMConfig fields (model: ..., base_url: ...), got {type(raw).__name__}", {}
        )
    return raw


def _config_error(detail: str, values: dict[str, Any]) -> LLMConfigError:
    return LLMConfigError(detail, model=str(values.get("model") or ""), base_url=str(values.get("base_url") or ""))


@dataclass(frozen=True)
class ModelSpec:
    """How to reach one model: its config, response cache file and price table (a client is made on demand)."""

    config: LLMConfig
    cache_path: Path | None = None
    prices: PriceTable | None = None

    def client(self) -> LLMClient:
        return LLMClient(self.config, cache_path=self.cache_path, prices=self.prices)


def spec_from_args(args: argparse.Namespace, prefix: str = "") -> ModelSpec | None:
    """The :class:`ModelSpec` the flags describe (cache at ``--cache-dir/llm.sqlite`` unless ``--no-cache``),
    or None."""
    config = config_from_args(args, prefix)
    if config is None:
        return None
    value = _reader(args, prefix)
    cache_path = None if value("no_cache") else Path(value("cache_dir")) / CACHE_FILE
    prices = None
    if value("prices"):
        try:
            prices = load_price_table(value("prices"))
        except (OSError, ValueError) as error:
            raise LLMConfigError(
                f"{flag('prices', prefix)}: {error}", model=config.model, base_url=config.endpoint
            ) from None
    return ModelSpec(config, cache_path=cache_path, prices=prices)


def client_from_args(args: argparse.Namespace, prefix: str = "") -> LLMClient | None:
    """An ``LLMClient`` from the flags (see :func:`spec_from_args`), or None when no model was given."""
    spec = spec_from_args(args, prefix)
    return spec.client() if spec is not None else None


def _reader(args: argparse.Namespace, prefix: str):
    return lambda name: getattr(args, dest(name, prefix))


def judge_client(
    metric: str,
    model: str | None,
    base_url: str,
    *,
    cache_path: str | Path | None = None,
    settings: Mapping[str, Any] | None = None,
    **config: Any,
) -> LLMClient:
    """The judge client of an ``evaluate`` module's ``compute(judge_model=..., judge_base_url=..., ...)``.

    ``config`` holds the module's other ``judge_*`` arguments as ``LLMConfig`` fields (api_key_env,
    max_tokens, temperature, seed, timeout); ``settings`` (its ``judge_config``) any further fields,
    winning over them (reasoning_effort, extra_body, max_completion_tokens ...).
    """
    if not model:
        raise ValueError(f"{metric} needs judge_model=... (and judge_base_url for a non-OpenAI endpoint)")
    fields = {"model": model, "base_url": base_url, **config, **dict(settings or {})}
    return LLMClient(LLMConfig(**fields), cache_path=Path(cache_path) if cache_path else None)
