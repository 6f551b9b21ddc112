"""DoVerifier's tables from a run's scores: :class:`CladderMetrics` (Table 1 under both rules, beside string
match, the judge and the token baselines; Table 2, accuracy before and after feedback), :func:`summarize`
(overall and per rung, query type, graph family and feedback round) and :func:`item_scores` (one
question's share of the rates)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from statistics import fmean
from typing import Any, Literal

from pydantic import Field

from causal_datasets.agreement import agreement
from causal_datasets.cladder_pairs.generation import CladderGeneration
from causal_datasets.cladder_pairs.options import CladderOptions
from causal_datasets.cladder_pairs.records import Reference
from causal_datasets.cladder_pairs.replies import REFERENCES, is_credited
from causal_datasets.cladder_pairs.scores import CladderScores
from causal_datasets.docalc.scoring_rules import ScoringRule
from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import Scored, TaskContext

SLICES = (("by_rung", "rung"), ("by_query_type", "query_type"), ("by_graph_family", "graph_id"))


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
    reference: Reference = Field(
        default="estimand", title="reference", description="what answers were scored against: formal-form or estimand"
    )
    by_reference: dict[str, dict[str, float]] | None = Field(
        default=None,
        title="Table 1 against each reference",
        description="equivalent, identified and string match against CLadder's formal form and its estimand",
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
    bertscore: float | None = Field(
        default=None, title="BERTScore F1", description="mean BERTScore F1 against the reference (--bertscore-model)"
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
        reference=options.reference or "estimand",
        by_reference=_by_reference(scores),
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
        "accuracy": _share(is_credited(s, rule) for s in scores),
        "equivalence_accuracy": _share(s.equivalent is True for s in scores),
        "identification_accuracy": _share(s.identified is True for s in scores),
        "string_match": _share(s.string_match for s in scores),
        "judge": _share(s.judge is True for s in scores) if judged else None,
        "bleu": _mean(s.bleu for s in scores),
        "token_f1": _mean(s.token_f1 for s in scores),
        "bertscore": _mean(s.bertscore for s in scores),
        "accuracy_own_graph": _share(is_credited(s, rule, suffix="_own_graph") for s in scores) if paper else None,
        "answer_accuracy": _share(s.answer_correct is True for s in scores) if paper else None,
        "graph_edge_f1": _mean(s.graph_edge_f1 for s in scores) if paper else None,
        "accuracy_after_feedback": _share(is_credited(s, rule, suffix="_after_feedback") for s in scores)
        if options.feedback_rounds
        else None,
    }


def _by_reference(scores: list[CladderScores]) -> dict[str, dict[str, float]] | None:
    """The verifier's and string match's rates against each reference (None: lines scored before both were kept)."""
    if not scores or any(s.by_reference is None for s in scores):
        return None
    return {
        reference: {
            name: _share(bool((s.by_reference or {})[reference][field]) for s in scores)
            for name, field in (
                ("equivalence_accuracy", "equivalent"),
                ("identification_accuracy", "identified"),
                ("string_match", "string_match"),
            )
        }
        for reference in REFERENCES
    }


def _slice_rates(scores: list[CladderScores], judged: bool, options: CladderOptions) -> dict[str, Any]:
    """A slice's numbers: the rates that apply to this run (None ones left out); its count as ``n``."""
    rates = {name: value for name, value in _rates(scores, judged, options).items() if value is not None}
    return {"n": rates.pop("count"), **rates}


def _judge_agreement(scores: list[CladderScores]) -> dict[str, float | int | None]:
    """The judge against the verifier's equivalence verdict (the question both answer), over answers
    both decided (Cohen's κ included)."""
    return agreement([verdict_label(s.judge) for s in scores], [verdict_label(s.equivalent) for s in scores])


def _feedback_table(scores: list[CladderScores], rule: str) -> dict[str, dict[str, float | int | None]]:
    """Table 2 under ``rule``: over all answers and per diagnosis of the first round, accuracy before and after."""
    groups: dict[str, list[CladderScores]] = {"all": scores}
    for one in scores:
        if one.feedback_kind:
            groups.setdefault(one.feedback_kind, []).append(one)
    table: dict[str, dict[str, float | int | None]] = {}
    for name, group in groups.items():
        before = [is_credited(s, rule) for s in group]
        after = [is_credited(s, rule, suffix="_after_feedback") for s in group]
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
            right += is_credited(replies[min(number, len(replies) - 1)], rule)
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
        "accuracy": float(is_credited(scores, rule)),
        "equivalence_accuracy": float(scores.equivalent is True),
        "identification_accuracy": float(scores.identified is True),
        "string_match": float(scores.string_match),
        "bleu": scores.bleu,
        "token_f1": scores.token_f1,
    }
    if scores.bertscore is not None:
        result["bertscore"] = scores.bertscore
    if scores.judge_answers is not None:
        result["judge"] = float(scores.judge is True)
    if scores.feedback is not None:
        result["accuracy_after_feedback"] = float(is_credited(scores, rule, suffix="_after_feedback"))
    return result


def verdict_label(value: bool | None) -> str:
    return "unknown" if value is None else ("correct" if value else "wrong")
