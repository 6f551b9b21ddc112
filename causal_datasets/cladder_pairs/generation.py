"""Generation (``solve``): the model's reply to a question and, with ``--feedback-rounds``, the feedback
loop (DoVerifier §4.3, App. H). The graph checks use the answer and a graph alone; only ``--feedback oracle``
asks the reference, under the run's rule, whether to go on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from causal_datasets.cladder_pairs import estimand_task, paper_task
from causal_datasets.cladder_pairs.feedback import Finding, diagnose, feedback_message
from causal_datasets.cladder_pairs.options import CladderOptions
from causal_datasets.cladder_pairs.records import CladderQuestionRow
from causal_datasets.cladder_pairs.replies import ESTIMAND_FORMAT, Reply, is_credited, read_reply, request, score_reply
from causal_datasets.docalc.scoring_rules import ScoringRule
from causal_datasets.llm.chat import ChatClient
from causal_datasets.runners.task import Item, TaskContext


class FeedbackRound(BaseModel):
    """One feedback round as generated: what the checks found (under which graph) and the message sent."""

    number: int
    graph: Literal["true", "generated"] = Field(description="the graph the checks used: the question's or the model's")
    findings: list[dict[str, Any]]
    message: str


class CladderGeneration(BaseModel):
    """What the feedback loop did beyond its calls (the replies are the model's calls, in order)."""

    feedback: list[FeedbackRound] = Field(default_factory=list, description="the rounds given, in order")
    feedback_stop: str | None = Field(default=None, description="nothing_to_correct, accepted or rounds_used")
    feedback_rule: ScoringRule | None = Field(
        default=None, description="with --feedback oracle: the rule whose verdict decided whether to go on"
    )


def solve(item: Item, context: TaskContext) -> CladderGeneration:
    """The model's reply to the question and, with ``--feedback-rounds``, its revisions."""
    q: CladderQuestionRow = item.row
    options: CladderOptions = context.options
    messages = request(q, options)
    model = context.clients["model"]
    first = read_reply(model.chat(messages).text, q, options)  # an LLMError makes the item failed
    if not options.feedback_rounds:
        return CladderGeneration()
    oracle = options.feedback == "oracle"

    def check(reply: Reply) -> tuple[list[Finding], str] | None:
        if oracle and is_credited(score_reply(reply, q, options), options.rule):
            return None
        return graph_checks(reply, q, options)

    answer_format = paper_task.ANSWER_FORMAT if options.prompt == "paper" else ESTIMAND_FORMAT
    rounds, stopped = feedback_rounds(
        model,
        messages,
        first,
        options.feedback_rounds,
        lambda raw: read_reply(raw, q, options),
        check,
        answer_format,
        graph_only=not oracle,
    )
    return CladderGeneration(
        feedback=[
            FeedbackRound(number=r.number, graph=r.graph, findings=[f.to_dict() for f in r.findings], message=r.message)
            for r in rounds
        ],
        feedback_stop=stopped,
        feedback_rule=options.rule if oracle else None,
    )


def graph_checks(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> tuple[list[Finding], str]:
    """App. H's checks of a reply: the findings from the answer and the graph alone — the model's own
    graph with the paper's prompt (the question's when the model gave none) — and which graph that was."""
    own = reply.graph if options.prompt == "paper" else None
    graph = own if own is not None else estimand_task.question_graph(q)
    return diagnose(reply.expression, graph, query_type=q.query_type), "true" if own is None else "generated"


@dataclass(frozen=True)
class GivenRound:
    """One round: what the checks found, the message sent, the model's revised reply."""

    number: int
    findings: list[Finding]
    graph: str
    message: str
    reply: Reply


def feedback_rounds(
    model: ChatClient,
    messages: list[dict[str, str]],
    first: Reply,
    rounds: int,
    read: Callable[[str], Reply],
    check: Callable[[Reply], tuple[list[Finding], str] | None],
    answer_format: str,
    *,
    graph_only: bool,
) -> tuple[list[GivenRound], str]:
    """Up to ``rounds`` rounds of feedback after ``first``: ``check`` gives a reply's findings (None:
    no feedback for it); each round sends them as the next user turn and reads the model's revision.
    Returns the rounds and why they stopped (``nothing_to_correct``, ``accepted`` or ``rounds_used``)."""
    conversation = [*messages, {"role": "assistant", "content": first.raw}]
    done: list[GivenRound] = []
    reply = first
    for number in range(1, rounds + 1):
        checked = check(reply)
        if checked is None or (graph_only and not checked[0]):
            return done, "nothing_to_correct" if graph_only else "accepted"
        findings, graph = checked
        message = feedback_message(findings, answer_format, graph_only=graph_only)
        conversation.append({"role": "user", "content": message})
        raw = model.chat(conversation).text
        conversation.append({"role": "assistant", "content": raw})
        reply = read(raw)
        done.append(GivenRound(number, findings, graph, message, reply))
    return done, "rounds_used"
