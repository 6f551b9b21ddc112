"""The chat-model policy: every turn sends the whole conversation so far to an OpenAI-compatible model."""

from __future__ import annotations

from causal_datasets.llm import LLMError
from causal_datasets.llm.chat import ChatClient
from causal_datasets.shapeworld.episode import PolicyFailure, Turn


class ChatPolicy:
    """Answers a turn with the model's reply to ``turn.messages``; an ``LLMError`` becomes :class:`PolicyFailure`."""

    def __init__(self, client: ChatClient):
        self.client = client

    def respond(self, turn: Turn) -> str:
        try:
            return self.client.chat(list(turn.messages)).text
        except LLMError as error:
            raise PolicyFailure(f"{type(error).__name__}: {error}") from error
