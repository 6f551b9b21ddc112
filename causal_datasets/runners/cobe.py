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

A rewrite, a criterion or a classification the server could not answer makes the item failed (run
again by ``--resume``): a transport failure is never scored as a wrong rewrite.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, get_args

import numpy as np
from pydantic import BaseModel, Field

from causal_datasets.cobe.failure_modes import FAILURE_MODES, FailureCase, classify_failure
from causal_datasets.cobe.judge import DEFAULT_ATTEMPTS, judge_response
from causal_datasets.cobe.prompts import CRITERION_CODES, CriteriaSet, build_messages
from causal_datasets.agreement import agreement, agreement_estimators
from causal_datasets.cobe.scoring import NOT_GIVEN, ScoredRow, by_model, summarize as summarize_rows
from causal_datasets.cobe.statistics import text_statistics
from causal_datasets.errors import LLM_CATEGORIES, RunConfigurationError
from causal_datasets.records.cobe import CoBeQuery, Phrasing
from causal_datasets.runners.records import CoBeMetrics, Role, Slices
from causal_datasets.runners.task import Estimates, Item, Outcome, RoleSpec, RunSettings, Task, TaskContext
from causal_datasets.uncertainty import Mean, Statistic, ratio

UNCLASSIFIED = "(unclassified)"


class CoBeOptions(BaseModel):
    phrasing: list[Phrasing] | None = Field(default=None, description="only these query phrasings")
    models: list[str] | None = Field(default=None, description="with --config responses: only these published models")
    max_attempts: int = Field(default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per criterion until a single T/F answer")
    failure_modes: bool = Field(default=False, description="sort each wrong rewrite into the paper's seven failure modes with the judge")


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
    queries = {q.id: q for q in context.load("queries").records if not options.phrasing or q.phrasing in options.phrasing}
    if context.configs == ("queries",):
        return [Item(q.id, "queries", (q, None)) for q in queries.values()]
    published = context.load("responses").records
    return [Item(r.id, "responses", (queries[r.query_id], r)) for r in published
            if r.query_id in queries and (not options.models or r.model in options.models)]


def solve(item: Item, context: TaskContext) -> Outcome:
    query, published = item.row
    judge = context.client("judge")
    fields: dict[str, Any] = {"query_id": query.id, "scenario_id": query.scenario_id}
    if published is None:
        messages = build_messages(query)
        fields["messages"] = messages
        model = context.clients["model"]
        response = model.chat(messages).text  # an LLMError makes the item failed
        fields["model"] = model.config.model
    else:
        response = published.response
        fields |= {"model": published.model, "published_verdict": published.verdict}
    fields["response"] = response
    if judge is None:  # scoring the published verdicts themselves
        fields |= {"verdict": published.verdict, "criteria": [], "error": None}
    else:
        fields |= judge_response(judge, CriteriaSet.of(query), response, context.options.max_attempts).to_dict()
    if context.options.failure_modes and fields["verdict"] == "wrong" and response.strip():
        case = FailureCase(query.text, query.query, CriteriaSet.of(query), response)
        fields["failure_mode"] = classify_failure(judge, case, context.options.max_attempts).to_dict()
    return Outcome(fields, _transport_failure(fields))


def _transport_failure(fields: Mapping[str, Any]) -> str | None:
    """``"<category>: <detail>"`` of the first judge call the server could not answer, else None."""
    calls = [*fields["criteria"], *([fields["failure_mode"]] if fields.get("failure_mode") else [])]
    failed = [c for c in calls if c["error"] and c["error"].removeprefix("judge_") in LLM_CATEGORIES]
    return f"{failed[0]['error']}: {failed[0]['error_detail']}" if failed else None


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[CoBeMetrics, Slices]:
    queries = {q.id: q for q in context.load("queries").records}
    rows = [_scored(r, queries[r["query_id"]]) for r in results]
    summary = summarize_rows(rows)
    slices = {name: summary.pop(name) for name in ("by_domain", "by_graph_type", "by_phrasing")}
    slices["by_model"] = by_model(rows)
    summary["errors"] = _error_counts(results)
    summary["text_statistics"] = text_statistics([queries[query_id].text for query_id in _one_query_per_scenario(results)])
    responses = context.configs == ("responses",)
    if responses and context.client("judge") is not None:
        summary["agreement"] = agreement([r["verdict"] for r in results], [r["published_verdict"] for r in results])
        for model, entry in slices["by_model"].items():
            mine = [r["published_verdict"] for r in results if r["model"] == model]
            entry["published_accuracy"] = mine.count("correct") / len(mine)
    if context.options.failure_modes:
        slices["by_failure_mode"] = by_failure_mode(results)
    return CoBeMetrics(**summary), slices


def _one_query_per_scenario(results: list[dict[str, Any]]) -> list[str]:
    """The first query id of each scenario in the results (a scenario's text counts once, as in Table 2)."""
    first: dict[str, str] = {}
    for result in results:
        first.setdefault(result["scenario_id"], result["query_id"])
    return list(first.values())


def _scored(result: dict[str, Any], query: CoBeQuery) -> ScoredRow:
    passed = {c["code"]: c["passed"] for c in result["criteria"]}
    return ScoredRow(verdict=result["verdict"], passed=passed, domain=query.domain, graph_type=query.graph_type,
                     phrasing=query.phrasing, model=result.get("model"))


def _error_counts(results: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Items by error category (an item's first), and unresolved criteria by category."""
    items = Counter(r["error"] for r in results if r["error"])
    criteria = Counter(c["error"] for r in results for c in r["criteria"] if c["error"])
    return {"items": dict(sorted(items.items())), "criteria": dict(sorted(criteria.items()))}


def by_failure_mode(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per failure mode (paper order, then the unclassified): wrong rewrites in it, their share of the
    classified ones, and per model the share of that model's classified wrong rewrites (Fig. 9)."""
    wrong = [r for r in results if r.get("failure_mode")]
    keys = [r["failure_mode"]["key"] or UNCLASSIFIED for r in wrong]
    classified = [k for k in keys if k != UNCLASSIFIED]
    per_model = Counter(r["model"] for r, k in zip(wrong, keys) if k != UNCLASSIFIED)
    table = {}
    for key in [m.key for m in FAILURE_MODES] + ([UNCLASSIFIED] if UNCLASSIFIED in keys else []):
        members = [r for r, k in zip(wrong, keys) if k == key]
        counts = Counter(r["model"] for r in members)
        table[key] = {"n": len(members),
                      "share": len(members) / len(classified) if classified and key != UNCLASSIFIED else None,
                      "model_share": {m: counts[m] / per_model[m] for m in sorted(per_model)} if key != UNCLASSIFIED else {}}
    return table


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Judged correct (1) or not (0): the mean is the run's ``accuracy``."""
    return {"accuracy": float(result["verdict"] == "correct")}


def groups(item: Item, context: TaskContext) -> dict[str, str | None]:
    """The breakdowns of a response: the query's domain, graph type and phrasing, and the model that wrote it."""
    query, published = item.row
    client = context.client("model") if published is None else None
    model = published.model if published is not None else client.config.model if client is not None else None
    return {"by_domain": query.domain or NOT_GIVEN, "by_graph_type": query.graph_type or NOT_GIVEN,
            "by_phrasing": query.phrasing, "by_model": model}


def _correct(result: Mapping[str, Any]) -> float:
    return float(result["verdict"] == "correct")


def _criterion(code: str, outcome: bool | None) -> Callable[[Mapping[str, Any]], float]:
    """1 for a response whose criterion ``code`` was judged ``outcome`` (True, False; None: judged at all)."""
    def value(result: Mapping[str, Any]) -> float:
        passed = [c["passed"] for c in result["criteria"] if c["code"] == code]
        return float(bool(passed) and passed[0] is not None and (outcome is None or passed[0] is outcome))

    return value


PHRASINGS: tuple[str, ...] = get_args(Phrasing)


def _phrasing_cells(result: Mapping[str, Any]) -> dict[str, float]:
    phrasing = result["query_id"].rsplit("-", 1)[-1]
    return {f"{kind}_{p}": float(p == phrasing) * (_correct(result) if kind == "correct" else 1.0)
            for p in PHRASINGS for kind in ("correct", "n")}


def _phrasing_accuracies(totals: Mapping[str, np.ndarray]) -> np.ndarray:
    """Accuracy per phrasing, stacked on the last axis (NaN for a phrasing without responses)."""
    return np.stack([np.where(totals[f"n_{p}"] > 0, totals[f"correct_{p}"] / np.maximum(totals[f"n_{p}"], 1), np.nan)
                     for p in PHRASINGS], axis=-1)


#: the phrasings of one scenario (and, with --config responses, every model's answers to them) share it
ESTIMATES = Estimates(
    unit="scenario",
    cluster=lambda item: item.row[0].scenario_id,
    groups=groups,
    estimators=(
        ratio("accuracy_decided", _correct, lambda r: float(r["verdict"] in ("correct", "wrong"))),
        *(Statistic(name, tuple(f"{kind}_{p}" for p in PHRASINGS for kind in ("correct", "n")), _phrasing_cells,
                    lambda totals, spread=spread: spread(_phrasing_accuracies(totals), axis=-1))
          for name, spread in (("accuracy_phrasing_mean", np.nanmean), ("accuracy_phrasing_sd", np.nanstd))),
        *(ratio(f"failure_rate.{code}", _criterion(code, False), _criterion(code, None)) for code in CRITERION_CODES),
        Mean("published_accuracy",
             lambda r: float(r["published_verdict"] == "correct") if "published_verdict" in r else None),
        *agreement_estimators("agreement", lambda r: (r["verdict"], r.get("published_verdict"))),
    ),
    crossed={"model_accuracy": ("by_model", "accuracy")},
)


TASK = Task(
    name="cobe",
    help="CoBe counterfactual text edits: generate and judge per criterion, judge published outputs, or score their published verdicts",
    dataset="cobe",
    configs=("queries", "responses"),
    default_configs=("queries",),
    items=items,
    solve=solve,
    summarize=summarize,
    item_scores=item_scores,
    roles=(
        RoleSpec("model", "the model that writes the rewrites (with --config queries)"),
        RoleSpec("judge", "the T/F judge of every criterion (omit with --config responses: the published verdicts are scored)",
                 fallback="model"),
    ),
    options=CoBeOptions,
    from_files=True,
    check=check,
    estimates=ESTIMATES,
)
