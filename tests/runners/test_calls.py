"""An item's transcript: every request kept (a continued conversation by its new messages only, whole again on
reading), and the recorded replies served again by request when a run is rescored."""

from __future__ import annotations

import pytest

from causal_datasets.errors import LLMTimeout, NotInTranscript
from causal_datasets.llm.chat import ChatResult
from causal_datasets.runners.calls import CallLog, RecordingClient, ReplayClient, full_messages
from causal_datasets.runners.records import ModelCall


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def said(text: str) -> dict:
    return {"role": "assistant", "content": text}


class Scripted:
    """A chat client answering from a list, or failing; its settings echo the call's overrides."""

    def __init__(self, *replies: str | Exception, model: str = "m"):
        self.replies, self.model, self.asked = list(replies), model, []

    @property
    def config(self):
        return self

    def request_settings(self, **overrides):
        return {"model": self.model, **overrides}

    def chat(self, messages, **overrides):
        self.asked.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return ChatResult(text=reply, prompt_tokens=1, completion_tokens=1, cached=False, attempts=1, model=self.model)


def test_a_continued_conversation_keeps_its_new_messages_and_reads_back_whole():
    log = CallLog()
    model = RecordingClient("model", Scripted("r1", "r2", "r3", "r4"), log)
    judge = RecordingClient("judge", Scripted("v1", LLMTimeout("slow", kind="timeout")), log)
    requests = [[user("u1")], [user("u1"), said("r1"), user("u2")]]
    for request in requests:
        model.chat(request)
    judge.chat([user("judge this")])
    requests.append([user("u1"), said("r1"), user("u2"), said("r2"), user("u3")])
    model.chat(requests[-1])
    requests.append([user("u1"), said("another r1"), user("u2")])  # not what was said: kept whole
    model.chat(requests[-1])
    with pytest.raises(LLMTimeout):
        judge.chat([user("judge this"), said("v1"), user("again")])
    calls = log.calls()
    assert [(c.role, c.continues, len(c.messages)) for c in calls] == [
        ("model", None, 1),
        ("model", 1, 1),
        ("judge", None, 1),
        ("model", 2, 1),
        ("model", None, 3),
        ("judge", 3, 1),
    ]
    assert (calls[-1].reply, calls[-1].category) == (None, "timeout")
    whole = full_messages(calls)
    assert [whole[i] for i in (0, 1, 3, 4)] == requests
    assert whole[5] == [user("judge this"), said("v1"), user("again")]
    assert full_messages([ModelCall.model_validate(c.model_dump(mode="json")) for c in calls]) == whole


def test_replay_serves_recorded_replies_by_request_and_asks_a_live_model_only_for_the_rest():
    recorded = CallLog()
    judge = RecordingClient("judge", Scripted("yes", "no"), recorded)
    judge.chat([user("a")], temperature=0)
    judge.chat([user("a"), said("yes"), user("sure?")], temperature=0)
    transcript = recorded.calls()

    log = CallLog()
    replay = ReplayClient("judge", transcript, log)
    assert replay.chat([user("a"), said("yes"), user("sure?")], temperature=0).text == "no"
    assert replay.chat([user("a")], temperature=0).text == "yes" and replay.served == 2
    with pytest.raises(NotInTranscript, match="its last message: 'b'"):
        replay.chat([user("b")])
    assert [c.reply for c in log.calls()] == ["no", "yes"]

    live = Scripted("fresh", "other model", model="m")
    same = ReplayClient("judge", transcript, CallLog(), live)
    assert same.chat([user("a")], temperature=0).text == "yes" and not live.asked  # same request, same settings
    assert same.chat([user("b")], temperature=0).text == "fresh" and live.asked == [[user("b")]]
    other = ReplayClient("judge", transcript, CallLog(), Scripted("anew", model="another-judge"))
    assert other.chat([user("a")], temperature=0).text == "anew"  # another judge is asked anew
