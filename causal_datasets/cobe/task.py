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

This module holds the steps of an item (items, solve, score) and the task; its options are in
:mod:`~causal_datasets.cobe.options`, its stored generation and scores in :mod:`~causal_datasets.cobe.scores`,
the summary in :mod:`~causal_datasets.cobe.summary`, the estimates in :mod:`~causal_datasets.cobe.estimates`
and the report's view in :mod:`~causal_datasets.cobe.view`.
"""

from __future__ import annotations

from typing import Any

from causal_datasets.cobe.estimates import ESTIMATES
from causal_datasets.cobe.failure_modes import FailureCase, classify_failure
from causal_datasets.cobe.judge import judge_response
from causal_datasets.cobe.options import CoBeOptions, check
from causal_datasets.cobe.prompts import CriteriaSet, build_messages
from causal_datasets.cobe.records import CoBeQuery, CoBeResponse
from causal_datasets.cobe.scores import CoBeGeneration, CoBeScores, item_scores
from causal_datasets.cobe.summary import CoBeMetrics, summarize
from causal_datasets.cobe.view import VIEW
from causal_datasets.errors import LLM_CATEGORIES
from causal_datasets.runners.task import CallFailed, Item, RoleSpec, Task, TaskContext, Transcript


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


TASK = Task(
    name="cobe",
    version=1,
    help="CoBe counterfactual text edits: generate and judge per criterion, judge published outputs, or score their "
    "published verdicts",
    configs=("queries", "responses"),
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
