"""``causal-datasets eval cladder_pairs``: DoVerifier on CLadder — the estimand task, the judge, feedback, derivations.

Each question of the ``cladder_pairs/questions`` config is sent as one of two prompts
(``--prompt``): ``estimand`` (:mod:`causal_datasets.cladder_pairs.estimand_task`, the package's own task: the graph
is given, the answer is an ``Estimand:`` line) or ``paper`` (:mod:`causal_datasets.cladder_pairs.paper_task`:
DoVerifier's App. G prompt verbatim; the model writes the expression, its own graph and a yes/no
answer, and the expression is also verified under that graph). Every expression is scored against
CLadder's estimand under both rules of :mod:`~causal_datasets.docalc.scoring_rules` — ``equivalence``
(DoVerifier's: equal under the question's graph) and ``identification`` (also a formula in observed
probabilities) —, ``--scoring`` picks the headline (default: the paper's rule under the paper's prompt,
identification under the estimand prompt, which asks for an estimand), beside string match, BLEU,
token F1 and, with ``--judge-model``, an LLM judge (Table 1, with the judge's agreement with the
verifier). ``--feedback-rounds N`` sends a diagnosis back to the model up to N times (Table 2):
``--feedback graph`` (App. H) decides from the answer and the graph alone whether and what to say;
``--feedback oracle`` continues while the reference says the answer is wrong, an upper bound.
``--derivation`` asks for a derivation and checks every step.

Generation is kept apart from scoring: ``solve`` asks the model and runs the feedback loop (the
graph checks depend on no reference; only ``--feedback oracle`` asks the reference whether to go on,
under the run's rule), and ``score`` reads every reply of the transcript and scores it against the
question (:func:`score_reply`), asking the judge when there is one — so ``causal-datasets rescore``
scores the same replies under another rule without the model.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import fmean
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from causal_datasets.agreement import agreement, agreement_estimators
from causal_datasets.cladder_pairs import estimand_task, paper_task
from causal_datasets.cladder_pairs.cladder import formal_expression
from causal_datasets.cladder_pairs.feedback import Finding, diagnose, feedback_message
from causal_datasets.cladder_pairs.judge import DEFAULT_ATTEMPTS, ask_judge
from causal_datasets.cladder_pairs.records import CladderQuestionRow, GraphFamily, QueryType
from causal_datasets.docalc.derivation import DERIVATION_REQUEST, same_expression, score_derivation
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.scoring_rules import ScoringRule, credited
from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm.chat import ChatClient
from causal_datasets.runners.records import BenchmarkMetrics, Role, Slices
from causal_datasets.runners.task import Estimates, Item, RoleSpec, RunSettings, Scored, Task, TaskContext, Transcript
from causal_datasets.scoring.graph_compare import compare_graphs
from causal_datasets.uncertainty import Mean
from causal_datasets.views import ResultsHistogram, View

SLICES = (("by_rung", "rung"), ("by_query_type", "query_type"), ("by_graph_family", "graph_id"))
ESTIMAND_FORMAT = "End your reply with one line `Estimand: <expression>` and nothing after it."


class CladderOptions(BaseModel):
    verifier_seed: int = Field(default=0, ge=0, description="seed of the verifier's random causal models")
    prompt: Literal["estimand", "paper"] = Field(
        default="estimand",
        description="estimand: the package's task, the graph is given and the answer is the "
        "identified estimand; paper: DoVerifier's App. G prompt verbatim, the model writes the expression, its graph "
        "and a yes/no answer",
    )
    scoring: ScoringRule | None = Field(
        default=None,
        description="the headline rule (both are computed for every answer): equivalence, DoVerifier's "
        "(equal to CLadder's estimand under the question's graph; do() and counterfactual answers allowed), or "
        "identification, the package's stricter task (also a formula in observed probabilities). Default: "
        "equivalence with --prompt paper, identification with --prompt estimand",
    )
    feedback_rounds: int = Field(
        default=0, ge=0, le=10, description="rounds of verifier feedback (DoVerifier §4.3, Table 2)"
    )
    feedback: Literal["graph", "oracle"] = Field(
        default="graph",
        description="graph: App. H, the feedback and whether to give it come from the answer and "
        "the graph alone (the model's own graph with --prompt paper), never the reference; rounds stop when the graph "
        "checks find nothing to correct. oracle: feedback while the reference says the answer is wrong (an upper "
        "bound, not the paper's Table 2)",
    )
    judge_graph: Literal["true", "generated"] | None = Field(
        default=None,
        description="the graph the judge sees: generated (the model's own, as the paper's judge; the "
        "question's when the model gave none) or true (the question's). Default: generated with --prompt paper",
    )
    derivation: bool = Field(
        default=False,
        description="ask for a derivation from the causal quantity to the estimand "
        "and check every step (estimand prompt)",
    )
    judge_attempts: int = Field(
        default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per answer until a verdict line"
    )
    graph_families: list[GraphFamily] | None = Field(default=None, description="only questions of these graph families")
    query_types: list[QueryType] | None = Field(default=None, description="only questions of these query types")

    @property
    def rule(self) -> ScoringRule:
        """The headline rule: ``scoring``, the prompt's default when not given."""
        return self.scoring or ("equivalence" if self.prompt == "paper" else "identification")

    @model_validator(mode="after")
    def _defaults_by_prompt(self) -> CladderOptions:
        """The paper's rule and judge input with the paper's prompt; the package's own with its own."""
        paper = self.prompt == "paper"
        if self.scoring is None:
            self.scoring = "equivalence" if paper else "identification"
        if self.judge_graph is None:
            self.judge_graph = "generated" if paper else "true"
        return self


def check(settings: RunSettings, options: CladderOptions, roles: frozenset[Role]) -> None:
    if options.derivation and options.prompt != "estimand":
        raise RunConfigurationError(
            "--derivation goes with --prompt estimand (the paper's prompt shows no causal quantity to derive from)"
        )
    if options.judge_graph == "generated" and options.prompt != "paper":
        raise RunConfigurationError(
            "--judge-graph generated goes with --prompt paper (only that prompt asks the model for a graph)"
        )


def items(context: TaskContext) -> list[Item]:
    """The questions (of the chosen families and query types) except those whose CLadder estimand uses
    a variable the story calls unobserved (:func:`~causal_datasets.cladder_pairs.estimand_task.reference_unobserved`:
    the arrowhead natural effects), which no answer over observed variables can match."""
    options: CladderOptions = context.options
    return [
        Item(q.id, "questions", q)
        for q in context.rows("questions", CladderQuestionRow)
        if (not options.graph_families or q.graph_id in options.graph_families)
        and (not options.query_types or q.query_type in options.query_types)
        and not estimand_task.reference_unobserved(q)
    ]


# ---- the records: generation, scores, metrics ------------------------------------------------------


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


class CladderMetrics(BenchmarkMetrics):
    """DoVerifier's tables: the headline row is Table 1 (verifier, string match, LLM judge, beside the
    token baselines), under both scoring rules; ``feedback`` is Table 2 (accuracy before and after
    feedback, under the run's rule)."""

    benchmark: Literal["cladder_pairs"] = "cladder_pairs"
    count: int = Field(title="questions")
    scoring: ScoringRule = Field(
        default="identification",
        title="scoring rule",
        description="the rule of `accuracy`: equivalence (DoVerifier's) or identification (the package's stricter "
        "task)",
    )
    accuracy: float = Field(
        title="accuracy (the run's scoring rule)", description="share of answers right under the run's scoring rule"
    )
    equivalence_accuracy: float | None = Field(
        default=None,
        title="equivalent (DoVerifier's rule)",
        description="share of answers the verifier finds equal to the estimand under the question's graph, "
        "do() and counterfactual answers included",
    )
    identification_accuracy: float | None = Field(
        default=None,
        title="identified (stricter)",
        description="share of answers equal to the estimand and written in observed probabilities only",
    )
    string_match: float = Field(title="string match", description="share equal to the reference after normalization")
    judge: float | None = Field(
        default=None, title="LLM judge", description="share the judge calls equivalent (None: no judge model)"
    )
    bleu: float | None = Field(default=None, title="BLEU", description="mean sentence BLEU-4 against the reference")
    token_f1: float | None = Field(
        default=None, title="token F1", description="mean token-multiset F1 against the reference"
    )
    accuracy_own_graph: float | None = Field(
        default=None,
        title="right under the model's graph",
        description="paper prompt: share right (the run's rule) under the graph the model wrote",
    )
    answer_accuracy: float | None = Field(
        default=None, title="yes/no accuracy", description="paper prompt: share of final answers equal to CLadder's"
    )
    graph_edge_f1: float | None = Field(
        default=None,
        title="graph edge F1",
        description="paper prompt: mean edge F1 of the model's graph (unreadable: 0)",
    )
    accuracy_after_feedback: float | None = Field(
        default=None,
        title="accuracy after feedback",
        description="share right (the run's rule) after the last feedback round",
    )
    derivation_valid_share: float | None = Field(
        default=None,
        title="valid derivation steps",
        description="mean share of valid steps over answers with a derivation",
    )
    errors: dict[str, int] = Field(title="answers by error category")
    identification_errors: dict[str, int] = Field(
        default_factory=dict,
        title="answers that identify nothing",
        description="not_identified (a do() or counterfactual term left), unobserved_variable",
    )
    methods: dict[str, int] = Field(title="verdicts by method")
    proof_lengths: dict[str, int] = Field(title="proof lengths")
    judge_agreement: dict[str, float | int | None] | None = Field(
        default=None,
        title="judge agreement with the verifier",
        description="against the equivalence verdict, over answers both decided: accuracy, precision, recall, F1, "
        "Cohen's kappa, counts",
    )
    feedback: dict[str, dict[str, float | int | None]] | None = Field(
        default=None,
        title="accuracy before and after feedback (Table 2), by the first diagnosis",
        description="per diagnosis of the first round and over all answers: n, accuracy before, after, answers "
        "fixed, answers broken (the run's rule)",
    )
    feedback_stops: dict[str, int] | None = Field(
        default=None,
        title="why feedback stopped",
        description="nothing_to_correct (graph checks), accepted (oracle), rounds_used",
    )
    graph_errors: dict[str, int] | None = Field(default=None, title="model graphs by error category")
    derivation_steps: dict[str, int] | None = Field(default=None, title="derivation steps by status")


# ---- generation: replies, their readings, feedback (the reference used only by an oracle) ------------


@dataclass(frozen=True)
class Reply:
    """What one model reply says, read without the reference: its expression and, with the paper's
    prompt, its graph (or why there is none) and its yes/no answer."""

    raw: str
    expression: str | None
    graph_text: str | None = None
    graph: DoGraph | None = None
    graph_error: str | None = None
    graph_detail: str | None = None
    final_answer: str | None = None

    def fields(self) -> dict[str, Any]:
        read = {"raw": self.raw, "expression": self.expression}
        if self.graph_text is not None or self.graph_error is not None:
            read |= {
                "graph_text": self.graph_text,
                "graph_error": self.graph_error,
                "graph_detail": self.graph_detail,
                "final_answer": self.final_answer,
            }
        return read


def read_reply(raw: str, q: CladderQuestionRow, options: CladderOptions) -> Reply:
    if options.prompt == "estimand":
        return Reply(raw, estimand_task.extract_estimand(raw))
    answer = paper_task.read_answer(raw)
    graph, error, detail = paper_task.model_graph(answer.graph, q)
    return Reply(raw, answer.expression, answer.graph, graph, error, detail, answer.final_answer)


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
        if oracle and _is_credited(score_reply(reply, q, options), options.rule):
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


def request(q: CladderQuestionRow, options: CladderOptions) -> list[dict[str, str]]:
    """The opening messages for ``q`` under the chosen prompt."""
    if options.prompt == "paper":
        return paper_task.build_messages(q)
    messages = estimand_task.build_messages(q)
    if options.derivation:
        messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{DERIVATION_REQUEST}"}
    return messages


def judge_graph(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> tuple[DoGraph, str]:
    """The graph the judge sees and where it comes from (``generated``, or ``true``: asked for, or the model gave
    none)."""
    if options.judge_graph == "generated" and reply.graph is not None:
        return reply.graph, "generated"
    return estimand_task.question_graph(q), "true"


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


# ---- scoring: every reply of the transcript against the question (the reference used here) ------------


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
    fields: dict[str, Any] = {
        "reference": q.estimand,
        "rung": q.rung,
        "query_type": q.query_type,
        "graph_id": q.graph_id,
        "scoring": options.rule,
        **first.fields(),
        **score_reply(first, q, options),
    }
    judge = context.client("judge")
    if judge is not None:
        graph, source = judge_graph(first, q, options)
        verdict = ask_judge(judge, first.expression, q.estimand, graph, options.judge_attempts)
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


def score_reply(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> dict[str, Any]:
    """A reply's scores: both rules' verdicts and the surface baselines under the question's graph;
    with the paper's prompt also the verdicts under the model's own graph, its graph's edge F1 and SHD
    and its yes/no answer; with ``--derivation`` every step of the written derivation."""
    scores = estimand_task.score_answer(reply.expression, q, seed=options.verifier_seed)
    if options.derivation:
        scores |= _derivation(reply.raw, q, seed=options.verifier_seed)
    if options.prompt != "paper":
        return scores
    scores["answer_correct"] = None if q.answer is None else reply.final_answer == q.answer
    if reply.graph is None:
        return scores | {
            "equivalent_own_graph": None,
            "identified_own_graph": None,
            "own_graph_error": reply.graph_error,
            "graph_edge_f1": 0.0,
            "graph_shd": None,
        }
    own = estimand_task.score_answer(reply.expression, q, seed=options.verifier_seed, graph=reply.graph)
    comparison = compare_graphs(list(reply.graph.edges), [(e.source, e.target) for e in q.edges])
    return scores | {
        "equivalent_own_graph": own["equivalent"],
        "identified_own_graph": own["identified"],
        "own_graph_error": own["error"],
        "graph_edge_f1": comparison.edge_f1,
        "graph_shd": comparison.shd,
    }


def _is_credited(scores: Any, rule: str, *, suffix: str = "") -> bool:
    """Whether scores (a mapping or a scores model; or their ``suffix`` variants, e.g. ``_after_feedback``)
    count as right under ``rule``."""
    get = scores.get if isinstance(scores, dict) else (lambda name: getattr(scores, name, None))
    return credited({"equivalence": get(f"equivalent{suffix}"), "identification": get(f"identified{suffix}")}, rule)


def _derivation(raw: str, q: CladderQuestionRow, *, seed: int) -> dict[str, Any]:
    derivation = score_derivation(raw, estimand_task.question_graph(q), seed=seed)
    query = formal_expression(q)
    return {
        "derivation": derivation.to_dict(),
        "derivation_valid_share": derivation.valid_share,
        "derivation_from_query": None
        if derivation.start is None or query is None
        else same_expression(derivation.start, query),
    }


def rescore_notes(before: CladderOptions, after: CladderOptions) -> list[str]:
    """What rescoring cannot change: an oracle's rounds were decided under the run's rule."""
    if before.feedback_rounds and before.feedback == "oracle" and after.rule != before.rule:
        return [
            f"--feedback oracle chose its rounds by the {before.rule} verdict: the accuracy after feedback "
            f"under {after.rule} is that of the same rounds, not of an oracle under {after.rule}"
        ]
    return []


# ---- summary ---------------------------------------------------------------------------------------

Question = Scored[CladderGeneration, CladderScores]


def summarize(results: list[Question], context: TaskContext) -> tuple[CladderMetrics, Slices]:
    """Table 1 (verifier under both rules, string match, judge, token baselines) overall and per rung,
    query type and graph family; Table 2 (before/after feedback, the headline rule) by diagnosis and per
    round; error categories, verdict methods, proof lengths, graph errors, derivation steps."""
    options: CladderOptions = context.options
    scores = [r.scores for r in results]
    lengths = Counter(s.proof_length for s in scores if s.proof_length is not None)
    judged = any(s.judge_answers is not None for s in scores)
    paper = options.prompt == "paper"
    metrics = CladderMetrics(
        scoring=options.rule,
        **_rates(scores, judged, options),
        derivation_valid_share=_mean(s.derivation_valid_share for s in scores) if options.derivation else None,
        errors=_counts(s.error for s in scores),
        identification_errors=_counts(s.identification_error for s in scores),
        methods=_counts(s.method for s in scores),
        proof_lengths={str(length): n for length, n in sorted(lengths.items())},
        judge_agreement=_judge_agreement(scores) if judged else None,
        feedback=_feedback_table(scores, options.rule) if options.feedback_rounds else None,
        feedback_stops=_counts(r.generation.feedback_stop for r in results) if options.feedback_rounds else None,
        graph_errors=_counts(s.graph_error for s in scores) if paper else None,
        derivation_steps=_counts(step["status"] for s in scores for step in (s.derivation or {}).get("steps", ()))
        if options.derivation
        else None,
    )
    slices = {}
    for name, field in SLICES:
        groups: dict[Any, list[CladderScores]] = defaultdict(list)
        for one in scores:
            groups[getattr(one, field)].append(one)
        slices[name] = {str(value): _slice_rates(group, judged, options) for value, group in sorted(groups.items())}
    if options.feedback_rounds:
        slices["by_feedback_round"] = _by_round(scores, options.feedback_rounds, options.rule)
    return metrics, slices


def _rates(scores: list[CladderScores], judged: bool, options: CladderOptions) -> dict[str, Any]:
    paper = options.prompt == "paper"
    rule = options.rule
    return {
        "count": len(scores),
        "accuracy": _share(_is_credited(s, rule) for s in scores),
        "equivalence_accuracy": _share(s.equivalent is True for s in scores),
        "identification_accuracy": _share(s.identified is True for s in scores),
        "string_match": _share(s.string_match for s in scores),
        "judge": _share(s.judge is True for s in scores) if judged else None,
        "bleu": _mean(s.bleu for s in scores),
        "token_f1": _mean(s.token_f1 for s in scores),
        "accuracy_own_graph": _share(_is_credited(s, rule, suffix="_own_graph") for s in scores) if paper else None,
        "answer_accuracy": _share(s.answer_correct is True for s in scores) if paper else None,
        "graph_edge_f1": _mean(s.graph_edge_f1 for s in scores) if paper else None,
        "accuracy_after_feedback": _share(_is_credited(s, rule, suffix="_after_feedback") for s in scores)
        if options.feedback_rounds
        else None,
    }


def _slice_rates(scores: list[CladderScores], judged: bool, options: CladderOptions) -> dict[str, Any]:
    """A slice's numbers: the rates that apply to this run (None ones left out); its count as ``n``."""
    rates = {name: value for name, value in _rates(scores, judged, options).items() if value is not None}
    return {"n": rates.pop("count"), **rates}


def _judge_agreement(scores: list[CladderScores]) -> dict[str, float | int | None]:
    """The judge against the verifier's equivalence verdict (the question both answer), over answers
    both decided (Cohen's κ included)."""
    return agreement([_verdict(s.judge) for s in scores], [_verdict(s.equivalent) for s in scores])


def _feedback_table(scores: list[CladderScores], rule: str) -> dict[str, dict[str, float | int | None]]:
    """Table 2 under ``rule``: over all answers and per diagnosis of the first round, accuracy before and after."""
    groups: dict[str, list[CladderScores]] = {"all": scores}
    for one in scores:
        if one.feedback_kind:
            groups.setdefault(one.feedback_kind, []).append(one)
    table: dict[str, dict[str, float | int | None]] = {}
    for name, group in groups.items():
        before = [_is_credited(s, rule) for s in group]
        after = [_is_credited(s, rule, suffix="_after_feedback") for s in group]
        table[name] = {
            "n": len(group),
            "before": _share(before),
            "after": _share(after),
            "fixed": sum(a and not b for a, b in zip(after, before, strict=True)),
            "broken": sum(b and not a for a, b in zip(after, before, strict=True)),
        }
    return table


def _by_round(scores: list[CladderScores], rounds: int, rule: str) -> dict[str, dict[str, Any]]:
    """Accuracy under ``rule`` after each round over all answers (an answer whose feedback stopped keeps its last
    verdict)."""
    table: dict[str, dict[str, Any]] = {}
    for number in range(rounds + 1):
        right = 0
        for one in scores:
            replies: list[Any] = [one, *(one.feedback or ())]
            right += _is_credited(replies[min(number, len(replies) - 1)], rule)
        table[str(number)] = {"n": len(scores), "accuracy": right / len(scores) if scores else 0.0}
    return table


def _share(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def _counts(values: Iterable[str | None]) -> dict[str, int]:
    return dict(sorted(Counter(v for v in values if v).items()))


def item_scores(scores: CladderScores) -> dict[str, float]:
    """Right under the run's rule (``accuracy``) and under each rule, string match (each 0 or 1), BLEU and
    token F1, and the judge's and the after-feedback verdicts where the run has them: their means are the
    run's rates."""
    rule = scores.scoring
    result = {
        "accuracy": float(_is_credited(scores, rule)),
        "equivalence_accuracy": float(scores.equivalent is True),
        "identification_accuracy": float(scores.identified is True),
        "string_match": float(scores.string_match),
        "bleu": scores.bleu,
        "token_f1": scores.token_f1,
    }
    if scores.judge_answers is not None:
        result["judge"] = float(scores.judge is True)
    if scores.feedback is not None:
        result["accuracy_after_feedback"] = float(_is_credited(scores, rule, suffix="_after_feedback"))
    return result


def _verdict(value: bool | None) -> str:
    return "unknown" if value is None else ("correct" if value else "wrong")


def _paper(value: Callable[[CladderScores], float | None]) -> Callable[[CladderScores], float | None]:
    """``value`` of an answer to the paper's prompt (whose graph has an edge F1, 0 when unreadable); None otherwise."""
    return lambda scores: value(scores) if scores.graph_edge_f1 is not None else None


#: questions about one CLadder causal model (a story with its probabilities) share it; the headline numbers
#: beyond item_scores: the paper prompt's own-graph and yes/no columns, derivations, the judge's agreement
ESTIMATES = Estimates(
    unit="CLadder story and causal model",
    cluster=lambda item: item.row.causal_model,
    groups=lambda item, context: {name: str(getattr(item.row, field)) for name, field in SLICES},
    estimators=(
        Mean("accuracy_own_graph", _paper(lambda s: float(_is_credited(s, s.scoring, suffix="_own_graph")))),
        Mean("answer_accuracy", _paper(lambda s: float(s.answer_correct is True))),
        Mean("graph_edge_f1", lambda s: s.graph_edge_f1),
        Mean("derivation_valid_share", lambda s: s.derivation_valid_share),
        *agreement_estimators("judge_agreement", lambda s: (_verdict(s.judge), _verdict(s.equivalent))),
    ),
)


TASK = Task(
    name="cladder_pairs",
    help="CLadder estimand task (DoVerifier). Each answer is scored against CLadder's estimand under both rules: "
    "equivalence (DoVerifier's: equal under the question's graph, do() answers allowed) and identification (the "
    "package's stricter task: also a formula in observed probabilities); --scoring picks the headline. Beside them: "
    "string match, BLEU, token F1 and optionally an LLM judge; optional feedback rounds, derivation checking. "
    "DoVerifier's Table 1 is --prompt paper (App. G verbatim, scored by equivalence), its Table 2 adds "
    "--feedback-rounds N (App. H's graph-only feedback). Questions whose estimand uses a variable the story calls "
    "unobserved (the arrowhead natural effects) are left out",
    dataset="cladder_pairs",
    configs=("questions",),
    default_configs=("questions",),
    items=items,
    solve=solve,
    score=score,
    summarize=summarize,
    item_scores=item_scores,
    generation=CladderGeneration,
    scores=CladderScores,
    metrics=CladderMetrics,
    roles=(
        RoleSpec("model", "a chat model to answer the questions", required=True),
        RoleSpec(
            "judge", "an LLM judge of whether each answer equals CLadder's estimand (the judge column)", scoring=True
        ),
    ),
    options=CladderOptions,
    from_files=True,
    check=check,
    scoring_options=("scoring", "verifier_seed", "judge_graph", "judge_attempts"),
    judge_options=("judge_graph", "judge_attempts"),
    rescore_notes=rescore_notes,
    view=View(
        "CLadder pairs (estimand equivalence, DoVerifier)",
        (
            ResultsHistogram(
                "proof_length", "Proof length of answers proven equivalent", "rewrite steps", where="equivalent"
            ),
        ),
    ),
    inspect={"cladder_estimand": "questions"},
    estimates=ESTIMATES,
)
