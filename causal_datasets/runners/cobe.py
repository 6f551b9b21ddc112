"""``causal-datasets eval cobe``: a chat model's counterfactual rewrites judged per criterion, or the published ones.

* config ``queries`` (default): the model answers each query row (scenario text, then the request);
  the judge (``--judge-model``, or the model itself when none is given) checks the answer criterion
  by criterion.
* config ``responses`` with a judge: no generation; the judge checks the model outputs published
  with the source, and the summary adds its agreement with their verdicts (accuracy, precision,
  recall, F1, Cohen's κ).
* config ``responses`` without any model: the published verdicts themselves are scored, offline
  (solver ``published``): per-model accuracy with its mean ± SD over the phrasings (Table 5) and
  accuracy per domain, graph type and phrasing for every model. The source publishes one verdict
  per response, not one per criterion, so E1–E5 rates need a judge.

``--failure-modes`` sorts every rewrite judged (or published) wrong into the paper's seven failure
modes (App. B.1) with the judge (:mod:`causal_datasets.cobe.failure_modes`): ``by_failure_mode``.
The summary's ``by_model`` slice is the per-model table (accuracy, phrasing mean ± SD, E1–E5),
and ``text_statistics`` the scenarios' Table 2 figures.

The rewrite is the item's generation; the judge's criterion verdicts and classifications are its
scoring, so ``causal-datasets rescore`` can judge the same rewrites again (e.g. ``--failure-modes``
with a ``--judge-model``) without the model that wrote them. A rewrite, a criterion or a
classification the server could not answer makes the item failed (run again by ``--resume``): a
transport failure is never scored as a wrong rewrite.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Literal, get_args

import numpy as np
from pydantic import BaseModel, Field

from causal_datasets.agreement import agreement, agreement_estimators
from causal_datasets.cobe.failure_modes import FAILURE_MODES, FailureCase, classify_failure
from causal_datasets.cobe.judge import DEFAULT_ATTEMPTS, CriterionVerdict, judge_response
from causal_datasets.cobe.prompts import CRITERION_CODES, CriteriaSet, build_messages
from causal_datasets.cobe.scoring import NOT_GIVEN, ScoredRow, by_model
from causal_datasets.cobe.scoring import summarize as summarize_rows
from causal_datasets.cobe.statistics import text_statistics
from causal_datasets.errors import LLM_CATEGORIES, RunConfigurationError
from causal_datasets.records.cobe import CoBeQuery, CoBeResponse, Phrasing
from causal_datasets.runners.records import BenchmarkMetrics, Role, Slices
from causal_datasets.runners.task import (
    CallFailed,
    Estimates,
    Item,
    RoleSpec,
    RunSettings,
    Scored,
    Task,
    TaskContext,
    Transcript,
)
from causal_datasets.uncertainty import Mean, Statistic, ratio
from causal_datasets.views import MappingBars, NestedBars, View

UNCLASSIFIED = "(unclassified)"


class CoBeOptions(BaseModel):
    phrasing: list[Phrasing] | None = Field(default=None, description="only these query phrasings")
    models: list[str] | None = Field(default=None, description="with --config responses: only these published models")
    max_attempts: int = Field(
        default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per criterion until a single T/F answer"
    )
    failure_modes: bool = Field(
        default=False, description="sort each wrong rewrite into the paper's seven failure modes with the judge"
    )


def check(settings: RunSettings, options: CoBeOptions, roles: frozenset[Role]) -> None:
    responses = tuple(settings.configs) == ("responses",)
    if not responses and "model" not in roles:
        raise RunConfigurationError("--config queries needs --model (and --base-url) to generate the rewrites")
    if options.failure_modes and "judge" not in roles and "model" not in roles:
        raise RunConfigurationError("--failure-modes needs a judge: pass --judge-model (and --judge-base-url)")
    if options.models and not responses:
        raise RunConfigurationError("--models picks published models: it needs --config responses")


def items(context: TaskContext) -> list[Item]:
    options: CoBeOptions = context.options
    queries = {
        q.id: q for q in context.rows("queries", CoBeQuery) if not options.phrasing or q.phrasing in options.phrasing
    }
    if context.configs == ("queries",):
        return [Item(q.id, "queries", (q, None)) for q in queries.values()]
    published = context.rows("responses", CoBeResponse)
    return [
        Item(r.id, "responses", (queries[r.query_id], r))
        for r in published
        if r.query_id in queries and (not options.models or r.model in options.models)
    ]


class CoBeGeneration(BaseModel):
    """The rewrite judged: written by the run's model (its call holds the request) or published with the source."""

    query_id: str
    scenario_id: str
    model: str = Field(description="the model that wrote the rewrite")
    response: str
    published_verdict: str | None = Field(default=None, description="the verdict published with a released rewrite")


class CoBeScores(BaseModel):
    """The judge's verdict on every criterion and the rewrite's verdict (the published verdict when no judge
    was asked), and the failure mode of a wrong rewrite with ``--failure-modes``."""

    query_id: str
    scenario_id: str
    model: str
    judged: bool
    verdict: str = Field(description="correct, wrong or unknown")
    criteria: list[CriterionVerdict]
    error: str | None
    error_detail: str | None = None
    published_verdict: str | None = None
    failure_mode: dict[str, Any] | None = None


class CoBeMetrics(BenchmarkMetrics):
    """CoBe: accuracy (also as mean ± SD over the phrasings, Table 5), E1–E5 failure rates, errors, agreement
    with the published verdicts and the scenarios' text statistics (Table 2); per-model tables are slices."""

    benchmark: Literal["cobe"] = "cobe"
    count: int = Field(title="responses")
    accuracy: float | None = Field(title="accuracy", description="responses passing every criterion / responses")
    accuracy_phrasing_mean: float | None = Field(
        default=None,
        title="accuracy, mean over phrasings",
        description="mean of the accuracies of the query phrasings (Table 5)",
    )
    accuracy_phrasing_sd: float | None = Field(
        default=None,
        title="accuracy, SD over phrasings",
        description="population SD of the accuracies of the query phrasings",
    )
    correct: int = Field(title="correct")
    wrong: int = Field(title="wrong")
    unknown: int = Field(title="unknown", description="responses with a criterion the judge could not decide")
    failure_rate: dict[str, float | None] = Field(title="failure rate per criterion")
    criteria: dict[str, dict[str, float | int | None]] = Field(title="criterion counts")
    errors: dict[str, dict[str, int]] = Field(title="errors (items, criteria)")
    agreement: dict[str, float | int | None] | None = Field(default=None, title="agreement with the published verdicts")
    text_statistics: dict[str, float | int | None] | None = Field(
        default=None,
        title="scenario text statistics",
        description="words, sentences and clauses per scenario (Table 2)",
    )


def solve(item: Item, context: TaskContext) -> CoBeGeneration:
    query, published = item.row
    if published is not None:
        return CoBeGeneration(
            query_id=query.id,
            scenario_id=query.scenario_id,
            model=published.model,
            response=published.response,
            published_verdict=published.verdict,
        )
    model = context.clients["model"]
    response = model.chat(build_messages(query)).text  # an LLMError makes the item failed
    return CoBeGeneration(query_id=query.id, scenario_id=query.scenario_id, model=model.config.model, response=response)


def score(item: Item, transcript: Transcript[CoBeGeneration], context: TaskContext) -> CoBeScores:
    """The judge's criterion verdicts (or the published verdict without a judge) and, for a wrong rewrite
    with ``--failure-modes``, its failure mode."""
    query, _ = item.row
    rewrite = transcript.generation
    options: CoBeOptions = context.options
    judge = context.client("judge")
    fields: dict[str, Any] = {
        "query_id": rewrite.query_id,
        "scenario_id": rewrite.scenario_id,
        "model": rewrite.model,
        "published_verdict": rewrite.published_verdict,
        "judged": judge is not None,
    }
    if judge is None:  # scoring the published verdicts themselves
        fields |= {"verdict": rewrite.published_verdict, "criteria": [], "error": None}
    else:
        fields |= judge_response(judge, CriteriaSet.of(query), rewrite.response, options.max_attempts).to_dict()
    if options.failure_modes and judge is not None and fields["verdict"] == "wrong" and rewrite.response.strip():
        case = FailureCase(query.text, query.query, CriteriaSet.of(query), rewrite.response)
        fields["failure_mode"] = classify_failure(judge, case, options.max_attempts).to_dict()
    scores = CoBeScores(**fields)
    if _transport_failure(scores):
        raise CallFailed(_transport_failure(scores))
    return scores


def _transport_failure(scores: CoBeScores) -> str | None:
    """``"<category>: <detail>"`` of the first judge call the server could not answer, else None."""
    errors = [(c.error, c.error_detail) for c in scores.criteria]
    if scores.failure_mode:
        errors.append((scores.failure_mode["error"], scores.failure_mode["error_detail"]))
    failed = [(error, detail) for error, detail in errors if error and error.removeprefix("judge_") in LLM_CATEGORIES]
    return f"{failed[0][0]}: {failed[0][1]}" if failed else None


Rewrite = Scored[CoBeGeneration, CoBeScores]


def summarize(results: list[Rewrite], context: TaskContext) -> tuple[CoBeMetrics, Slices]:
    queries = {q.id: q for q in context.rows("queries", CoBeQuery)}
    scores = [r.scores for r in results]
    rows = [_scored(s, queries[s.query_id]) for s in scores]
    summary = summarize_rows(rows)
    slices = {name: summary.pop(name) for name in ("by_domain", "by_graph_type", "by_phrasing")}
    slices["by_model"] = by_model(rows)
    summary["count"] = summary.pop("n")
    summary["errors"] = _error_counts(scores)
    summary["text_statistics"] = text_statistics([queries[query].text for query in _one_query_per_scenario(scores)])
    if context.configs == ("responses",) and any(s.judged for s in scores):
        pairs = [(s.verdict, s.published_verdict) for s in scores if s.published_verdict is not None]
        summary["agreement"] = agreement([mine for mine, _ in pairs], [theirs for _, theirs in pairs])
        for model, entry in slices["by_model"].items():
            mine = [s.published_verdict for s in scores if s.model == model]
            entry["published_accuracy"] = mine.count("correct") / len(mine)
    if context.options.failure_modes:
        slices["by_failure_mode"] = by_failure_mode(scores)
    return CoBeMetrics(**summary), slices


def _one_query_per_scenario(scores: list[CoBeScores]) -> list[str]:
    """The first query id of each scenario in the results (a scenario's text counts once, as in Table 2)."""
    first: dict[str, str] = {}
    for one in scores:
        first.setdefault(one.scenario_id, one.query_id)
    return list(first.values())


def _scored(scores: CoBeScores, query: CoBeQuery) -> ScoredRow:
    passed = {c.code: c.passed for c in scores.criteria}
    return ScoredRow(
        verdict=scores.verdict,
        passed=passed,
        domain=query.domain,
        graph_type=query.graph_type,
        phrasing=query.phrasing,
        model=scores.model,
    )


def _error_counts(scores: list[CoBeScores]) -> dict[str, dict[str, int]]:
    """Items by error category (an item's first), and unresolved criteria by category."""
    items = Counter(s.error for s in scores if s.error)
    criteria = Counter(c.error for s in scores for c in s.criteria if c.error)
    return {"items": dict(sorted(items.items())), "criteria": dict(sorted(criteria.items()))}


def by_failure_mode(scores: list[CoBeScores]) -> dict[str, dict[str, Any]]:
    """Per failure mode (paper order, then the unclassified): wrong rewrites in it, their share of the
    classified ones, and per model the share of that model's classified wrong rewrites (Fig. 9)."""
    wrong = [s for s in scores if s.failure_mode]
    keys = [(s.failure_mode or {})["key"] or UNCLASSIFIED for s in wrong]
    classified = [k for k in keys if k != UNCLASSIFIED]
    per_model = Counter(s.model for s, k in zip(wrong, keys, strict=True) if k != UNCLASSIFIED)
    table = {}
    for key in [m.key for m in FAILURE_MODES] + ([UNCLASSIFIED] if UNCLASSIFIED in keys else []):
        members = [s for s, k in zip(wrong, keys, strict=True) if k == key]
        counts = Counter(s.model for s in members)
        table[key] = {
            "n": len(members),
            "share": len(members) / len(classified) if classified and key != UNCLASSIFIED else None,
            "model_share": {m: counts[m] / per_model[m] for m in sorted(per_model)} if key != UNCLASSIFIED else {},
        }
    return table


def item_scores(scores: CoBeScores) -> dict[str, float]:
    """Judged correct (1) or not (0): the mean is the run's ``accuracy``."""
    return {"accuracy": float(scores.verdict == "correct")}


def groups(item: Item, context: TaskContext) -> dict[str, str | None]:
    """The breakdowns of a response: the query's domain, graph type and phrasing, and the model that wrote it."""
    query, published = item.row
    model = published.model if published is not None else context.model_name("model")
    return {
        "by_domain": query.domain or NOT_GIVEN,
        "by_graph_type": query.graph_type or NOT_GIVEN,
        "by_phrasing": query.phrasing,
        "by_model": model,
    }


def _correct(scores: CoBeScores) -> float:
    return float(scores.verdict == "correct")


def _criterion(code: str, outcome: bool | None) -> Callable[[CoBeScores], float]:
    """1 for a response whose criterion ``code`` was judged ``outcome`` (True, False; None: judged at all)."""

    def value(scores: CoBeScores) -> float:
        passed = [c.passed for c in scores.criteria if c.code == code]
        return float(bool(passed) and passed[0] is not None and (outcome is None or passed[0] is outcome))

    return value


PHRASINGS: tuple[str, ...] = get_args(Phrasing)


def _phrasing_cells(scores: CoBeScores) -> dict[str, float]:
    phrasing = scores.query_id.rsplit("-", 1)[-1]
    return {
        f"{kind}_{p}": float(p == phrasing) * (_correct(scores) if kind == "correct" else 1.0)
        for p in PHRASINGS
        for kind in ("correct", "n")
    }


def _phrasing_accuracies(totals: Mapping[str, np.ndarray]) -> np.ndarray:
    """Accuracy per phrasing, stacked on the last axis (NaN for a phrasing without responses)."""
    return np.stack(
        [
            np.where(totals[f"n_{p}"] > 0, totals[f"correct_{p}"] / np.maximum(totals[f"n_{p}"], 1), np.nan)
            for p in PHRASINGS
        ],
        axis=-1,
    )


def _spread_of_phrasings(spread: Callable[..., np.ndarray]) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    """``spread`` (mean, SD) of the per-phrasing accuracies of the totals."""
    return lambda totals: spread(_phrasing_accuracies(totals), axis=-1)


#: the phrasings of one scenario (and, with --config responses, every model's answers to them) share it
ESTIMATES = Estimates(
    unit="scenario",
    cluster=lambda item: item.row[0].scenario_id,
    groups=groups,
    estimators=(
        ratio("accuracy_decided", _correct, lambda s: float(s.verdict in ("correct", "wrong"))),
        *(
            Statistic(
                name,
                tuple(f"{kind}_{p}" for p in PHRASINGS for kind in ("correct", "n")),
                _phrasing_cells,
                _spread_of_phrasings(spread),
            )
            for name, spread in (("accuracy_phrasing_mean", np.nanmean), ("accuracy_phrasing_sd", np.nanstd))
        ),
        *(ratio(f"failure_rate.{code}", _criterion(code, False), _criterion(code, None)) for code in CRITERION_CODES),
        Mean(
            "published_accuracy",
            lambda s: float(s.published_verdict == "correct") if s.published_verdict is not None else None,
        ),
        *agreement_estimators("agreement", lambda s: (s.verdict, s.published_verdict)),
    ),
    crossed={"model_accuracy": ("by_model", "accuracy")},
)

VIEW = View(
    "CoBe",
    (
        MappingBars("failure_rate", "CoBe failure rate per criterion (Fig. 5)", "failure rate"),
        NestedBars(
            "by_model", "failure_rate", "CoBe failure rate per criterion and model (Fig. 5)", "model", "failure rate"
        ),
        NestedBars("by_graph_type", "model_accuracy", "CoBe accuracy by graph type (Fig. 6)", "graph type", "accuracy"),
        NestedBars("by_phrasing", "model_accuracy", "CoBe accuracy by query phrasing (Fig. 7)", "phrasing", "accuracy"),
        NestedBars("by_domain", "model_accuracy", "CoBe accuracy by domain (Fig. 8)", "domain", "accuracy"),
        NestedBars(
            "by_failure_mode",
            "model_share",
            "CoBe wrong rewrites by failure mode (Fig. 9)",
            "failure mode",
            "share of a model's classified wrong rewrites",
        ),
    ),
)

TASK = Task(
    name="cobe",
    help="CoBe counterfactual text edits: generate and judge per criterion, judge published outputs, or score their "
    "published verdicts",
    dataset="cobe",
    configs=("queries", "responses"),
    default_configs=("queries",),
    items=items,
    solve=solve,
    score=score,
    summarize=summarize,
    item_scores=item_scores,
    generation=CoBeGeneration,
    scores=CoBeScores,
    metrics=CoBeMetrics,
    roles=(
        RoleSpec("model", "the model that writes the rewrites (with --config queries)"),
        RoleSpec(
            "judge",
            "the T/F judge of every criterion (omit with --config responses: the published verdicts are scored)",
            fallback="model",
            scoring=True,
        ),
    ),
    options=CoBeOptions,
    from_files=True,
    check=check,
    scoring_options=("max_attempts", "failure_modes"),
    judge_options=("max_attempts", "failure_modes"),
    estimates=ESTIMATES,
    view=VIEW,
    inspect={"cobe": "queries", "cobe_responses": "responses"},
)
