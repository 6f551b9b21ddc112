"""``causal-datasets eval cladder_pairs``: DoVerifier on CLadder — the estimand task, the judge, feedback, derivations.

Each question of the ``cladder_pairs/questions`` config is sent as one of two prompts
(``--prompt``): ``estimand`` (:mod:`causal_datasets.docalc.task`: the graph is given, the answer is
an ``Estimand:`` line) or ``paper`` (:mod:`causal_datasets.docalc.paper_task`: DoVerifier's two-shot
prompt; the model writes the expression, its own graph and a yes/no answer, and the expression is
also verified under that graph). The expression is scored against CLadder's estimand by the
equivalence verifier beside string match, BLEU and token F1, and, with ``--judge-model``, by an
LLM judge (Table 1, with the judge's agreement with the verifier). ``--feedback-rounds N`` sends
the verifier's diagnosis of a wrong expression back to the model up to N times (Table 2: accuracy
before and after, by diagnosis); ``--derivation`` asks for a derivation and checks every step.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from statistics import fmean
from typing import Any, Literal

from pydantic import BaseModel, Field

from causal_datasets.agreement import agreement, agreement_estimators
from causal_datasets.docalc import paper_task, task
from causal_datasets.docalc.cladder import formal_expression
from causal_datasets.docalc.derivation import DERIVATION_REQUEST, same_expression, score_derivation
from causal_datasets.docalc.feedback import diagnose, feedback_message
from causal_datasets.docalc.judge import DEFAULT_ATTEMPTS, ask_judge
from causal_datasets.errors import RunConfigurationError
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
        default="estimand", description="estimand: the graph is given, the answer is the estimand; paper: DoVerifier's "
        "two-shot prompt, the model writes the expression, its graph and a yes/no answer")
    feedback_rounds: int = Field(default=0, ge=0, le=10,
                                 description="rounds of verifier feedback after a wrong expression (DoVerifier §4.3)")
    derivation: bool = Field(default=False, description="ask for a derivation from the causal quantity to the estimand "
                             "and check every step (estimand prompt)")
    judge_attempts: int = Field(default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per answer until a verdict line")
    graph_families: list[GraphFamily] | None = Field(default=None, description="only questions of these graph families")
    query_types: list[QueryType] | None = Field(default=None, description="only questions of these query types")


def check(settings: RunSettings, options: CladderOptions, roles: frozenset[Role]) -> None:
    if options.derivation and options.prompt != "estimand":
        raise RunConfigurationError("--derivation goes with --prompt estimand (the paper's prompt shows no causal quantity "
                                    "to derive from)")


def items(context: TaskContext) -> list[Item]:
    """The questions (of the chosen families and query types) except those whose CLadder estimand uses
    a variable the story calls unobserved (:func:`~causal_datasets.docalc.task.reference_unobserved`:
    the arrowhead natural effects), which no answer over observed variables can match."""
    options: CladderOptions = context.options
    return [Item(q.id, "questions", q) for q in context.load("questions").records
            if (not options.graph_families or q.graph_id in options.graph_families)
            and (not options.query_types or q.query_type in options.query_types) and not task.reference_unobserved(q)]


def solve(item: Item, context: TaskContext) -> Outcome:
    q: CladderQuestionRow = item.row
    options: CladderOptions = context.options
    messages = request(q, options)
    model = context.clients["model"]
    raw = model.chat(messages).text  # an LLMError makes the item failed
    fields: dict[str, Any] = {"messages": messages, "reference": q.estimand, "rung": q.rung, "query_type": q.query_type,
                              "graph_id": q.graph_id, "raw": raw}
    fields |= _answer(raw, q, options)
    judge = context.client("judge")
    if judge is not None:
        verdict = ask_judge(judge, fields["expression"], q.estimand, task.question_graph(q), options.judge_attempts)
        fields |= {"judge": verdict.equivalent, "judge_error": verdict.error, "judge_answers": verdict.answers}
    if options.feedback_rounds:
        fields |= _feedback_loop(messages, raw, fields, q, options, model)
    return Outcome(fields)


def request(q: CladderQuestionRow, options: CladderOptions) -> list[dict[str, str]]:
    """The opening messages for ``q`` under the chosen prompt."""
    if options.prompt == "paper":
        return paper_task.build_messages(q)
    messages = task.build_messages(q)
    if options.derivation:
        messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{DERIVATION_REQUEST}"}
    return messages


def _answer(raw: str, q: CladderQuestionRow, options: CladderOptions) -> dict[str, Any]:
    """The expression of a reply and its scores; with the paper prompt also its graph and yes/no answer."""
    if options.prompt == "estimand":
        expression = task.extract_estimand(raw)
        fields = {"expression": expression, **task.score_answer(expression, q, seed=options.verifier_seed)}
        if options.derivation:
            fields |= _derivation(raw, q, seed=options.verifier_seed)
        return fields
    answer = paper_task.read_answer(raw)
    fields = {"expression": answer.expression, **task.score_answer(answer.expression, q, seed=options.verifier_seed),
              "final_answer": answer.final_answer, "graph_text": answer.graph}
    fields["answer_correct"] = None if q.answer is None else answer.final_answer == q.answer
    graph, error, detail = paper_task.model_graph(answer.graph, q)
    fields |= {"graph_error": error, "graph_detail": detail}
    if graph is None:
        return fields | {"equivalent_own_graph": None, "own_graph_error": error, "graph_edge_f1": 0.0, "graph_shd": None}
    own = task.score_answer(answer.expression, q, seed=options.verifier_seed, graph=graph)
    comparison = compare_graphs(list(graph.edges), [(e.source, e.target) for e in q.edges])
    return fields | {"equivalent_own_graph": own["equivalent"], "own_graph_error": own["error"],
                     "graph_edge_f1": comparison.edge_f1, "graph_shd": comparison.shd}


def _derivation(raw: str, q: CladderQuestionRow, *, seed: int) -> dict[str, Any]:
    score = score_derivation(raw, task.question_graph(q), seed=seed)
    query = formal_expression(q)
    return {"derivation": score.to_dict(), "derivation_valid_share": score.valid_share,
            "derivation_from_query": None if score.start is None or query is None else same_expression(score.start, query)}


def _feedback_loop(messages, raw: str, first: dict[str, Any], q: CladderQuestionRow, options: CladderOptions,
                   model) -> dict[str, Any]:
    """Up to ``feedback_rounds`` rounds: while the expression is not verified, send the diagnosis
    (graph and expression only, never the reference) and score the revised answer."""
    answer_format = paper_task.ANSWER_FORMAT if options.prompt == "paper" else ESTIMAND_FORMAT
    conversation = [*messages, {"role": "assistant", "content": raw}]
    current, rounds = first, []
    for number in range(1, options.feedback_rounds + 1):
        if current["equivalent"] is True:
            break
        findings = diagnose(current["expression"], task.question_graph(q), query_type=q.query_type)
        note = feedback_message(findings, answer_format)
        conversation.append({"role": "user", "content": note})
        reply = model.chat(conversation).text
        conversation.append({"role": "assistant", "content": reply})
        current = _answer(reply, q, options)
        rounds.append({"round": number, "findings": [f.to_dict() for f in findings], "feedback": note, "raw": reply,
                       "expression": current["expression"], "equivalent": current["equivalent"],
                       "error": current["error"]})
    kind = (rounds[0]["findings"][0]["kind"] if rounds[0]["findings"] else "not_accepted") if rounds else None
    return {"feedback": rounds, "feedback_kind": kind, "equivalent_after_feedback": current["equivalent"]}


# ---- summary ---------------------------------------------------------------------------------------


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[CladderMetrics, Slices]:
    """Table 1 (verifier, string match, judge, token baselines) overall and per rung, query type and
    graph family; Table 2 (before/after feedback) by diagnosis and per round; error categories,
    verdict methods, proof lengths, graph errors, derivation steps."""
    options: CladderOptions = context.options
    lengths = Counter(r["proof_length"] for r in results if r["proof_length"] is not None)
    judged = any(r.get("judge_answers") is not None for r in results)
    paper = options.prompt == "paper"
    metrics = CladderMetrics(
        **_rates(results, judged, options),
        derivation_valid_share=_mean(r.get("derivation_valid_share") for r in results) if options.derivation else None,
        errors=_counts(r["error"] for r in results),
        methods=_counts(r["method"] for r in results),
        proof_lengths={str(length): n for length, n in sorted(lengths.items())},
        judge_agreement=_judge_agreement(results) if judged else None,
        feedback=_feedback_table(results) if options.feedback_rounds else None,
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
        slices["by_feedback_round"] = _by_round(results, options.feedback_rounds)
    return metrics, slices


def _rates(results: list[dict[str, Any]], judged: bool, options: CladderOptions) -> dict[str, Any]:
    n = len(results)
    paper = options.prompt == "paper"
    return {
        "n": n,
        "accuracy": _share(r["equivalent"] is True for r in results),
        "string_match": _share(bool(r["string_match"]) for r in results),
        "judge": _share(r.get("judge") is True for r in results) if judged else None,
        "bleu": _mean(r.get("bleu") for r in results),
        "token_f1": _mean(r.get("token_f1") for r in results),
        "accuracy_own_graph": _share(r.get("equivalent_own_graph") is True for r in results) if paper else None,
        "answer_accuracy": _share(r.get("answer_correct") is True for r in results) if paper else None,
        "graph_edge_f1": _mean(r.get("graph_edge_f1") for r in results) if paper else None,
        "accuracy_after_feedback": _share(r.get("equivalent_after_feedback") is True for r in results)
        if options.feedback_rounds else None,
    }


def _slice_rates(results: list[dict[str, Any]], judged: bool, options: CladderOptions) -> dict[str, Any]:
    """A slice's numbers: the rates that apply to this run (None ones left out)."""
    return {name: value for name, value in _rates(results, judged, options).items() if value is not None}


def _judge_agreement(results: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """The judge against the verifier as reference, over answers both decided (Cohen's κ included)."""
    def label(value: bool | None) -> str:
        return "unknown" if value is None else ("correct" if value else "wrong")

    return agreement([label(r.get("judge")) for r in results], [label(r["equivalent"]) for r in results])


def _feedback_table(results: list[dict[str, Any]]) -> dict[str, dict[str, float | int | None]]:
    """Table 2: over all answers and per diagnosis of the first round, accuracy before and after."""
    groups: dict[str, list[dict[str, Any]]] = {"all": results}
    for result in results:
        if result.get("feedback_kind"):
            groups.setdefault(result["feedback_kind"], []).append(result)
    table = {}
    for name, group in groups.items():
        fixed = sum(r["equivalent"] is not True and r.get("equivalent_after_feedback") is True for r in group)
        table[name] = {"n": len(group), "before": _share(r["equivalent"] is True for r in group),
                       "after": _share(r.get("equivalent_after_feedback") is True for r in group), "fixed": fixed}
    return table


def _by_round(results: list[dict[str, Any]], rounds: int) -> dict[str, dict[str, float | int]]:
    """Accuracy after each round over all answers (an answer verified earlier stays verified)."""
    table = {}
    for number in range(rounds + 1):
        right = 0
        for result in results:
            verdicts = [result["equivalent"]] + [r["equivalent"] for r in result.get("feedback") or ()]
            right += verdicts[min(number, len(verdicts) - 1)] is True
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
    """Verified equivalent, string match (each 0 or 1), BLEU and token F1, and the judge's and the
    after-feedback verdicts where the run has them: their means are the run's rates."""
    scores = {"accuracy": float(result["equivalent"] is True), "string_match": float(bool(result["string_match"]))}
    for name in ("bleu", "token_f1"):
        if result.get(name) is not None:
            scores[name] = float(result[name])
    if "judge_answers" in result:
        scores["judge"] = float(result.get("judge") is True)
    if "equivalent_after_feedback" in result:
        scores["accuracy_after_feedback"] = float(result["equivalent_after_feedback"] is True)
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
        Mean("accuracy_own_graph", lambda r: _present(r, "equivalent_own_graph")),
        Mean("answer_accuracy", lambda r: _present(r, "answer_correct")),
        Mean("graph_edge_f1", lambda r: r.get("graph_edge_f1")),
        Mean("derivation_valid_share", lambda r: r.get("derivation_valid_share")),
        *agreement_estimators("judge_agreement", lambda r: (_verdict(r.get("judge")), _verdict(r["equivalent"]))),
    ),
)


TASK = Task(
    name="cladder_pairs",
    help="CLadder estimand task (DoVerifier): the model identifies the estimand of a CLadder question; scored by the "
    "do-calculus equivalence verifier, string match, BLEU, token F1 and optionally an LLM judge; optional verifier "
    "feedback, the paper's two-shot prompt with the model's own graph, and derivation checking. Questions whose "
    "estimand uses a variable the story calls unobserved (the arrowhead natural effects) are left out",
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
