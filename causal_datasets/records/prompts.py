"""Chat rows of the training-ready ``prompts`` configs (TRL's conversational prompt-only type).

Every ``prompts`` config has one row per benchmark item: ``prompt`` is the request the model
answers (a list of ``{role, content}`` dicts once loaded: TRL's conversational ``prompt`` column,
which ``GRPOTrainer`` reads as it is) and ``reference`` the reference answer as text in the format
the prompt asks for. Subclasses add the columns the benchmark's reward function reads and its slice
fields (ReCAST's in :mod:`causal_datasets.recast.records`, and so on).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from causal_datasets.records.base import Record

ROLES = ("system", "user", "assistant")


class ChatMessage(Record):
    """A chat turn. ``role`` is a plain string column (not a class label), so a loaded row is
    ``{"role": "user", ...}`` as chat templates expect; it is still checked against :data:`ROLES`."""

    role: str = Field(description="Who speaks: `system`, `user` or `assistant`.")
    content: str = Field(description="The text of the turn.")

    @field_validator("role")
    @classmethod
    def _known_role(cls, role: str) -> str:
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, got {role!r}")
        return role


class PromptRow(Record):
    """One item's request and its reference answer."""

    id: str = Field(
        description="Id of the item the request asks about (with the prompt variant, when there are several)."
    )
    prompt: list[ChatMessage] = Field(
        description="The request the model answers, as chat turns: TRL's conversational `prompt` column."
    )
    reference: str = Field(description="The reference answer, written in the format the request asks for.")


def chat_messages(messages: list[dict[str, str]]) -> list[ChatMessage]:
    """Typed messages from a runner's ``[{"role", "content"}, ...]`` list."""
    return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]
