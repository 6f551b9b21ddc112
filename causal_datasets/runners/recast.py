"""``causal-datasets eval recast``: a chat model builds each paper's causal graph; the graph is scored.

Per sample: the generation prompt (``--name-assisted``: with the ground-truth node ids), answer
parsing with the formatting-correction fallback (by ``--corrector-model``… or the model itself),
name-based scores (exact and normalized) and, with ``--judge-model``, the LLM judge. Each finished
sample is appended to ``results.jsonl`` at once (id, messages, raw answer, correction attempts,
parsed edges, error category, scores, judge labels), so ``--resume`` skips it.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from causal_datasets.errors import RunConfigurationError
from causal_datasets.llm.options import add_model_arguments, client_from_args
from causal_datasets.recast.dataset import CONFIG, DATASET, SPLIT, load_samples
from causal_datasets.recast.deterministic import mean_scores
from causal_datasets.recast.generation import GENERATION_ERRORS, generate
from causal_datasets.recast.judge.evaluate import aggregate
from causal_datasets.recast.metric import score_item
from causal_datasets.recast.prompts import build_messages
from causal_datasets.runners import EvalTask
from causal_datasets.runners.inputs import add_dataset_arguments, location_from_args, run_metadata
from causal_datasets.runners.results import ResultsLog, limited, write_summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name-assisted", action="store_true",
                        help="give the model the ground-truth node names with ids (the paper's ablation)")
    add_dataset_arguments(parser, DATASET, from_files=True)
    parser.add_argument("--ids", type=int, nargs="+", help="only these sample ids")
    parser.add_argument("--max-attempts", type=int, default=3,
                        help="calls per formatting correction and per judge evaluation (default 3)")
    parser.add_argument("--reversal-cost", type=float, default=1,
                        help="SHD cost of a reversed edge (default 1; 2 = the paper's convention)")
    add_model_arguments(parser, prefix="corrector-")


def run(args: argparse.Namespace) -> dict[str, Any]:
    model = client_from_args(args)
    if model is None:
        raise RunConfigurationError("recast needs --model (and --base-url) to generate graphs")
    judge = client_from_args(args, prefix="judge-")
    corrector = client_from_args(args, prefix="corrector-") or model
    location = location_from_args(args)
    samples, manifest = load_samples(location)
    if args.ids:
        samples = [s for s in samples if s.id in set(args.ids)]
    samples = limited(samples, args.limit)
    log = ResultsLog(args.out, resume=args.resume)
    pending = [s for s in samples if not log.done(str(s.id))]
    failures = log.record_all(pending, lambda sample: _run_sample(sample, args, model, corrector, judge),
                              concurrency=args.concurrency, desc="recast")
    if failures:
        raise RuntimeError(f"{len(failures)} samples could not be recorded; first: {failures[0][1]!r}")
    finished = [log.items[str(s.id)] for s in samples]
    metrics = summarize(finished)
    run_info = run_metadata(
        location, manifest, CONFIG,
        {"model": model, "corrector": corrector if corrector is not model else None, "judge": judge},
        split=SPLIT, samples=len(samples), name_assisted=args.name_assisted, model=model.config.model,
        corrector=corrector.config.model, judge=judge.config.model if judge else None,
        max_attempts=args.max_attempts, reversal_cost=args.reversal_cost,
    )
    write_summary(args.out, metrics, run_info)
    return metrics


def _run_sample(sample, args: argparse.Namespace, model, corrector, judge) -> dict[str, Any]:
    generation = generate(model, sample, name_assisted=args.name_assisted, corrector=corrector,
                          max_attempts=args.max_attempts)
    record = {"id": str(sample.id), "messages": build_messages(sample, name_assisted=args.name_assisted),
              "confounding_lenient": sample.confounding_lenient, "generation": generation.to_dict(),
              "error": generation.error}
    if generation.error in ("llm_error", "format_error"):
        return record  # nothing was predicted: not scored
    scores = score_item(generation.graph(), sample, judge=judge, reversal_cost=args.reversal_cost,
                        max_attempts=args.max_attempts)
    return record | {"deterministic": scores["deterministic"], "judge": scores.get("judge"),
                     "error": generation.error or scores["error"]}


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Generation outcome counts, name-based means and judge means over the scored samples.

    A sample without a prediction (``llm_error``/``format_error``) is left out of the means and
    counted under ``generation``; ``scored_share`` says how many were scored.
    """
    outcomes = Counter(r["generation"]["error"] or "ok" for r in results)
    scored = [r for r in results if "deterministic" in r]
    metrics: dict[str, Any] = {
        "samples": len(results),
        "scored_share": len(scored) / len(results) if results else 0.0,
        "generation": {key: outcomes.get(key, 0) for key in ("ok", *GENERATION_ERRORS)},
        "corrected": sum(r["generation"]["corrected"] for r in results),
        "deterministic": mean_scores([r["deterministic"] for r in scored]),
        "judge_errors": sum(bool(r.get("judge") and r["judge"]["error"]) for r in scored),
    }
    judged = [r["judge"]["scores"] for r in scored if r.get("judge")]
    if judged:
        metrics["judge"] = aggregate(judged)
    metrics["by_confounding"] = by_confounding(scored)
    return metrics


#: lenient degree-of-confounding bins of the paper's analysis (upper bound exclusive, last inclusive)
CONFOUNDING_BINS = ((0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0))


def by_confounding(scored: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Mean normalized-name edge F1 and judge F1 per lenient-confounding bin."""
    table = {}
    for low, high in CONFOUNDING_BINS:
        rows = [r for r in scored if r["confounding_lenient"] is not None
                and low <= r["confounding_lenient"] and (r["confounding_lenient"] < high or high == 1.0)]
        f1s = [r["judge"]["scores"]["f1"] for r in rows if r.get("judge") and r["judge"]["scores"]["f1"] is not None]
        table[f"{low:.2f}-{high:.2f}"] = {
            "n": len(rows),
            "edge_f1_normalized": sum(r["deterministic"]["normalized"]["edge_f1"] for r in rows) / len(rows) if rows else None,
            "judge_f1": sum(f1s) / len(f1s) if f1s else None,
        }
    return table


EVAL_TASK = EvalTask(
    name=DATASET,
    help="ReCAST: build causal graphs of economics papers with a model; judge and name-based scores",
    add_arguments=add_arguments,
    run=run,
)
