"""CausaLab as an environment: reset to an episode, step with the model's message, get the next prompt back.

:class:`ChatProtocol` reads a model's replies as DSL steps, exactly as ``causal-datasets eval causalab``
does with a model: a reply with no readable step is asked again (``reask`` times), a submission is checked
first when ``verify`` is on. :class:`CausaLabEnv` is the episode's
:class:`~causal_datasets.causalab.episode.LabSession` (the one loop every agent goes through) with that
protocol on top, stepped one message at a time: ``eval`` plays a model's episodes through it
(:class:`~causal_datasets.causalab.llm_agent.ChatAgent`), and so do the trainers
(:mod:`causal_datasets.integrations.trl_env`, :mod:`causal_datasets.integrations.verl_interaction`): the
same opening messages and prompts, byte for byte, the same steps, step limit (budget + submissions + 8
turns) and record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from causal_datasets.causalab.dsl import ParsedStep, parse_step
from causal_datasets.causalab.episode import AgentStep, LabSession
from causal_datasets.causalab.prompts import VERIFICATION_PROMPT, build_messages, feedback_message, reask_message
from causal_datasets.causalab.records import CausaLabEpisode

Message = dict[str, str]


@dataclass
class ChatProtocol:
    """One step's exchange with a chat model: :meth:`start` with the prompt the step answers, then
    :meth:`receive` each reply until it returns the finished :class:`AgentStep` (before that, it returns
    the next user message: a re-ask or the verification request)."""

    reask: int = 1
    verify: bool = False
    _info: dict[str, Any] = field(default_factory=dict)
    _unreadable: list[dict[str, str | None]] = field(default_factory=list)
    _before: tuple[str, ParsedStep] | None = None

    def start(self, prompt: str | list[Message]) -> None:
        """A new step, answering ``prompt`` (the opening messages on the first step)."""
        self._info, self._unreadable, self._before = {"prompt": prompt}, [], None

    def receive(self, reply: str) -> str | AgentStep:
        """The model's ``reply``: the next user message of this step, or the step it finished."""
        if self._before is not None:
            first, parsed = self._before
            revised = parse_step(reply)
            self._info["verification"] = {"before": first, "after": reply, "revised_parse_error": revised.error}
            return self._finished(revised if revised.step is not None else parsed, reply)
        parsed = parse_step(reply)
        if parsed.step is None and len(self._unreadable) < self.reask:
            self._unreadable.append({"reply": reply, "error": parsed.error})
            return reask_message(parsed.error or "no step")
        if self._unreadable:
            self._info |= {"reasks": len(self._unreadable), "unreadable": self._unreadable}
        if self.verify and parsed.step is not None and parsed.step.action == "submit":
            self._before = (reply, parsed)
            return VERIFICATION_PROMPT
        return self._finished(parsed, reply)

    def _finished(self, parsed: ParsedStep, reply: str) -> AgentStep:
        return AgentStep(step=parsed.step, raw=reply, error=parsed.error, warnings=parsed.warnings, info=self._info)


class CausaLabEnv(LabSession):
    """One CausaLab episode for a chat model: :meth:`reset` gives the opening messages, :meth:`step` takes
    the model's reply and gives the next user message (None once the episode is over), ``messages`` the
    whole conversation and :meth:`result` the episode's record, as ``eval`` keeps it."""

    def __init__(self, episode: CausaLabEpisode, *, max_turns: int | None = None, reask: int = 1, verify: bool = False):
        self.protocol = ChatProtocol(reask=reask, verify=verify)
        self.turn_limit = max_turns
        self.reset(episode)

    def reset(self, episode: CausaLabEpisode | None = None) -> list[Message]:
        """Start ``episode`` (or the current one) again; the opening messages, exactly as ``eval`` sends them."""
        super().__init__(episode or self.episode, max_turns=self.turn_limit)
        opening = build_messages(self.episode)
        self.protocol.start(opening)
        self.messages: list[Message] = list(opening)
        return list(opening)

    def step(self, reply: str) -> str | None:
        """Take the model's reply to the current prompt; the next prompt, or None when the episode ended."""
        if self.done:
            raise RuntimeError("the episode is over: reset the environment first")
        self.messages.append({"role": "assistant", "content": reply})
        answer = self.protocol.receive(reply)
        if isinstance(answer, AgentStep):
            self.apply(answer)
            if self.done:
                return None
            answer = feedback_message(self.view)
            self.protocol.start(answer)
        self.messages.append({"role": "user", "content": answer})
        return answer
