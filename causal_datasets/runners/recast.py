"""``causal-datasets eval recast``: a chat model builds each paper's causal graph; the graph is scored.

Per sample: the context-window check (a sample that does not fit is excluded before any call, as
in the paper), the generation prompt (``name_assisted``: with the ground-truth node ids), answer
parsing with the formatting-correction fallback (by the ``corrector`` model, or the model itself),
name-based scores (exact and normalized) and, with a ``judge`` model, the paper's LLM judge. A
sample whose generation or judge calls the server could not answer is a failed item (run again by
``--resume``); an unusable answer is a scored item with its error category, and one without a
readable graph (``format_error``) scores the worst (:mod:`causal_datasets.recast.metric`).

The summary holds the paper's analyses (:mod:`causal_datasets.recast.analysis`) of the scored
samples (every sample but the excluded ones): by degree of confounding (lenient and strict, balanced bins), domain, number of
domains, knowledge cutoff (with the Mann–Whitney U test), size quartiles (Table 4) and R² of
confounding on log size.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.errors import LLM_CATEGORIES
from causal_datasets.recast import analysis
from causal_datasets.recast.deterministic import FIELDS, MATCHINGS, mean_scores
from causal_datasets.recast.generation import GENERATION_ERRORS, generate
from causal_datasets.recast.judge.evaluate import SCORE_NAMES, aggregate
from causal_datasets.recast.metric import score_item
from causal_datasets.recast.prompts import build_messages
from causal_datasets.records.recast import DOMAINS, RecastSample
from causal_datasets.runners.records import RecastMetrics, Slices
from causal_datasets.runners.task import Estimates, Item, Outcome, RoleSpec, Task, TaskContext
from causal_datasets.uncertainty import Mean, ratio

#: sample attributes kept in each result (the report's scatter plots read them)
SAMPLE_FIELDS = ("text_length", "num_nodes", "num_edges", "confounding_lenient", "confounding_strict")


class RecastOptions(BaseModel):
    name_assisted: bool = Field(default=False, description="give the model the ground-truth node names with ids (the paper's ablation)")
    ids: list[int] | None = Field(default=None, description="only these sample ids")
    max_attempts: int = Field(default=3, ge=1, description="calls per formatting correction and per judge evaluation")
    reversal_cost: float = Field(default=1, ge=1, le=2, description="SHD cost of a reversed edge, 1 or 2 (2 = the paper's convention)")
    context_check: bool = Field(default=True, description="exclude samples that do not fit the model's context window before calling it")
    confounding_bins: int = Field(default=4, ge=1, description="bins of the lenient degree of confounding, each with about as many samples")
    strict_confounding_bins: int = Field(default=5, ge=1, description="bins of the strict degree of confounding")
    knowledge_cutoff: datetime.date = Field(default=analysis.DEFAULT_CUTOFF,
                                            description="papers published on or after this date are 'recent' (YYYY-MM-DD)")


def items(context: TaskContext) -> list[Item]:
    wanted = set(context.options.ids or ())
    samples = sorted(context.load("default").records, key=lambda s: s.id)
    return [Item(str(s.id), "default", s) for s in samples if not wanted or s.id in wanted]


def solve(item: Item, context: TaskContext) -> Outcome:
    sample: RecastSample = item.row
    options: RecastOptions = context.options
    model, judge = context.clients["model"], context.client("judge")
    generation = generate(model, sample, name_assisted=options.name_assisted, corrector=context.client("corrector"),
                          max_attempts=options.max_attempts, check_context=options.context_check)
    fields = {"messages": build_messages(sample, name_assisted=options.name_assisted),
              **{name: getattr(sample, name) for name in SAMPLE_FIELDS},
              "completion_tokens": generation.completion_tokens,
              "generation": generation.to_dict(), "error": generation.error, "judged": judge is not None}
    if generation.error == "llm_error":
        return Outcome(fields, f"llm_error: {generation.error_detail}")
    if generation.error == "context_exceeded":
        return Outcome(fields)  # not sent: excluded from every score
    graph = None if generation.error == "format_error" else generation.graph()  # None: scored the worst
    scores = score_item(graph, sample, judge=judge, reversal_cost=options.reversal_cost,
                        max_attempts=options.max_attempts)
    fields |= {"deterministic": scores["deterministic"], "judge": scores.get("judge"),
               "error": generation.error or scores["error"]}
    transport = [e["error"] for e in (scores.get("judge") or {}).get("evaluations", {}).values()
                 if e["error"] and e["error"].split(" ", 1)[0] in LLM_CATEGORIES]
    return Outcome(fields, f"judge: {transport[0]}" if transport else None)


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[RecastMetrics, Slices]:
    """Generation outcome counts, name-based means ± SD and judge means ± SD over the scored samples,
    and the paper's analyses of them.

    A sample without a readable graph (``format_error``) scores the worst and stays in every mean;
    it is counted under ``generation`` and in ``unparsable``, and ``scored_share`` says how many
    samples had a graph. A sample that does not fit the context window is counted under
    ``generation`` and in ``excluded``, and left out of every score.
    """
    options: RecastOptions = context.options
    dataset = sorted(context.load("default").records, key=lambda s: s.id)
    by_id = {str(s.id): s for s in dataset}
    outcomes = Counter(r["generation"]["error"] or "ok" for r in results)
    scored = [r for r in results if "deterministic" in r]
    rows = [analysis.Scored(by_id[r["id"]], sample_scores(r)) for r in scored if r["id"] in by_id]
    judged = [r["judge"]["scores"] for r in scored if r.get("judge")]
    metrics = RecastMetrics(
        samples=len(results),
        scored_share=(len(scored) - outcomes.get("format_error", 0)) / len(results) if results else 0.0,
        excluded=outcomes.get("context_exceeded", 0),
        unparsable=outcomes.get("format_error", 0),
        generation={key: outcomes.get(key, 0) for key in ("ok", *GENERATION_ERRORS)},
        corrected=sum(r["generation"]["corrected"] for r in results),
        deterministic=mean_scores([r["deterministic"] for r in scored]),
        judge_errors=sum(bool(r.get("judge") and r["judge"]["error"]) for r in scored),
        judge=aggregate(judged) if judged else None,
        knowledge_cutoff=analysis.cutoff_test(rows, options.knowledge_cutoff),
        size_confounding_r2=analysis.size_confounding_r2([row.sample for row in rows]),
    )
    slices = {
        "by_confounding": analysis.by_confounding(rows, dataset, "confounding_lenient", options.confounding_bins),
        "by_confounding_strict": analysis.by_confounding(rows, dataset, "confounding_strict",
                                                         options.strict_confounding_bins),
        "by_domain": analysis.by_domain(rows, DOMAINS),
        "by_num_domains": analysis.by_domain_count(rows),
        "by_knowledge_cutoff": analysis.by_cutoff(rows, options.knowledge_cutoff),
        "by_size_quartile": analysis.by_size_quartile(rows, dataset),
    }
    return metrics, slices


def sample_scores(result: Mapping[str, Any]) -> dict[str, float | None]:
    """The two scores the analyses use: the judge's overall F1 (None unless judged) and normalized edge F1."""
    judge = (result.get("judge") or {}).get("scores") or {}
    return {"judge_f1": judge.get("f1"), "edge_f1_normalized": result["deterministic"]["normalized"]["edge_f1"]}


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Whether a graph was predicted, its normalized-name edge F1 and, when judged, the judge's F1.

    A sample without a usable prediction scores 0 on both F1s (the worst, as in ``summarize``); an
    unscored judge F1 counts 0.
    """
    scored = "deterministic" in result
    scores = {"usable": float(scored and result["generation"]["error"] != "format_error"),
              "edge_f1_normalized": float(result["deterministic"]["normalized"]["edge_f1"]) if scored else 0.0}
    if result["judged"]:
        scores["judge_f1"] = float((result.get("judge") or {}).get("scores", {}).get("f1") or 0.0)
    return scores


def groups(item: Item, context: TaskContext) -> dict[str, str | list[str] | None]:
    """The analyses' groups of a sample (bins and quartile thresholds from the whole dataset, as ``summarize``);
    Table 4's quartile differences have no groups of their own."""
    sample: RecastSample = item.row
    options: RecastOptions = context.options
    dataset = context.load("default").records
    found: dict[str, str | list[str] | None] = {
        "by_domain": analysis.other_domains(sample), "by_num_domains": analysis.domain_count_group(sample),
        "by_knowledge_cutoff": analysis.cutoff_group(sample, options.knowledge_cutoff)}
    for name, attribute, count in (("by_confounding", "confounding_lenient", options.confounding_bins),
                                   ("by_confounding_strict", "confounding_strict", options.strict_confounding_bins)):
        value, bins = getattr(sample, attribute), analysis.confounding_bins(dataset, attribute, count)
        found[name] = analysis.bin_of(value, bins).label if value is not None and bins else None
    return found


def _over_scored(value: Callable[[Mapping[str, Any]], float | None]) -> tuple[Callable, Callable]:
    """Numerator and denominator of the mean of ``value`` over the samples that have one."""
    def present(result: Mapping[str, Any]) -> float:
        return float(value(result) is not None)

    return (lambda result: value(result) if present(result) else 0.0), present


def _deterministic(matching: str, name: str) -> Callable[[Mapping[str, Any]], float | None]:
    return lambda result: result["deterministic"][matching][name] if "deterministic" in result else None


def _judged(name: str) -> Callable[[Mapping[str, Any]], float | None]:
    def value(result: Mapping[str, Any]) -> float | None:
        scores = (result.get("judge") or {}).get("scores") or {}
        return scores.get(name) if "deterministic" in result else None

    return value


#: a paper is one sample in the release; the means over the samples with a prediction (or a judge score) are
#: ratios: which samples have one depends on the model's answers
ESTIMATES = Estimates(
    unit="paper",
    cluster=lambda item: item.row.url,
    groups=groups,
    estimators=(
        Mean("scored_share", lambda result: float("deterministic" in result)),
        *(ratio(f"deterministic.{matching}.{name}", *_over_scored(_deterministic(matching, name)))
          for matching in MATCHINGS for name in FIELDS),
        *(ratio(f"judge.{name}", *_over_scored(_judged(name))) for name in SCORE_NAMES),
        ratio("edge_f1_normalized", *_over_scored(_deterministic("normalized", "edge_f1"))),
        ratio("judge_f1", *_over_scored(_judged("f1"))),
    ),
)


TASK = Task(
    name="recast",
    help="ReCAST: build causal graphs of economics papers with a model; judge and name-based scores",
    dataset="recast",
    configs=("default",),
    default_configs=("default",),
    items=items,
    solve=solve,
    summarize=summarize,
    item_scores=item_scores,
    roles=(
        RoleSpec("model", "a model to build the graphs", required=True),
        RoleSpec("judge", "the LLM judge of the paper (omit: name-based scores only)"),
        RoleSpec("corrector", "the model of the formatting-correction step", fallback="model"),
    ),
    options=RecastOptions,
    from_files=True,
    estimates=ESTIMATES,
)
