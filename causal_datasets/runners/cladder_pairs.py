"""``causal-datasets eval cladder_pairs``: the CLadder estimand task (DoVerifier's setting).

Each question of the ``cladder_pairs/questions`` config (a local build under ``--hub-dir``, made on
the fly from ``--source`` or ``$CAUSAL_DATASETS_SOURCES/cladder`` when missing, or a Hub dataset
given by ``--dataset ORG/NAME --revision vX``) is sent as
:func:`causal_datasets.docalc.task.build_messages`; the ``Estimand:`` line of the answer is scored
against CLadder's estimand by the equivalence verifier and by string match. Each finished item
is appended to ``results.jsonl`` at once; ``--resume`` skips finished ids (items that died of an
LLM failure are asked again).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from causal_datasets.docalc.task import build_messages, extract_estimand, score_answer
from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm import LLMClient, LLMError
from causal_datasets.llm.options import client_from_args
from causal_datasets.records.cladder_pairs import CladderQuestionRow
from causal_datasets.runners import EvalTask
from causal_datasets.runners.inputs import add_dataset_arguments, location_from_args, run_metadata
from causal_datasets.runners.results import ResultsLog, limited, write_summary

DATASET = "cladder_pairs"
CONFIG = "questions"
SLICES = (("by_rung", "rung"), ("by_query_type", "query_type"), ("by_graph_family", "graph_id"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", default="test", help="split of the questions config (default test)")
    add_dataset_arguments(parser, DATASET, from_files=True)
    parser.add_argument("--verifier-seed", type=int, default=0,
                        help="seed of the verifier's random causal models (default 0)")


def answer_question(client: LLMClient, question: CladderQuestionRow, *, seed: int = 0) -> dict[str, Any]:
    """One results.jsonl item: the request, the raw answer, the extracted estimand and its scores."""
    messages = build_messages(question)
    item = {"id": question.id, "messages": messages, "reference": question.estimand, "rung": question.rung,
            "query_type": question.query_type, "graph_id": question.graph_id}
    try:
        raw = client.chat(messages).text
    except LLMError as error:
        return {**item, "raw": None, "expression": None, "equivalent": None, "method": None, "proof_length": None,
                "string_match": False, "error": "llm_error", "detail": f"{type(error).__name__}: {error}"}
    expression = extract_estimand(raw)
    return {**item, "raw": raw, "expression": expression, **score_answer(expression, question, seed=seed)}


def summarize(items: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``n``, ``accuracy`` (share equivalent), ``string_match``, ``errors`` by category, proof lengths
    and methods, and the same two rates per rung, query type and graph family."""
    items = list(items)
    metrics: dict[str, Any] = _rates(items)
    metrics["errors"] = dict(sorted(Counter(i["error"] for i in items if i["error"]).items()))
    metrics["methods"] = dict(sorted(Counter(i["method"] for i in items if i["method"]).items()))
    lengths = Counter(i["proof_length"] for i in items if i["proof_length"] is not None)
    metrics["proof_lengths"] = {str(length): n for length, n in sorted(lengths.items())}
    for name, field in SLICES:
        groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for item in items:
            groups[item[field]].append(item)
        metrics[name] = {str(value): _rates(group) for value, group in sorted(groups.items())}
    return metrics


def _rates(items: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(items)
    return {
        "n": n,
        "accuracy": sum(i["equivalent"] is True for i in items) / n if n else 0.0,
        "string_match": sum(bool(i["string_match"]) for i in items) / n if n else 0.0,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    client = client_from_args(args)
    if client is None:
        raise RunConfigurationError("cladder_pairs needs a chat model: give --model (and --base-url)")
    location = location_from_args(args)
    loaded = location.load(DATASET, CONFIG, args.split)
    questions, manifest = loaded.records, loaded.manifest
    questions = limited(questions, args.limit)
    log = ResultsLog(args.out, resume=args.resume)
    pending = [q for q in questions if not (log.done(q.id) and log.items[q.id]["error"] != "llm_error")]
    try:
        failures = log.record_all(pending, lambda question: answer_question(client, question, seed=args.verifier_seed),
                                  concurrency=args.concurrency, desc="cladder questions")
    finally:
        client.close()
    crashed = [f"{q.id}: {type(error).__name__}: {error}" for q, error in failures]
    items = [log.items[q.id] for q in questions if q.id in log.items]
    metrics = summarize(items)
    run_info = run_metadata(
        location, manifest, CONFIG, {"model": client},
        split=args.split,
        model=client.config.model,
        verifier_seed=args.verifier_seed,
        questions_selected=len(questions),
        questions_scored=len(items),
        crashed=crashed,
    )
    write_summary(args.out, metrics, run_info)
    return {"run": run_info, "metrics": metrics}


EVAL_TASK = EvalTask(
    name=DATASET,
    help="CLadder estimand task: the model identifies the estimand of a CLadder question; scored by the "
    "do-calculus equivalence verifier and by string match",
    add_arguments=add_arguments,
    run=run,
)
