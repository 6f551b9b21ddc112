"""A chat model playing CausaLab: the environment :class:`~causal_datasets.causalab.env.CausaLabEnv` (the
one the RL integrations step) stepped with the model's replies, so ``eval`` and a trainer send the same
prompts: one DSL step per reply, parsed tolerantly; a reply with no readable step is asked again (``reask``
times, each counted in the step's ``info``); optional verification before each submission. The model may
be sent only the last ``history`` exchanges after the opening messages."""

from __future__ import annotations

from dataclasses import dataclass

from causal_datasets.causalab.env import CausaLabEnv, Message
from causal_datasets.causalab.episode import EpisodeResult
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.llm import LLMError
from causal_datasets.llm.chat import ChatClient


@dataclass
class ChatAgent:
    """Plays ``episode`` with the model behind ``client``; each step's ``info`` keeps the prompt it answered
    (the opening messages on the first step)."""

    client: ChatClient
    episode: CausaLabEpisode
    verify: bool = False
    history: int | None = None
    reask: int = 1

    @property
    def name(self) -> str:
        return f"model:{self.client.config.model}"

    def play(self, *, max_turns: int | None = None) -> EpisodeResult:
        """The whole episode; never raises for what the model replies. A failed call (``LLMError``) ends it as
        ``llm_error``, any other exception as ``agent_error``; the steps so far are kept either way."""
        env = CausaLabEnv(self.episode, max_turns=max_turns, reask=self.reask, verify=self.verify)
        opening = len(env.messages)
        while not env.done:
            try:
                reply = self.client.chat(window(env.messages, opening, self.history)).text
            except LLMError as error:
                env.fail("llm_error", f"{type(error).__name__}: {error}")
            except Exception as error:  # a client's own bug ends only this episode, steps kept
                env.fail("agent_error", f"{type(error).__name__}: {error}")
            else:
                env.step(reply)
        return env.result()


def window(messages: list[Message], opening: int, history: int | None) -> list[Message]:
    """What the model is sent: the ``opening`` messages, the last ``history`` exchanges (a reply with the prompt
    it answered; the first reply answered the opening) and the prompt to answer now (all of it when None)."""
    if history is None:
        return list(messages)
    later = messages[opening:]
    pending, answered = later[-1:], later[:-1]
    exchanges = [answered[:1], *(answered[i : i + 2] for i in range(1, len(answered), 2))] if answered else []
    recent = exchanges[-history:] if history > 0 else []
    return [*messages[:opening], *(m for exchange in recent for m in exchange), *pending]
