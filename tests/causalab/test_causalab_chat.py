"""The chat-model agent with a scripted client: the messages it sends, the verification step, the
history window, and an endpoint failure classified as ``llm_error``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace

from causal_datasets.causalab.llm_agent import ChatAgent
from causal_datasets.causalab.prompts import VERIFICATION_PROMPT, build_messages
from causal_datasets.causalab.upstream import load_suite
from causal_datasets.llm import LLMTimeout
from tests.causalab.data import RELEASE


@dataclass
class ScriptedClient:
    """Answers with fixed replies in order and records every conversation it was sent."""

    replies: list
    config: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(model="scripted"))
    sent: list = field(default_factory=list)

    def chat(self, messages):
        self.sent.append([dict(m) for m in messages])
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return SimpleNamespace(text=reply)


def step(action: str, **extra) -> str:
    hypothesis = {
        "edges": [{"from": "density", "to": "resonanceFreq"}],
        "freq_equation": "resonanceFreq = base",
        "coefficients": {"base": 1},
    }
    return json.dumps(
        {"memory": "m", "thought": "t", "past_data": [], "hypothesis": hypothesis, "action": action, **extra}
    )


def test_opening_messages_are_a_pure_function_of_the_record():
    episode = load_suite(RELEASE, "4nodes")[0]
    messages = build_messages(episode)
    assert messages == build_messages(episode)
    assert [m["role"] for m in messages] == ["system", "user"]
    system, user = messages[0]["content"], messages[1]["content"]
    assert "12 adjustments" in system and "5 Hz" in system and '"freq_equation"' in system
    for record in episode.prior_records:
        assert f"resonanceFreq={record.frequency}" in user
    reactor = {p.name: p.value for p in episode.reactor_properties}
    assert json.dumps(reactor) in user and str(episode.reactor_frequency) not in user.split("Reactor crystal")[1]


def test_quadratic_and_freqparent_episodes_get_their_own_instructions():
    quad = build_messages(load_suite(RELEASE, "4nodes_quad_hard")[0])[0]["content"]
    assert "c_<P>_1" in quad and "c_<P>_2" in quad
    parent = build_messages(load_suite(RELEASE, "4nodes_freqparent")[0])[0]["content"]
    assert "may itself influence" in parent


def test_a_scripted_episode_with_verification_and_a_history_window():
    episode = load_suite(RELEASE, "4nodes")[0]
    truth = episode.reactor_frequency
    replies = [
        step("intervene", experiment={"target_prop": "density", "target_value": 50}),
        "I am not sure.",  # unreadable: reported back, the episode goes on
        step("submit", prediction=truth + 40),  # verification follows every submit
        step("submit", prediction=truth + 1),  # the revised step replaces it
    ]
    client = ScriptedClient(list(replies))
    result = ChatAgent(client, episode, verify=True, history=1, reask=0).play()
    assert result.outcome == "solved" and result.predictions == [truth + 1]
    assert [s["event"]["kind"] for s in result.steps] == ["reading", "invalid_step", "submission"]
    assert result.steps[2]["info"]["verification"]["before"] == replies[2]
    assert result.steps[0]["info"]["prompt"] == build_messages(episode)
    assert result.steps[1]["info"]["prompt"] == client.sent[1][-1]["content"]
    assert client.sent[3][-1]["content"] == VERIFICATION_PROMPT
    assert len(client.sent[2]) == 2 + 2 + 1  # opening, one earlier exchange, the new feedback
    assert "Manipulator crystal after the adjustment" in client.sent[1][-1]["content"]
    assert "not carried out" in client.sent[2][-1]["content"]


def test_an_endpoint_failure_ends_the_episode_as_llm_error():
    episode = load_suite(RELEASE, "3nodes")[0]
    client = ScriptedClient(
        [
            step("intervene", experiment={"target_prop": episode.controllable[0], "target_value": 1}),
            LLMTimeout("no answer in 60 s", kind="timeout"),
        ]
    )
    result = ChatAgent(client, episode).play()
    assert result.outcome == "llm_error" and "LLMTimeout" in result.error and len(result.steps) == 1


def test_an_unreadable_reply_is_asked_again_and_counted():
    episode = load_suite(RELEASE, "4nodes")[0]
    truth = episode.reactor_frequency
    replies = ["Let me think about density first.", step("submit", prediction=truth)]
    client = ScriptedClient(list(replies))
    result = ChatAgent(client, episode).play()
    assert result.outcome == "solved" and result.reasks == 1 and result.invalid_steps == 0
    (only,) = result.steps
    assert only["info"]["reasks"] == 1 and only["info"]["unreadable"][0]["reply"] == replies[0]
    assert "could not be read" in client.sent[1][-1]["content"] and client.sent[1][-2]["content"] == replies[0]


def test_re_asks_are_bounded_and_an_unreadable_step_is_reported_after_them():
    episode = load_suite(RELEASE, "3nodes")[0]
    client = ScriptedClient(["no json", "still none", "nothing", step("stop")])
    result = ChatAgent(client, episode, reask=2).play()
    assert [s["event"]["kind"] for s in result.steps] == ["invalid_step", "stopped"]
    assert result.reasks == 2 and result.invalid_steps == 1 and len(client.sent) == 4
