"""The single OpenAI-compatible chat client used by every judge and runner.

>>> from causal_datasets.llm import LLMConfig, LLMClient
>>> client = LLMClient(LLMConfig(model="m", base_url="http://127.0.0.1:8080/v1"), cache_path=Path(".cache/llm.sqlite"))
>>> client.chat([{"role": "user", "content": "hi"}]).text

Modules: ``chat`` (the ChatClient protocol every model satisfies, ChatResult), ``config`` (LLMConfig,
prices), ``client`` (LLMClient), ``errors``, ``retry`` (policy), ``cache`` (SQLite), ``usage``,
``concurrency`` (map_concurrent), ``thinking`` (``<think>`` sections), ``structured`` (JSON/YAML
answers with repair), ``options`` (CLI flags), ``local`` (the bundled SmolLM2 llama.cpp server),
``stub_server`` (a scriptable local endpoint for tests and benchmarks).
"""

from causal_datasets.errors import (
    LLMConfigError,
    LLMError,
    LLMRequestError,
    LLMRetriesExhausted,
    LLMTimeout,
)
from causal_datasets.llm.chat import ChatClient, ChatResult
from causal_datasets.llm.client import LLMClient
from causal_datasets.llm.config import LLMConfig, ModelPrice, PriceTable, load_price_table

__all__ = [
    "ChatClient",
    "ChatResult",
    "LLMClient",
    "LLMConfig",
    "LLMConfigError",
    "LLMError",
    "LLMRequestError",
    "LLMRetriesExhausted",
    "LLMTimeout",
    "ModelPrice",
    "PriceTable",
    "load_price_table",
]
