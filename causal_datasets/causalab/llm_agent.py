"""A chat model as a CausaLab agent: the prompts of :mod:`~causal_datasets.causalab.prompts`, one
DSL step per reply, parsed tolerantly; a reply with no readable step is asked again (``reask``
times, each counted in the step's ``info``); optional verification before each submission."""

from __future__ import annotations

from dataclasses import dataclass, field

from causal_datasets.causalab.dsl import parse_step
from causal_datasets.causalab.episode import AgentFailure, AgentStep, LabView
from causal_datasets.causalab.prompts import (
    VERIFICATION_PROMPT,
    build_messages,
    feedback_message,
    reask_message,
)
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.llm import LLMError
from causal_datasets.llm.chat import ChatClient


@dataclass
class ChatAgent:
    """Sends the conversation (opening messages + the last ``history`` exchanges) to the model; each
    step's ``info`` keeps the prompt it answered (the opening messages on the first step)."""

    client: ChatClient
    episode: CausaLabEpisode
    verify: bool = False
    history: int | None = None
    reask: int = 1
    opening: list[dict[str, str]] = field(default_factory=list)
    exchanges: list[list[dict[str, str]]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"model:{self.client.config.model}"

    def act(self, view: LabView) -> AgentStep:
        if not self.opening:
            self.opening = build_messages(self.episode)
            prompt: dict[str, str] | None = None
        else:
            prompt = {"role": "user", "content": feedback_message(view)}
        reply = self._ask(prompt)
        parsed = parse_step(reply)
        info: dict[str, object] = {"prompt": prompt["content"] if prompt else self.opening}
        unreadable: list[dict[str, str | None]] = []
        while parsed.step is None and len(unreadable) < self.reask:
            unreadable.append({"reply": reply, "error": parsed.error})
            reply = self._ask({"role": "user", "content": reask_message(parsed.error or "no step")})
            parsed = parse_step(reply)
        if unreadable:
            info |= {"reasks": len(unreadable), "unreadable": unreadable}
        if self.verify and parsed.step is not None and parsed.step.action == "submit":
            first = reply
            reply = self._ask({"role": "user", "content": VERIFICATION_PROMPT})
            revised = parse_step(reply)
            info["verification"] = {"before": first, "after": reply, "revised_parse_error": revised.error}
            if revised.step is not None:
                parsed = revised
        return AgentStep(step=parsed.step, raw=reply, error=parsed.error, warnings=parsed.warnings, info=info)

    def _ask(self, prompt: dict[str, str] | None) -> str:
        if self.history is None:
            recent = self.exchanges
        else:
            recent = self.exchanges[-self.history :] if self.history > 0 else []
        messages = [*self.opening, *(m for exchange in recent for m in exchange)]
        if prompt is not None:
            messages.append(prompt)
        try:
            text = self.client.chat(messages).text
        except LLMError as error:
            raise AgentFailure(f"{type(error).__name__}: {error}") from error
        self.exchanges.append(([prompt] if prompt else []) + [{"role": "assistant", "content": text}])
        return text
