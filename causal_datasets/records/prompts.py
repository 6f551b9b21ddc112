"""Chat rows of the training-ready ``prompts`` configs (TRL's conversational prompt-only type).

Every ``prompts`` config has one row per benchmark item: ``prompt`` is the request the model
answers (a list of ``{role, content}`` dicts once loaded: TRL's conversational ``prompt`` column,
which ``GRPOTrainer`` reads as it is) and ``reference`` the reference answer as text in the format
the prompt asks for. Subclasses add the columns the benchmark's reward function reads and its slice
fields.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from causal_datasets.recast.records import Domain
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


class RecastPromptRow(PromptRow):
    """A ReCAST paper's generation request in one prompt variant; ``reference`` is the ground-truth
    graph as the JSON code block that variant asks for (node names, or node ids when name-assisted)."""

    sample_id: int = Field(description="The `id` of the sample in the `default` config.")
    variant: Literal["standard", "name_assisted"] = Field(
        description="Prompt variant: `standard` (the model names the variables and is told how many there are) or "
        "`name_assisted` (the model gets the ground-truth node names with integer ids and answers with ids)."
    )
    domains: list[Domain] = Field(description="The sample's domain categories (slice).")
    num_nodes: int = Field(description="Nodes of the ground-truth diagram (slice).")
    num_edges: int = Field(description="Edges of the ground-truth diagram, repeats included (slice).")
    confounding_lenient: float | None = Field(description="The sample's lenient degree of confounding (slice).")
    confounding_strict: float | None = Field(description="The sample's strict degree of confounding (slice).")


def chat_messages(messages: list[dict[str, str]]) -> list[ChatMessage]:
    """Typed messages from a runner's ``[{"role", "content"}, ...]`` list."""
    return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]
