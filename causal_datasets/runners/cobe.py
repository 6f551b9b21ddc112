"""``causal-datasets eval cobe``: ask a chat model for counterfactual rewrites and judge them, or judge published ones.

* ``--config queries`` (default): the model (``--model``/``--base-url``) answers each query row
  (scenario text, then the request); the judge (``--judge-model``…, or the same model when none is
  given) checks the answer criterion by criterion.
* ``--config responses``: no generation; the judge checks the model outputs published with the
  source and the summary adds its agreement with their verdicts (accuracy, precision, recall, F1,
  Cohen's κ).

Each finished item is appended to ``results.jsonl`` at once (id, messages, response, criterion
verdicts with the judge's raw answers, verdict, error category), so ``--resume`` skips it.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from causal_datasets.cobe.judge import DEFAULT_ATTEMPTS, judge_response
from causal_datasets.cobe.prompts import CriteriaSet, build_messages
from causal_datasets.cobe.scoring import ScoredRow, agreement, summarize
from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm import LLMError
from causal_datasets.llm.options import client_from_args
from causal_datasets.records.cobe import PHRASINGS, CoBeQuery
from causal_datasets.runners import EvalTask
from causal_datasets.runners.inputs import add_dataset_arguments, location_from_args, run_metadata
from causal_datasets.runners.results import ResultsLog, limited, write_summary

DATASET = "cobe"
SPLIT = "test"
GENERATION_ERROR = "generation_error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", choices=("queries", "responses"), default="queries",
                        help="queries: generate with --model and judge; responses: judge the published outputs")
    add_dataset_arguments(parser, DATASET, from_files=True)
    parser.add_argument("--phrasing", nargs="+", choices=PHRASINGS, help="only these query phrasings")
    parser.add_argument("--models", nargs="+", help="with --config responses: only these published models")
    parser.add_argument("--max-attempts", type=int, default=DEFAULT_ATTEMPTS,
                        help="judge asks per criterion until a single T/F answer (default 3)")


def run(args: argparse.Namespace) -> dict[str, Any]:
    location = location_from_args(args)
    loaded_queries = location.load(DATASET, "queries", SPLIT)
    queries = {q.id: q for q in loaded_queries.records}
    if args.phrasing:
        queries = {i: q for i, q in queries.items() if q.phrasing in args.phrasing}
    model = client_from_args(args)
    judge = client_from_args(args, prefix="judge-") or model
    if judge is None:
        raise RunConfigurationError("cobe needs a judge: pass --judge-model (and --judge-base-url), or --model to judge with it")
    log = ResultsLog(args.out, resume=args.resume)

    if args.config == "queries":
        if model is None:
            raise RunConfigurationError("--config queries needs --model (and --base-url) to generate the rewrites")
        items = [(q.id, q, None) for q in queries.values()]
    else:
        responses = [r for r in location.load(DATASET, "responses", SPLIT).records if r.query_id in queries]
        items = [(r.id, queries[r.query_id], r) for r in responses if not args.models or r.model in args.models]
    items = limited(items, args.limit)
    pending = [item for item in items if not log.done(item[0])]

    failures = [error for _, error in log.record_all(
        pending, lambda item: _evaluate_item(item, model, judge, args.max_attempts),
        concurrency=args.concurrency, desc="cobe",
    )]
    finished = [log.items[item_id] for item_id, _, _ in items if log.done(item_id)]
    metrics = summarize([_scored(r, queries[r["query_id"]]) for r in finished])
    metrics["errors"] = _error_counts(finished)
    if failures:  # not recorded, so a --resume run retries them
        metrics["unrecorded"] = {"items": len(failures), "first": repr(failures[0])}
    if args.config == "responses":
        metrics["agreement"] = agreement([r["verdict"] for r in finished], [r["published_verdict"] for r in finished])
        metrics["by_model"] = _by_model(finished)
    run_info = run_metadata(
        location, loaded_queries.manifest, args.config,
        {"model": model, "judge": judge},
        split=SPLIT, items=len(items), model=model.config.model if model else None, judge=judge.config.model,
        judge_is_model=judge is model, max_attempts=args.max_attempts,
    )
    write_summary(args.out, metrics, run_info)
    return metrics


def _evaluate_item(item, model, judge, max_attempts: int) -> dict[str, Any]:
    item_id, query, published = item
    record: dict[str, Any] = {"id": item_id, "query_id": query.id, "scenario_id": query.scenario_id}
    if published is None:
        messages = build_messages(query)
        record["messages"] = messages
        try:
            response = model.chat(messages).text
        except LLMError as error:
            return record | {"response": None, "verdict": "wrong", "criteria": [],
                             "error": GENERATION_ERROR, "error_detail": str(error)}
    else:
        response = published.response
        record |= {"model": published.model, "published_verdict": published.verdict}
    judgement = judge_response(judge, CriteriaSet.of(query), response, max_attempts)
    return record | {"response": response, **judgement.to_dict()}


def _scored(result: dict[str, Any], query: CoBeQuery) -> ScoredRow:
    passed = {c["code"]: c["passed"] for c in result["criteria"]}
    return ScoredRow(verdict=result["verdict"], passed=passed, domain=query.domain,
                     graph_type=query.graph_type, phrasing=query.phrasing)


def _error_counts(results: list[dict[str, Any]]) -> dict[str, Any]:
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


EVAL_TASK = EvalTask(
    name=DATASET,
    help="CoBe counterfactual text edits: generate with a model and judge per criterion, or judge published outputs",
    add_arguments=add_arguments,
    run=run,
)
