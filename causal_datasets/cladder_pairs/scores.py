"""Scoring (``score``): every reply of a transcript read and scored against the question (the reference
is used here, never in generation), the judge asked when there is one, each feedback round's revision
scored; and what rescoring under other options cannot change."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.cladder_pairs import estimand_task
from causal_datasets.cladder_pairs.bertscore import bertscore_f1
from causal_datasets.cladder_pairs.generation import CladderGeneration
from causal_datasets.cladder_pairs.judge import ask_judge
from causal_datasets.cladder_pairs.options import CladderOptions
from causal_datasets.cladder_pairs.records import CladderQuestionRow, Reference
from causal_datasets.cladder_pairs.replies import Reply, read_reply, score_reply
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.scoring_rules import ScoringRule
from causal_datasets.runners.task import Item, TaskContext, Transcript


class ReadReply(BaseModel):
    """A reply as read (:class:`Reply`) and its verdicts under both rules: what every scored reply has."""

    raw: str
    expression: str | None
    graph_text: str | None = Field(default=None, description="paper prompt: the graph the model wrote")
    graph_error: str | None = None
    graph_detail: str | None = None
    final_answer: str | None = Field(default=None, description="paper prompt: the model's yes/no answer")
    equivalent: bool | None
    identified: bool | None
    error: str | None


class ScoredRound(ReadReply):
    """A feedback round's revised reply, read and scored."""

    round: int
    graph: str
    findings: list[dict[str, Any]]
    feedback: str


class CladderScores(ReadReply):
    """One question's reply read and scored under both rules, beside the surface baselines; the paper
    prompt's own-graph verdicts and yes/no answer, the judge's verdict, the derivation's steps and the
    feedback rounds where the run has them (None otherwise)."""

    reference: str
    reference_kind: Reference = Field(default="estimand", description="what `reference` is: formal-form or estimand")
    by_reference: dict[str, dict[str, Any]] | None = Field(
        default=None, description="the verdicts and surface scores against each reference (formal-form, estimand)"
    )
    rung: int
    query_type: str
    graph_id: str
    scoring: ScoringRule
    identification_error: str | None
    method: str | None
    proof_length: int | None
    string_match: bool
    bleu: float
    token_f1: float
    bertscore: float | None = Field(default=None, description="BERTScore F1 (None: no --bertscore-model)")
    detail: str | None
    derivation: dict[str, Any] | None = None
    derivation_valid_share: float | None = None
    derivation_from_query: bool | None = None
    answer_correct: bool | None = None
    equivalent_own_graph: bool | None = None
    identified_own_graph: bool | None = None
    own_graph_error: str | None = None
    graph_edge_f1: float | None = None
    graph_shd: float | None = None
    judge: bool | None = None
    judge_error: str | None = None
    judge_answers: list[str] | None = Field(default=None, description="the judge's replies (None: no judge)")
    judge_graph: str | None = None
    feedback: list[ScoredRound] | None = Field(default=None, description="the rounds given (None: no feedback asked)")
    feedback_kind: str | None = None
    feedback_stop: str | None = None
    equivalent_after_feedback: bool | None = None
    identified_after_feedback: bool | None = None


def score(item: Item, transcript: Transcript[CladderGeneration], context: TaskContext) -> CladderScores:
    """The first reply scored under both rules (and by the judge, when there is one), then each feedback
    round's revision."""
    q: CladderQuestionRow = item.row
    options: CladderOptions = context.options
    replies = transcript.replies("model")
    given = transcript.generation.feedback
    if len(replies) != 1 + len(given):
        raise ValueError(f"the transcript has {len(replies)} model replies for {len(given)} feedback rounds")
    first = read_reply(replies[0], q, options)
    reference = estimand_task.reference_text(q, options.reference or "estimand")
    fields: dict[str, Any] = {
        "reference": reference,
        "reference_kind": options.reference,
        "rung": q.rung,
        "query_type": q.query_type,
        "graph_id": q.graph_id,
        "scoring": options.rule,
        **first.fields(),
        **score_reply(first, q, options),
    }
    if options.bertscore_model:
        fields["bertscore"] = bertscore_f1(
            first.expression, q.estimand, options.bertscore_model, options.bertscore_layers
        )
    judge = context.client("judge")
    if judge is not None:
        graph, source = judge_graph(first, q, options)
        verdict = ask_judge(judge, first.expression, reference, graph, options.judge_attempts)
        fields |= {
            "judge": verdict.equivalent,
            "judge_error": verdict.error,
            "judge_answers": verdict.answers,
            "judge_graph": source,
        }
    if transcript.generation.feedback_stop is not None:
        fields |= _scored_feedback(fields, transcript.generation, replies[1:], q, options)
    return CladderScores(**fields)


def _scored_feedback(
    first_scores: dict[str, Any],
    generation: CladderGeneration,
    revisions: list[str],
    q: CladderQuestionRow,
    options: CladderOptions,
) -> dict[str, Any]:
    """Each round's revision scored; Table 2's fields (the first diagnosis, the verdicts after the last round)."""
    given = generation.feedback
    scored, last = [], first_scores
    for done, raw in zip(given, revisions, strict=True):
        reply = read_reply(raw, q, options)
        last = score_reply(reply, q, options)
        scored.append(
            ScoredRound(
                round=done.number,
                graph=done.graph,
                findings=done.findings,
                feedback=done.message,
                **reply.fields(),
                equivalent=last["equivalent"],
                identified=last["identified"],
                error=last["error"],
            )
        )
    kind = (given[0].findings[0]["kind"] if given[0].findings else "not_accepted") if given else None
    return {
        "feedback": scored,
        "feedback_kind": kind,
        "feedback_stop": generation.feedback_stop,
        "equivalent_after_feedback": last["equivalent"],
        "identified_after_feedback": last["identified"],
    }


def judge_graph(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> tuple[DoGraph, str]:
    """The graph the judge sees and where it comes from (``generated``, or ``true``: asked for, or the model gave
    none)."""
    if options.judge_graph == "generated" and reply.graph is not None:
        return reply.graph, "generated"
    return estimand_task.question_graph(q), "true"


def rescore_notes(before: CladderOptions, after: CladderOptions) -> list[str]:
    """What rescoring cannot change: an oracle's rounds were decided under the run's rule."""
    if before.feedback_rounds and before.feedback == "oracle" and after.rule != before.rule:
        return [
            f"--feedback oracle chose its rounds by the {before.rule} verdict: the accuracy after feedback "
            f"under {after.rule} is that of the same rounds, not of an oracle under {after.rule}"
        ]
    return []
