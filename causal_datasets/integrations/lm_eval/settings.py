"""A model's settings (:class:`~causal_datasets.llm.config.LLMConfig`) as lm-eval's ``--gen_kwargs``.

lm-eval's ``local-chat-completions`` builds the request body from the generation kwargs:
``max_gen_toks`` becomes ``max_tokens``, ``temperature`` stays, and every other key is copied into
the body as is. So ``causal-datasets eval``'s ``--max-tokens`` (or ``--max-completion-tokens``),
``--temperature``, ``--reasoning-effort`` and ``--extra-body`` (a server's own switches such as
``chat_template_kwargs``) map to these keys, and the seed to ``--model_args ...,seed=N``.
"""

from __future__ import annotations

from typing import Any

from causal_datasets.llm.config import LLMConfig


def gen_kwargs(config: LLMConfig) -> dict[str, Any]:
    """The ``--gen_kwargs`` (a JSON object lm-eval accepts as is) that make lm-eval send ``config``'s request fields."""
    kwargs: dict[str, Any] = {"max_gen_toks": config.completion_limit, "temperature": config.temperature}
    if config.reasoning_effort is not None:
        kwargs["reasoning_effort"] = config.reasoning_effort
    return kwargs | config.extra_body
