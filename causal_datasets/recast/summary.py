"""The summary of a ReCAST run: :class:`RecastMetrics` and the paper's analyses as slices.

Over the scored samples (every sample but the excluded ones): generation outcomes, name-based and
judge means ± SD, and the paper's analyses (:mod:`causal_datasets.recast.analysis`): by degree of
confounding (lenient and strict, balanced bins), domain, number of domains, knowledge cutoff (with
the Mann–Whitney U test), size quartiles (Table 4) and R² of confounding on log size.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import Field

from causal_datasets.recast import analysis
from causal_datasets.recast.deterministic import mean_scores
from causal_datasets.recast.generation import GENERATION_ERRORS, Generation
from causal_datasets.recast.judge.evaluate import aggregate
from causal_datasets.recast.options import RecastOptions
from causal_datasets.recast.records import DOMAINS, RecastSample
from causal_datasets.recast.scores import RecastScores, sample_scores
from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import Scored, TaskContext


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
