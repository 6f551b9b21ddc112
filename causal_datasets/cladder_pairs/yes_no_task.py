"""``causal-datasets eval cladder_yes_no``: CLadder's own yes/no questions (the ``yes_no_prompts`` config of
``cladder_pairs``), scored as the CLadder paper scores them (accuracy overall, by rung and by query type).

Each question's request (:func:`~causal_datasets.cladder_pairs.yes_no.build_messages`: CLadder's story, data
and question, then a request for an ``Answer: yes`` / ``Answer: no`` line) is sent as built; the reply's
final yes/no is read by :func:`~causal_datasets.cladder_pairs.yes_no.cladder_answer` and compared with
CLadder's answer. A reply with no readable yes/no is an error category (``empty_reply``, ``no_answer``), scored
wrong. Intervals are clustered by CLadder causal model (story, graph and probabilities), as in
``eval cladder_pairs``; the cluster is read from the ``questions`` config by id.

A task of its own rather than a config of the ``cladder_pairs`` task: :class:`~causal_datasets.runners.task.Task`
has one scores, metrics and options model, and the estimand task's (verifier verdicts, judge, feedback) say
nothing about a yes/no answer.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from causal_datasets.cladder_pairs.metrics import SLICES
from causal_datasets.cladder_pairs.records import CladderQuestionRow, CladderYesNoPromptRow
from causal_datasets.cladder_pairs.yes_no import cladder_answer
from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm.structured import strip_thinking
from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import Estimates, Item, NoGeneration, Scored, Task, TaskContext, Transcript

CONFIG = "yes_no_prompts"
YesNoError = Literal["empty_reply", "no_answer"]


@dataclass(frozen=True)
class YesNoQuestion:
    """One ``yes_no_prompts`` row with the CLadder causal model its question is about (the interval's cluster)."""

    row: CladderYesNoPromptRow
    causal_model: str


class YesNoScores(BaseModel):
    """One reply: the yes/no read from it (or why none could be), against CLadder's answer."""

    rung: int = Field(description="rung of the question (1 association, 2 intervention, 3 counterfactual)")
    query_type: str = Field(description="CLadder's query type")
    graph_id: str = Field(description="CLadder's graph family")
    reference: Literal["yes", "no"] = Field(description="CLadder's answer")
    answer: Literal["yes", "no"] | None = Field(description="the reply's final yes/no; None when unreadable")
    error: YesNoError | None = Field(
        description="why no yes/no was read: empty_reply (nothing outside <think>), no_answer (no single final "
        "yes/no: none, both, or arithmetic on it)"
    )
    correct: bool = Field(description="the answer equals CLadder's (an unreadable reply is wrong)")


class CladderYesNoMetrics(BenchmarkMetrics):
    """The CLadder paper's headline row: accuracy overall (slices: by rung, query type and graph family)."""

    benchmark: Literal["cladder_yes_no"] = "cladder_yes_no"
    count: int = Field(title="questions")
    accuracy: float = Field(title="accuracy", description="share of replies whose yes/no equals CLadder's answer")
    yes_share: float = Field(title="answered yes", description="share of replies whose final answer is yes")
    reference_yes_share: float = Field(title="CLadder yes", description="share of questions CLadder answers yes")
    errors: dict[str, int] = Field(title="unreadable replies", description="replies with no yes/no, by category")


def items(context: TaskContext) -> list[Item]:
    """Every ``yes_no_prompts`` row, with its causal model from the ``questions`` row of the same id (a
    :class:`RunConfigurationError` when that row is missing: the two configs come from different builds)."""
    models = {q.id: q.causal_model for q in context.rows("questions", CladderQuestionRow)}
    rows = context.rows(CONFIG, CladderYesNoPromptRow)
    missing = [row.id for row in rows if row.id not in models]
    if missing:
        raise RunConfigurationError(
            f"cladder_pairs: {len(missing)} {CONFIG} rows have no questions row (first {missing[0]!r}): rebuild it"
        )
    return [Item(row.id, CONFIG, YesNoQuestion(row, models[row.id])) for row in rows]


def solve(item: Item, context: TaskContext) -> NoGeneration:
    """Send the row's request as built (an LLMError makes the item failed)."""
    question: YesNoQuestion = item.row
    context.clients["model"].chat([{"role": m.role, "content": m.content} for m in question.row.prompt])
    return NoGeneration()


def score(item: Item, transcript: Transcript[NoGeneration], context: TaskContext) -> YesNoScores:
    """The reply's yes/no against CLadder's answer."""
    row = item.row.row
    (reply,) = transcript.replies("model")
    answer = cladder_answer(reply)
    error: YesNoError | None = None
    if answer is None:
        error = "no_answer" if strip_thinking(reply).strip() else "empty_reply"
    return YesNoScores(
        rung=row.rung,
        query_type=row.query_type,
        graph_id=row.graph_id,
        reference=row.answer,
        answer=answer if answer in ("yes", "no") else None,
        error=error,
        correct=answer == row.answer,
    )


def item_scores(scores: YesNoScores) -> dict[str, float]:
    """One question's share of the accuracy."""
    return {"accuracy": float(scores.correct)}


def _accuracy(scores: list[YesNoScores]) -> float:
    return sum(s.correct for s in scores) / len(scores) if scores else 0.0


def summarize(
    results: list[Scored[NoGeneration, YesNoScores]], context: TaskContext
) -> tuple[CladderYesNoMetrics, Slices]:
    """Accuracy overall and per rung, query type and graph family, with the answers' yes share and errors."""
    scores = [r.scores for r in results]
    count = len(scores) or 1
    metrics = CladderYesNoMetrics(
        count=len(scores),
        accuracy=_accuracy(scores),
        yes_share=sum(s.answer == "yes" for s in scores) / count,
        reference_yes_share=sum(s.reference == "yes" for s in scores) / count,
        errors=dict(sorted(Counter(s.error for s in scores if s.error).items())),
    )
    slices: Slices = {}
    for name, field in SLICES:
        groups: dict[str, list[YesNoScores]] = defaultdict(list)
        for one in scores:
            groups[str(getattr(one, field))].append(one)
        slices[name] = {key: {"n": len(group), "accuracy": _accuracy(group)} for key, group in sorted(groups.items())}
    return metrics, slices


TASK = Task(
    name="cladder_yes_no",
    dataset="cladder_pairs",
    version=2,  # 2: "the answer to this question is yes" is read (it was unanswered)
    help="CLadder's own yes/no questions (the yes_no_prompts config): the reply's final yes/no against CLadder's "
    "answer; accuracy overall, by rung, query type and graph family (as the CLadder paper reports), intervals "
    "clustered by CLadder causal model",
    configs=(CONFIG,),
    items=items,
    solve=solve,
    score=score,
    scores=YesNoScores,
    summarize=summarize,
    item_scores=item_scores,
    metrics=CladderYesNoMetrics,
    from_files=True,
    estimates=Estimates(
        unit="CLadder story and causal model",
        cluster=lambda item: item.row.causal_model,
        groups=lambda item, context: {name: str(getattr(item.row.row, field)) for name, field in SLICES},
    ),
    inspect={"cladder_yes_no": CONFIG},
)
