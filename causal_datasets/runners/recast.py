"""``causal-datasets eval recast``: a chat model builds each paper's causal graph; the graph is scored.

Per sample: the context-window check (a sample that does not fit is excluded before any call, as
in the paper), the generation prompt (``name_assisted``: with the ground-truth node ids), answer
parsing with the formatting-correction fallback (by the ``corrector`` model, or the model itself),
name-based scores (exact and normalized) and, with a ``judge`` model, the paper's LLM judge. A
sample whose generation or judge calls the server could not answer is a failed item (run again by
``--resume``); an unusable answer is a scored item with its error category, and one without a
readable graph (``format_error``) scores the worst (:mod:`causal_datasets.recast.metric`).

Generation (the prompt, the answer, its parsing, the formatting fix) is the item's transcript;
scoring reads the predicted graph off it and asks the judge, so ``causal-datasets rescore`` can
score it again (e.g. with a judge the run did not have) without the model.

The summary holds the paper's analyses (:mod:`causal_datasets.recast.analysis`) of the scored
samples (every sample but the excluded ones): by degree of confounding (lenient and strict, balanced
bins), domain, number of
domains, knowledge cutoff (with the Mann–Whitney U test), size quartiles (Table 4) and R² of
confounding on log size.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from causal_datasets.errors import LLM_CATEGORIES
from causal_datasets.recast import analysis
from causal_datasets.recast.deterministic import FIELDS, MATCHINGS, mean_scores
from causal_datasets.recast.generation import GENERATION_ERRORS, Generation, generate
from causal_datasets.recast.judge.evaluate import SCORE_NAMES, aggregate
from causal_datasets.recast.metric import score_item
from causal_datasets.records.recast import DOMAINS, RecastSample
from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import CallFailed, Estimates, Item, RoleSpec, Scored, Task, TaskContext, Transcript
from causal_datasets.uncertainty import Mean, Statistic, ratio
from causal_datasets.views import RadarPlot, ResultsHistogram, ResultsScatter, SlicePlot, View

#: sample attributes kept in each result (the report's scatter plots read them)
SAMPLE_FIELDS = ("text_length", "num_nodes", "num_edges", "confounding_lenient", "confounding_strict")


class RecastOptions(BaseModel):
    name_assisted: bool = Field(
        default=False, description="give the model the ground-truth node names with ids (the paper's ablation)"
    )
    ids: list[int] | None = Field(default=None, description="only these sample ids")
    max_attempts: int = Field(default=3, ge=1, description="calls per formatting correction and per judge evaluation")
    reversal_cost: float = Field(
        default=1, ge=1, le=2, description="SHD cost of a reversed edge, 1 or 2 (2 = the paper's convention)"
    )
    context_check: bool = Field(
        default=True, description="exclude samples that do not fit the model's context window before calling it"
    )
    confounding_bins: int = Field(
        default=4, ge=1, description="bins of the lenient degree of confounding, each with about as many samples"
    )
    strict_confounding_bins: int = Field(default=5, ge=1, description="bins of the strict degree of confounding")
    knowledge_cutoff: datetime.date = Field(
        default=analysis.DEFAULT_CUTOFF, description="papers published on or after this date are 'recent' (YYYY-MM-DD)"
    )


def items(context: TaskContext) -> list[Item]:
    wanted = set(context.options.ids or ())
    samples = sorted(context.rows("default", RecastSample), key=lambda s: s.id)
    return [Item(str(s.id), "default", s) for s in samples if not wanted or s.id in wanted]


class RecastScores(BaseModel):
    """A sample's scores: its size and confounding (the analyses' axes), whether it was judged, the
    name-based scores and the judge's of its predicted graph (None without a prediction), and the
    error category of the generation or of the scoring."""

    text_length: int
    num_nodes: int
    num_edges: int
    confounding_lenient: float | None
    confounding_strict: float | None
    judged: bool
    error: str | None
    prediction_edges: list[list[str]] | None = None
    deterministic: dict[str, dict[str, Any]] | None = None
    judge: dict[str, Any] | None = None


class RecastMetrics(BenchmarkMetrics):
    """ReCAST: generation outcomes, name-based and judge scores (mean ± population SD, as Table 2), the
    knowledge-cutoff test (App. Table 3) and confounding vs size (Fig. 3); the other analyses are slices."""

    benchmark: Literal["recast"] = "recast"
    count: int = Field(title="samples")
    scored_share: float = Field(title="scored share", description="samples with a predicted graph / samples")
    unparsable: int = Field(
        default=0,
        title="unparsable answers (scored the worst)",
        description="samples without a readable graph: every score 0, the maximal SHD, kept in every mean",
    )
    excluded: int = Field(
        default=0,
        title="excluded (too long for the context window)",
        description="samples that do not fit the model's context window: not sent, left out of every score",
    )
    corrected: int = Field(title="answers fixed by the corrector")
    judge_errors: int = Field(title="samples with a judge error")
    generation: dict[str, int] = Field(title="generation outcomes")
    deterministic: dict[str, dict[str, float | None]] = Field(title="name-based scores by node matching (mean, SD)")
    judge: dict[str, float | int | None] | None = Field(default=None, title="judge scores (mean, SD, count)")
    knowledge_cutoff: dict[str, float | int | None] | None = Field(
        default=None,
        title="knowledge cutoff: Mann–Whitney U test, recent vs older papers",
        description="group sizes and, per score, U (of the recent group) and the two-sided p",
    )
    size_confounding_r2: dict[str, float | None] | None = Field(
        default=None,
        title="R² of the lenient degree of confounding on log10 size",
        description="least-squares fit over the scored samples, per size attribute",
    )


def solve(item: Item, context: TaskContext) -> Generation:
    sample: RecastSample = item.row
    options: RecastOptions = context.options
    generation = generate(
        context.clients["model"],
        sample,
        name_assisted=options.name_assisted,
        corrector=context.client("corrector"),
        max_attempts=options.max_attempts,
        check_context=options.context_check,
    )
    if generation.error == "llm_error":
        raise CallFailed(generation.error_detail)
    return generation


def score(item: Item, transcript: Transcript[Generation], context: TaskContext) -> RecastScores:
    """The predicted graph against the sample (and by the judge, when there is one); a sample without a
    readable graph (``format_error``) scores the worst, one that was not sent (``context_exceeded``) is
    excluded (no scores)."""
    sample: RecastSample = item.row
    options: RecastOptions = context.options
    generation, judge = transcript.generation, context.client("judge")
    fields: dict[str, Any] = {name: getattr(sample, name) for name in SAMPLE_FIELDS}
    fields |= {"judged": judge is not None, "error": generation.error}
    if generation.error == "context_exceeded":
        return RecastScores(**fields)
    graph = None if generation.error == "format_error" else generation.graph()  # None: scored the worst
    scores = score_item(
        graph, sample, judge=judge, reversal_cost=options.reversal_cost, max_attempts=options.max_attempts
    )
    transport = [
        e["error"]
        for e in (scores.get("judge") or {}).get("evaluations", {}).values()
        if e["error"] and e["error"].split(" ", 1)[0] in LLM_CATEGORIES
    ]
    if transport:
        raise CallFailed(transport[0])
    return RecastScores(
        **fields
        | {
            "prediction_edges": scores["prediction_edges"],
            "deterministic": scores["deterministic"],
            "judge": scores.get("judge"),
            "error": generation.error or scores["error"],
        }
    )


Sample = Scored[Generation, RecastScores]


def summarize(results: list[Sample], context: TaskContext) -> tuple[RecastMetrics, Slices]:
    """Generation outcome counts, name-based means ± SD and judge means ± SD over the scored samples,
    and the paper's analyses of them.

    A sample without a readable graph (``format_error``) scores the worst and stays in every mean;
    it is counted under ``generation`` and in ``unparsable``, and ``scored_share`` says how many
    samples had a graph. A sample that does not fit the context window is counted under
    ``generation`` and in ``excluded``, and left out of every score.
    """
    options: RecastOptions = context.options
    dataset = sorted(context.rows("default", RecastSample), key=lambda s: s.id)
    by_id = {str(s.id): s for s in dataset}
    outcomes: Counter[str] = Counter(r.generation.error or "ok" for r in results)
    scored = [r for r in results if r.scores.deterministic is not None]
    deterministic = [r.scores.deterministic for r in results if r.scores.deterministic is not None]
    rows = [analysis.Scored(by_id[r.id], sample_scores(r.scores)) for r in scored if r.id in by_id]
    judged = [r.scores.judge["scores"] for r in scored if r.scores.judge]
    metrics = RecastMetrics(
        count=len(results),
        scored_share=(len(scored) - outcomes.get("format_error", 0)) / len(results) if results else 0.0,
        excluded=outcomes.get("context_exceeded", 0),
        unparsable=outcomes.get("format_error", 0),
        generation={key: outcomes.get(key, 0) for key in ("ok", *GENERATION_ERRORS)},
        corrected=sum(r.generation.corrected for r in results),
        deterministic=mean_scores(deterministic),
        judge_errors=sum(bool(r.scores.judge and r.scores.judge["error"]) for r in scored),
        judge=aggregate(judged) if judged else None,
        knowledge_cutoff=analysis.cutoff_test(rows, options.knowledge_cutoff),
        size_confounding_r2=analysis.size_confounding_r2([row.sample for row in rows]),
    )
    slices = {
        "by_confounding": analysis.by_confounding(rows, dataset, "confounding_lenient", options.confounding_bins),
        "by_confounding_strict": analysis.by_confounding(
            rows, dataset, "confounding_strict", options.strict_confounding_bins
        ),
        "by_domain": analysis.by_domain(rows, DOMAINS),
        "by_num_domains": analysis.by_domain_count(rows),
        "by_knowledge_cutoff": analysis.by_cutoff(rows, options.knowledge_cutoff),
        "by_size_quartile": analysis.by_size_quartile(rows, dataset),
    }
    return metrics, slices


def sample_scores(scores: RecastScores) -> dict[str, float | None]:
    """The two scores the analyses use: the judge's overall F1 (None unless judged) and normalized edge F1."""
    judge = (scores.judge or {}).get("scores") or {}
    edge_f1 = scores.deterministic["normalized"]["edge_f1"] if scores.deterministic is not None else None
    return {"judge_f1": judge.get("f1"), "edge_f1_normalized": edge_f1}


def item_scores(scores: RecastScores) -> dict[str, float]:
    """Whether a graph was predicted, its normalized-name edge F1 and, when judged, the judge's F1.

    A sample without a usable prediction scores 0 on both F1s (the worst, as in ``summarize``); an
    unscored judge F1 counts 0.
    """
    deterministic = scores.deterministic
    result = {
        "usable": _usable(scores),
        "edge_f1_normalized": float(deterministic["normalized"]["edge_f1"]) if deterministic is not None else 0.0,
    }
    if scores.judged:
        result["judge_f1"] = float((scores.judge or {}).get("scores", {}).get("f1") or 0.0)
    return result


def _usable(scores: RecastScores) -> float:
    """1 for a sample with a readable predicted graph."""
    return float(scores.deterministic is not None and scores.error != "format_error")


def groups(item: Item, context: TaskContext) -> dict[str, str | list[str] | None]:
    """The analyses' groups of a sample (bins and quartile thresholds from the whole dataset, as ``summarize``);
    Table 4's quartile differences have no groups of their own."""
    sample: RecastSample = item.row
    options: RecastOptions = context.options
    dataset = context.rows("default", RecastSample)
    found: dict[str, str | list[str] | None] = {
        "by_domain": analysis.other_domains(sample),
        "by_num_domains": analysis.domain_count_group(sample),
        "by_knowledge_cutoff": analysis.cutoff_group(sample, options.knowledge_cutoff),
    }
    for name, attribute, count in (
        ("by_confounding", "confounding_lenient", options.confounding_bins),
        ("by_confounding_strict", "confounding_strict", options.strict_confounding_bins),
    ):
        value, bins = getattr(sample, attribute), analysis.confounding_bins(dataset, attribute, count)
        found[name] = analysis.bin_of(value, bins).label if value is not None and bins else None
    return found


def _over_scored(name: str, value: Callable[[RecastScores], float | None]) -> Statistic:
    """``name``: the mean of ``value`` over the samples that have one (a ratio: which do depends on the answers)."""

    def present(scores: RecastScores) -> float:
        return float(value(scores) is not None)

    return ratio(name, lambda scores: value(scores) or 0.0, present)


def _deterministic(matching: str, name: str) -> Callable[[RecastScores], float | None]:
    return lambda scores: scores.deterministic[matching][name] if scores.deterministic is not None else None


def _judged(name: str) -> Callable[[RecastScores], float | None]:
    def value(scores: RecastScores) -> float | None:
        return ((scores.judge or {}).get("scores") or {}).get(name) if scores.deterministic is not None else None

    return value


#: a paper is one sample in the release; the means over the samples with a prediction (or a judge score) are
#: ratios: which samples have one depends on the model's answers
ESTIMATES = Estimates(
    unit="paper",
    cluster=lambda item: item.row.url,
    groups=groups,
    estimators=(
        Mean("scored_share", _usable),
        *(
            _over_scored(f"deterministic.{matching}.{name}", _deterministic(matching, name))
            for matching in MATCHINGS
            for name in FIELDS
        ),
        *(_over_scored(f"judge.{name}", _judged(name)) for name in SCORE_NAMES),
        _over_scored("edge_f1_normalized", _deterministic("normalized", "edge_f1")),
        _over_scored("judge_f1", _judged("f1")),
    ),
)

#: the two per-sample scores of ReCAST's analyses (recast.analysis.SCORES) and their names on plots
SCORES = (("judge_f1", "judge F1"), ("edge_f1_normalized", "edge F1 (normalized names)"))

VIEW = View(
    "ReCAST",
    (
        *(
            SlicePlot(
                slice,
                metric,
                f"ReCAST {name} by degree of confounding, {kind} ({figure})",
                f"{kind} degree of confounding (bins of about equal size)",
                name,
            )
            for slice, kind, figure in (
                ("by_confounding", "lenient", "Fig. 2"),
                ("by_confounding_strict", "strict", "App. Fig. 9"),
            )
            for metric, name in SCORES
        ),
        *(RadarPlot("by_domain", metric, f"ReCAST {name} by domain (Fig. 4)") for metric, name in SCORES),
        *(
            ResultsScatter(
                size,
                "confounding_lenient",
                f"ReCAST {label} vs confounding ({figure})",
                f"{label} (log scale)",
                "lenient degree of confounding",
                log_x=True,
            )
            for size, label, figure in (
                ("text_length", "text length", "Fig. 3, App. Fig. 6"),
                ("num_edges", "edges", "App. Fig. 7"),
                ("num_nodes", "nodes", "as App. Fig. 7"),
            )
        ),
        ResultsHistogram(
            "completion_tokens",
            "ReCAST answer length incl. reasoning trace (App. Figs. 4-5)",
            "completion tokens (bins of 1,000)",
            bin_width=1000,
        ),
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
    score=score,
    summarize=summarize,
    item_scores=item_scores,
    generation=Generation,
    scores=RecastScores,
    metrics=RecastMetrics,
    roles=(
        RoleSpec("model", "a model to build the graphs", required=True),
        RoleSpec("judge", "the LLM judge of the paper (omit: name-based scores only)", scoring=True),
        RoleSpec("corrector", "the model of the formatting-correction step", fallback="model"),
    ),
    options=RecastOptions,
    from_files=True,
    scoring_options=("reversal_cost", "confounding_bins", "strict_confounding_bins", "knowledge_cutoff"),
    estimates=ESTIMATES,
    view=VIEW,
    inspect={"recast": "default"},
)
