"""A chat model as a CausaLab agent: the prompts of :mod:`~causal_datasets.causalab.prompts`, one
DSL step per reply, read by :class:`~causal_datasets.causalab.env.ChatProtocol` (the environment's own
protocol): a reply with no readable step is asked again (``reask`` times, each counted in the step's
``info``); optional verification before each submission."""

from __future__ import annotations

from dataclasses import dataclass, field

from causal_datasets.causalab.env import ChatProtocol
from causal_datasets.causalab.episode import AgentFailure, AgentStep, LabView
from causal_datasets.causalab.prompts import build_messages, feedback_message
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
        protocol = ChatProtocol(reask=self.reask, verify=self.verify)
        if not self.opening:
            self.opening = build_messages(self.episode)
            prompt: dict[str, str] | None = None
            protocol.start(self.opening)
        else:
            prompt = {"role": "user", "content": feedback_message(view)}
            protocol.start(prompt["content"])
        answer = protocol.receive(self._ask(prompt))
        while isinstance(answer, str):
            answer = protocol.receive(self._ask({"role": "user", "content": answer}))
        return answer

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
