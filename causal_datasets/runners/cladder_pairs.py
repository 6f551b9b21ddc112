"""``causal-datasets eval cladder_pairs``: DoVerifier on CLadder — the estimand task, the judge, feedback, derivations.

Each question of the ``cladder_pairs/questions`` config is sent as one of two prompts
(``--prompt``): ``estimand`` (:mod:`causal_datasets.cladder_pairs.task`, the package's own task: the graph
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

Generation is kept apart from scoring: the model's replies (and what the feedback loop sent) depend
on no reference, and :func:`score_reply` scores a reply from the question alone.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from statistics import fmean
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from causal_datasets.agreement import agreement, agreement_estimators
from causal_datasets.cladder_pairs import paper_task, task
from causal_datasets.cladder_pairs.cladder import formal_expression
from causal_datasets.docalc.derivation import DERIVATION_REQUEST, same_expression, score_derivation
from causal_datasets.cladder_pairs.feedback import Finding, diagnose, feedback_message
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.cladder_pairs.judge import DEFAULT_ATTEMPTS, ask_judge
from causal_datasets.docalc.scoring_rules import ScoringRule, credited
from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm.chat import ChatClient
from causal_datasets.records.cladder_pairs import CladderQuestionRow, GraphFamily, QueryType
from causal_datasets.runners.records import CladderMetrics, Role, Slices
from causal_datasets.runners.task import Estimates, Item, Outcome, RoleSpec, RunSettings, Task, TaskContext
from causal_datasets.scoring.graph_compare import compare_graphs
from causal_datasets.uncertainty import Mean

SLICES = (("by_rung", "rung"), ("by_query_type", "query_type"), ("by_graph_family", "graph_id"))
ESTIMAND_FORMAT = "End your reply with one line `Estimand: <expression>` and nothing after it."


class CladderOptions(BaseModel):
    verifier_seed: int = Field(default=0, ge=0, description="seed of the verifier's random causal models")
    prompt: Literal["estimand", "paper"] = Field(
        default="estimand", description="estimand: the package's task, the graph is given and the answer is the "
        "identified estimand; paper: DoVerifier's App. G prompt verbatim, the model writes the expression, its graph "
        "and a yes/no answer")
    scoring: ScoringRule | None = Field(
        default=None, description="the headline rule (both are computed for every answer): equivalence, DoVerifier's "
        "(equal to CLadder's estimand under the question's graph; do() and counterfactual answers allowed), or "
        "identification, the package's stricter task (also a formula in observed probabilities). Default: "
        "equivalence with --prompt paper, identification with --prompt estimand")
    feedback_rounds: int = Field(default=0, ge=0, le=10,
                                 description="rounds of verifier feedback (DoVerifier §4.3, Table 2)")
    feedback: Literal["graph", "oracle"] = Field(
        default="graph", description="graph: App. H, the feedback and whether to give it come from the answer and "
        "the graph alone (the model's own graph with --prompt paper), never the reference; rounds stop when the graph "
        "checks find nothing to correct. oracle: feedback while the reference says the answer is wrong (an upper "
        "bound, not the paper's Table 2)")
    judge_graph: Literal["true", "generated"] | None = Field(
        default=None, description="the graph the judge sees: generated (the model's own, as the paper's judge; the "
        "question's when the model gave none) or true (the question's). Default: generated with --prompt paper")
    derivation: bool = Field(default=False, description="ask for a derivation from the causal quantity to the estimand "
                             "and check every step (estimand prompt)")
    judge_attempts: int = Field(default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per answer until a verdict line")
    graph_families: list[GraphFamily] | None = Field(default=None, description="only questions of these graph families")
    query_types: list[QueryType] | None = Field(default=None, description="only questions of these query types")

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
        raise RunConfigurationError("--derivation goes with --prompt estimand (the paper's prompt shows no causal quantity "
                                    "to derive from)")
    if options.judge_graph == "generated" and options.prompt != "paper":
        raise RunConfigurationError("--judge-graph generated goes with --prompt paper (only that prompt asks the model "
                                    "for a graph)")


def items(context: TaskContext) -> list[Item]:
    """The questions (of the chosen families and query types) except those whose CLadder estimand uses
    a variable the story calls unobserved (:func:`~causal_datasets.cladder_pairs.task.reference_unobserved`:
    the arrowhead natural effects), which no answer over observed variables can match."""
    options: CladderOptions = context.options
    return [Item(q.id, "questions", q) for q in context.load("questions").records
            if (not options.graph_families or q.graph_id in options.graph_families)
            and (not options.query_types or q.query_type in options.query_types) and not task.reference_unobserved(q)]


# ---- generation: replies, their readings, feedback, the judge (no reference used) -----------------------


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
            read |= {"graph_text": self.graph_text, "graph_error": self.graph_error, "graph_detail": self.graph_detail,
                     "final_answer": self.final_answer}
        return read


def read_reply(raw: str, q: CladderQuestionRow, options: CladderOptions) -> Reply:
    if options.prompt == "estimand":
        return Reply(raw, task.extract_estimand(raw))
    answer = paper_task.read_answer(raw)
    graph, error, detail = paper_task.model_graph(answer.graph, q)
    return Reply(raw, answer.expression, answer.graph, graph, error, detail, answer.final_answer)


def solve(item: Item, context: TaskContext) -> Outcome:
    q: CladderQuestionRow = item.row
    options: CladderOptions = context.options
    messages = request(q, options)
    model = context.clients["model"]
    reply = read_reply(model.chat(messages).text, q, options)  # an LLMError makes the item failed
    fields: dict[str, Any] = {"messages": messages, "reference": q.estimand, "rung": q.rung,
                              "query_type": q.query_type, "graph_id": q.graph_id, "scoring": options.scoring,
                              **reply.fields(), **score_reply(reply, q, options)}
    judge = context.client("judge")
    if judge is not None:
        graph, source = judge_graph(reply, q, options)
        verdict = ask_judge(judge, reply.expression, q.estimand, graph, options.judge_attempts)
        fields |= {"judge": verdict.equivalent, "judge_error": verdict.error, "judge_answers": verdict.answers,
                   "judge_graph": source}
    if options.feedback_rounds:
        fields |= _feedback(messages, reply, fields, q, options, model)
    return Outcome(fields)


def request(q: CladderQuestionRow, options: CladderOptions) -> list[dict[str, str]]:
    """The opening messages for ``q`` under the chosen prompt."""
    if options.prompt == "paper":
        return paper_task.build_messages(q)
    messages = task.build_messages(q)
    if options.derivation:
        messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{DERIVATION_REQUEST}"}
    return messages


def judge_graph(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> tuple[DoGraph, str]:
    """The graph the judge sees and where it comes from (``generated``, or ``true`` — asked for, or the model gave none)."""
    if options.judge_graph == "generated" and reply.graph is not None:
        return reply.graph, "generated"
    return task.question_graph(q), "true"


def graph_checks(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> tuple[list[Finding], str]:
    """App. H's checks of a reply: the findings from the answer and the graph alone — the model's own
    graph with the paper's prompt (the question's when the model gave none) — and which graph that was."""
    generated = options.prompt == "paper" and reply.graph is not None
    graph = reply.graph if generated else task.question_graph(q)
    return diagnose(reply.expression, graph, query_type=q.query_type), "generated" if generated else "true"


@dataclass(frozen=True)
class FeedbackRound:
    """One round: what the checks found, the message sent, the model's revised reply."""

    number: int
    findings: list[Finding]
    graph: str
    message: str
    reply: Reply


def feedback_rounds(model: ChatClient, messages: list[dict[str, str]], first: Reply, rounds: int,
                    read: Callable[[str], Reply], check: Callable[[Reply], tuple[list[Finding], str] | None],
                    answer_format: str, *, graph_only: bool) -> tuple[list[FeedbackRound], str]:
    """Up to ``rounds`` rounds of feedback after ``first``: ``check`` gives a reply's findings (None:
    no feedback for it); each round sends them as the next user turn and reads the model's revision.
    Returns the rounds and why they stopped (``nothing_to_correct``, ``accepted`` or ``rounds_used``)."""
    conversation = [*messages, {"role": "assistant", "content": first.raw}]
    done, reply = [], first
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
        done.append(FeedbackRound(number, findings, graph, message, reply))
    return done, "rounds_used"


def _feedback(messages: list[dict[str, str]], first: Reply, first_scores: Mapping[str, Any], q: CladderQuestionRow,
              options: CladderOptions, model: ChatClient) -> dict[str, Any]:
    """The feedback rounds (generation), then each revised reply scored; Table 2's fields."""
    answer_format = paper_task.ANSWER_FORMAT if options.prompt == "paper" else ESTIMAND_FORMAT
    graph_only = options.feedback == "graph"

    def check(reply: Reply) -> tuple[list[Finding], str] | None:
        if not graph_only and _is_credited(score_reply(reply, q, options), options.scoring):
            return None
        return graph_checks(reply, q, options)

    rounds, stopped = feedback_rounds(model, messages, first, options.feedback_rounds,
                                      lambda raw: read_reply(raw, q, options), check, answer_format,
                                      graph_only=graph_only)
    scored, last = [], first_scores
    for done in rounds:
        last = score_reply(done.reply, q, options)
        scored.append({"round": done.number, "graph": done.graph, "findings": [f.to_dict() for f in done.findings],
                       "feedback": done.message, **done.reply.fields(),
                       **{name: last[name] for name in ("equivalent", "identified", "error")}})
    kind = (rounds[0].findings[0].kind if rounds[0].findings else "not_accepted") if rounds else None
    return {"feedback": scored, "feedback_kind": kind, "feedback_stop": stopped,
            "equivalent_after_feedback": last["equivalent"], "identified_after_feedback": last["identified"]}


# ---- scoring: a reply against the question (the reference used only here) -------------------------------


def score_reply(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> dict[str, Any]:
    """A reply's scores: both rules' verdicts and the surface baselines under the question's graph;
    with the paper's prompt also the verdicts under the model's own graph, its graph's edge F1 and SHD
    and its yes/no answer; with ``--derivation`` every step of the written derivation."""
    scores = task.score_answer(reply.expression, q, seed=options.verifier_seed)
    if options.derivation:
        scores |= _derivation(reply.raw, q, seed=options.verifier_seed)
    if options.prompt != "paper":
        return scores
    scores["answer_correct"] = None if q.answer is None else reply.final_answer == q.answer
    if reply.graph is None:
        return scores | {"equivalent_own_graph": None, "identified_own_graph": None, "own_graph_error": reply.graph_error,
                         "graph_edge_f1": 0.0, "graph_shd": None}
    own = task.score_answer(reply.expression, q, seed=options.verifier_seed, graph=reply.graph)
    comparison = compare_graphs(list(reply.graph.edges), [(e.source, e.target) for e in q.edges])
    return scores | {"equivalent_own_graph": own["equivalent"], "identified_own_graph": own["identified"],
                     "own_graph_error": own["error"], "graph_edge_f1": comparison.edge_f1, "graph_shd": comparison.shd}


def _is_credited(scores: Mapping[str, Any], rule: str, *, suffix: str = "") -> bool:
    """Whether scores (or their ``suffix`` variants, e.g. ``_after_feedback``) count as right under ``rule``."""
    return credited({"equivalence": scores.get(f"equivalent{suffix}"),
                     "identification": scores.get(f"identified{suffix}")}, rule)


def _derivation(raw: str, q: CladderQuestionRow, *, seed: int) -> dict[str, Any]:
    score = score_derivation(raw, task.question_graph(q), seed=seed)
    query = formal_expression(q)
    return {"derivation": score.to_dict(), "derivation_valid_share": score.valid_share,
            "derivation_from_query": None if score.start is None or query is None else same_expression(score.start, query)}


# ---- summary ---------------------------------------------------------------------------------------


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[CladderMetrics, Slices]:
    """Table 1 (verifier under both rules, string match, judge, token baselines) overall and per rung,
    query type and graph family; Table 2 (before/after feedback, the headline rule) by diagnosis and per
    round; error categories, verdict methods, proof lengths, graph errors, derivation steps."""
    options: CladderOptions = context.options
    lengths = Counter(r["proof_length"] for r in results if r["proof_length"] is not None)
    judged = any(r.get("judge_answers") is not None for r in results)
    paper = options.prompt == "paper"
    metrics = CladderMetrics(
        scoring=options.scoring,
        **_rates(results, judged, options),
        derivation_valid_share=_mean(r.get("derivation_valid_share") for r in results) if options.derivation else None,
        errors=_counts(r["error"] for r in results),
        identification_errors=_counts(r.get("identification_error") for r in results),
        methods=_counts(r["method"] for r in results),
        proof_lengths={str(length): n for length, n in sorted(lengths.items())},
        judge_agreement=_judge_agreement(results) if judged else None,
        feedback=_feedback_table(results, options.scoring) if options.feedback_rounds else None,
        feedback_stops=_counts(r.get("feedback_stop") for r in results) if options.feedback_rounds else None,
        graph_errors=_counts(r.get("graph_error") for r in results) if paper else None,
        derivation_steps=_counts(s["status"] for r in results for s in (r.get("derivation") or {}).get("steps", ()))
        if options.derivation else None,
    )
    slices = {}
    for name, field in SLICES:
        groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for result in results:
            groups[result[field]].append(result)
        slices[name] = {str(value): _slice_rates(group, judged, options) for value, group in sorted(groups.items())}
    if options.feedback_rounds:
        slices["by_feedback_round"] = _by_round(results, options.feedback_rounds, options.scoring)
    return metrics, slices


def _rates(results: list[dict[str, Any]], judged: bool, options: CladderOptions) -> dict[str, Any]:
    n = len(results)
    paper = options.prompt == "paper"
    rule = options.scoring
    return {
        "n": n,
        "accuracy": _share(_is_credited(r, rule) for r in results),
        "equivalence_accuracy": _share(r["equivalent"] is True for r in results),
        "identification_accuracy": _share(r.get("identified") is True for r in results),
        "string_match": _share(bool(r["string_match"]) for r in results),
        "judge": _share(r.get("judge") is True for r in results) if judged else None,
        "bleu": _mean(r.get("bleu") for r in results),
        "token_f1": _mean(r.get("token_f1") for r in results),
        "accuracy_own_graph": _share(_is_credited(r, rule, suffix="_own_graph") for r in results) if paper else None,
        "answer_accuracy": _share(r.get("answer_correct") is True for r in results) if paper else None,
        "graph_edge_f1": _mean(r.get("graph_edge_f1") for r in results) if paper else None,
        "accuracy_after_feedback": _share(_is_credited(r, rule, suffix="_after_feedback") for r in results)
        if options.feedback_rounds else None,
    }


def _slice_rates(results: list[dict[str, Any]], judged: bool, options: CladderOptions) -> dict[str, Any]:
    """A slice's numbers: the rates that apply to this run (None ones left out)."""
    return {name: value for name, value in _rates(results, judged, options).items() if value is not None}


def _judge_agreement(results: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """The judge against the verifier's equivalence verdict (the question both answer), over answers
    both decided (Cohen's κ included)."""
    return agreement([_verdict(r.get("judge")) for r in results], [_verdict(r["equivalent"]) for r in results])


def _feedback_table(results: list[dict[str, Any]], rule: str) -> dict[str, dict[str, float | int | None]]:
    """Table 2 under ``rule``: over all answers and per diagnosis of the first round, accuracy before and after."""
    groups: dict[str, list[dict[str, Any]]] = {"all": results}
    for result in results:
        if result.get("feedback_kind"):
            groups.setdefault(result["feedback_kind"], []).append(result)
    table = {}
    for name, group in groups.items():
        before = [_is_credited(r, rule) for r in group]
        after = [_is_credited(r, rule, suffix="_after_feedback") for r in group]
        table[name] = {"n": len(group), "before": _share(before), "after": _share(after),
                       "fixed": sum(a and not b for a, b in zip(after, before)),
                       "broken": sum(b and not a for a, b in zip(after, before))}
    return table


def _by_round(results: list[dict[str, Any]], rounds: int, rule: str) -> dict[str, dict[str, float | int]]:
    """Accuracy under ``rule`` after each round over all answers (an answer whose feedback stopped keeps its last verdict)."""
    table = {}
    for number in range(rounds + 1):
        right = 0
        for result in results:
            replies = [result, *(result.get("feedback") or ())]
            right += _is_credited(replies[min(number, len(replies) - 1)], rule)
        table[str(number)] = {"n": len(results), "accuracy": right / len(results) if results else 0.0}
    return table


def _share(flags) -> float:
    flags = list(flags)
    return sum(flags) / len(flags) if flags else 0.0


def _mean(values) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def _counts(values) -> dict[str, int]:
    return dict(sorted(Counter(v for v in values if v).items()))


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Right under the run's rule (``accuracy``) and under each rule, string match (each 0 or 1), BLEU and
    token F1, and the judge's and the after-feedback verdicts where the run has them: their means are the
    run's rates."""
    if "identified" not in result:  # a line from before both rules were kept: its `equivalent` was identification's
        identified = result["equivalent"]  # (identified implies equivalent; otherwise equivalence was not recorded)
        result = {**result, "identified": identified, "equivalent": True if identified else None, "scoring": "identification"}
    rule = result["scoring"]
    scores = {"accuracy": float(_is_credited(result, rule)),
              "equivalence_accuracy": float(result["equivalent"] is True),
              "identification_accuracy": float(result.get("identified") is True),
              "string_match": float(bool(result["string_match"]))}
    for name in ("bleu", "token_f1"):
        if result.get(name) is not None:
            scores[name] = float(result[name])
    if "judge_answers" in result:
        scores["judge"] = float(result.get("judge") is True)
    if "equivalent_after_feedback" in result:
        scores["accuracy_after_feedback"] = float(_is_credited(result, rule, suffix="_after_feedback"))
    return scores


def _present(result: Mapping[str, Any], field: str) -> float | None:
    """1 where ``field`` is True, 0 where it is anything else, None where the result has no such field."""
    return float(result[field] is True) if field in result else None


def _verdict(value: bool | None) -> str:
    return "unknown" if value is None else ("correct" if value else "wrong")


#: questions about one CLadder causal model (a story with its probabilities) share it; the headline numbers
#: beyond item_scores: the paper prompt's own-graph and yes/no columns, derivations, the judge's agreement
ESTIMATES = Estimates(
    unit="CLadder story and causal model",
    cluster=lambda item: item.row.causal_model,
    groups=lambda item, context: {name: str(getattr(item.row, field)) for name, field in SLICES},
    estimators=(
        Mean("accuracy_own_graph", lambda r: float(_is_credited(r, r["scoring"], suffix="_own_graph"))
             if "equivalent_own_graph" in r else None),
        Mean("answer_accuracy", lambda r: _present(r, "answer_correct")),
        Mean("graph_edge_f1", lambda r: r.get("graph_edge_f1")),
        Mean("derivation_valid_share", lambda r: r.get("derivation_valid_share")),
        *agreement_estimators("judge_agreement", lambda r: (_verdict(r.get("judge")), _verdict(r["equivalent"]))),
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
    summarize=summarize,
    item_scores=item_scores,
    roles=(
        RoleSpec("model", "a chat model to answer the questions", required=True),
        RoleSpec("judge", "an LLM judge of whether each answer equals CLadder's estimand (the judge column)"),
    ),
    options=CladderOptions,
    from_files=True,
    check=check,
    estimates=ESTIMATES,
)
