"""``causal-datasets eval cobe``: a chat model's counterfactual rewrites judged per criterion, or the published ones.

* config ``queries`` (default): the model answers each query row (scenario text, then the request);
  the judge (``--judge-model``, or the model itself when none is given) checks the answer criterion
  by criterion.
* config ``responses``: no generation; the judge checks the model outputs published with the
  source, and the summary adds its agreement with their verdicts (accuracy, precision, recall, F1,
  Cohen's κ) and a ``by_model`` slice.

A rewrite or a criterion the server could not answer makes the item failed (run again by
``--resume``): a transport failure is never scored as a wrong rewrite.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.cobe.judge import DEFAULT_ATTEMPTS, judge_response
from causal_datasets.cobe.prompts import CriteriaSet, build_messages
from causal_datasets.cobe.scoring import ScoredRow, agreement, summarize as summarize_rows
from causal_datasets.errors import LLM_CATEGORIES, RunConfigurationError
from causal_datasets.records.cobe import CoBeQuery, Phrasing
from causal_datasets.runners.records import CoBeMetrics, Role, Slices
from causal_datasets.runners.task import Item, Outcome, RoleSpec, RunSettings, Task, TaskContext


class CoBeOptions(BaseModel):
    phrasing: list[Phrasing] | None = Field(default=None, description="only these query phrasings")
    models: list[str] | None = Field(default=None, description="with --config responses: only these published models")
    max_attempts: int = Field(default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per criterion until a single T/F answer")


def check(settings: RunSettings, options: CoBeOptions, roles: frozenset[Role]) -> None:
    responses = tuple(settings.configs) == ("responses",)
    if not responses and "model" not in roles:
        raise RunConfigurationError("--config queries needs --model (and --base-url) to generate the rewrites")
    if "judge" not in roles and "model" not in roles:
        raise RunConfigurationError("cobe needs a judge: pass --judge-model (and --judge-base-url), or --model to judge with it")
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
    fields: dict[str, Any] = {"query_id": query.id, "scenario_id": query.scenario_id}
    if published is None:
        messages = build_messages(query)
        fields["messages"] = messages
        response = context.clients["model"].chat(messages).text  # an LLMError makes the item failed
    else:
        response = published.response
        fields |= {"model": published.model, "published_verdict": published.verdict}
    judgement = judge_response(context.clients["judge"], CriteriaSet.of(query), response, context.options.max_attempts)
    fields |= {"response": response, **judgement.to_dict()}
    transport = [c for c in judgement.criteria if c.error and c.error.removeprefix("judge_") in LLM_CATEGORIES]
    failure = f"{transport[0].error}: {transport[0].error_detail}" if transport else None
    return Outcome(fields, failure)


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[CoBeMetrics, Slices]:
    queries = {q.id: q for q in context.load("queries").records}
    summary = summarize_rows([_scored(r, queries[r["query_id"]]) for r in results])
    slices = {name: summary.pop(name) for name in ("by_domain", "by_graph_type", "by_phrasing")}
    summary["errors"] = _error_counts(results)
    if context.configs == ("responses",):
        summary["agreement"] = agreement([r["verdict"] for r in results], [r["published_verdict"] for r in results])
        slices["by_model"] = _by_model(results)
    return CoBeMetrics(**summary), slices


def _scored(result: dict[str, Any], query: CoBeQuery) -> ScoredRow:
    passed = {c["code"]: c["passed"] for c in result["criteria"]}
    return ScoredRow(verdict=result["verdict"], passed=passed, domain=query.domain,
                     graph_type=query.graph_type, phrasing=query.phrasing)


def _error_counts(results: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Items by error category (an item's first), and unresolved criteria by category."""
    items = Counter(r["error"] for r in results if r["error"])
    criteria = Counter(c["error"] for r in results for c in r["criteria"] if c["error"])
    return {"items": dict(sorted(items.items())), "criteria": dict(sorted(criteria.items()))}


def _by_model(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per published model: our judge's accuracy next to the accuracy its published verdicts give."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        groups.setdefault(result["model"], []).append(result)
    return {
        model: {
            "n": len(rows),
            "judge_accuracy": sum(r["verdict"] == "correct" for r in rows) / len(rows),
            "published_accuracy": sum(r["published_verdict"] == "correct" for r in rows) / len(rows),
        }
        for model, rows in sorted(groups.items())
    }


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Judged correct (1) or not (0): the mean is the run's ``accuracy``."""
    return {"accuracy": float(result["verdict"] == "correct")}


TASK = Task(
    name="cobe",
    help="CoBe counterfactual text edits: generate with a model and judge per criterion, or judge published outputs",
    dataset="cobe",
    configs=("queries", "responses"),
    default_configs=("queries",),
    items=items,
    solve=solve,
    summarize=summarize,
    item_scores=item_scores,
    roles=(
        RoleSpec("model", "the model that writes the rewrites (with --config queries)"),
        RoleSpec("judge", "the T/F judge of every criterion", fallback="model"),
    ),
    options=CoBeOptions,
    from_files=True,
    check=check,
)
