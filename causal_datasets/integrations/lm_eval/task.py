"""lm-eval's task class for the ``prompts`` configs: each request is the row's ``prompt`` messages, exactly.

lm-eval builds a chat request from a description, few-shot turns and ``doc_to_text``, joined with
delimiters; the benchmarks' requests are already whole conversations (CLadder's carries a worked
example as a user/assistant pair), so :class:`PromptsTask` hands the row's messages to the model's
chat template unchanged instead. It needs ``--apply_chat_template``; ``--system_instruction`` is
refused (it would replace the benchmark's system message), and the YAMLs pin ``num_fewshot: 0``
(lm-eval then ignores ``--num_fewshot``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lm_eval.api.task import ConfigurableTask  # type: ignore[import-untyped]

from causal_datasets.errors import RunConfigurationError


class PromptsTask(ConfigurableTask):
    """A ``generate_until`` task whose context is ``doc["prompt"]`` (chat messages) through the chat template."""

    def __init__(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        # lm-eval hands a ``class:`` task its whole YAML; the class key is not a TaskConfig field
        super().__init__(config={key: value for key, value in (config or {}).items() if key != "class"}, **kwargs)

    def fewshot_context(
        self,
        doc: Mapping[str, Any],
        num_fewshot: int,
        system_instruction: str | None = None,
        apply_chat_template: bool = False,
        fewshot_as_multiturn: bool = False,
        chat_template: Callable[..., Any] | None = None,
        gen_prefix: str | None = None,
    ) -> Any:
        """The row's messages rendered by the model's chat template (an API model sends them as they are)."""
        if not apply_chat_template or chat_template is None:
            raise RunConfigurationError(
                f"{self.config.task} sends the dataset's chat messages: run lm_eval with --apply_chat_template"
            )
        if system_instruction:
            raise RunConfigurationError(
                f"{self.config.task}: --system_instruction would replace the benchmark's "
                "own system message; leave it out"
            )
        return chat_template([dict(message) for message in doc["prompt"]])


def final_user_message(doc: Mapping[str, Any]) -> str:
    """The last user turn: lm-eval's ``doc_to_text`` (what its logs show; the request carries every message)."""
    return next(m["content"] for m in reversed(doc["prompt"]) if m["role"] == "user")
