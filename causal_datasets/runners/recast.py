"""``causal-datasets eval recast``: a chat model builds each paper's causal graph; the graph is scored.

Per sample: the generation prompt (``name_assisted``: with the ground-truth node ids), answer
parsing with the formatting-correction fallback (by the ``corrector`` model, or the model itself),
name-based scores (exact and normalized) and, with a ``judge`` model, the paper's LLM judge. A
sample whose generation or judge calls the server could not answer is a failed item (run again by
``--resume``); an unusable answer is a scored item with its error category.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.errors import LLM_CATEGORIES
from causal_datasets.recast.deterministic import mean_scores
from causal_datasets.recast.generation import GENERATION_ERRORS, generate
from causal_datasets.recast.judge.evaluate import aggregate
from causal_datasets.recast.metric import score_item
from causal_datasets.recast.prompts import build_messages
from causal_datasets.records.recast import RecastSample
from causal_datasets.runners.records import RecastMetrics, Slices
from causal_datasets.runners.task import Item, Outcome, RoleSpec, Task, TaskContext

#: lenient degree-of-confounding bins of the paper's analysis (upper bound exclusive, last inclusive)
CONFOUNDING_BINS = ((0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0))


class RecastOptions(BaseModel):
    name_assisted: bool = Field(default=False, description="give the model the ground-truth node names with ids (the paper's ablation)")
    ids: list[int] | None = Field(default=None, description="only these sample ids")
    max_attempts: int = Field(default=3, ge=1, description="calls per formatting correction and per judge evaluation")
    reversal_cost: float = Field(default=1, ge=0, description="SHD cost of a reversed edge (2 = the paper's convention)")


def items(context: TaskContext) -> list[Item]:
    wanted = set(context.options.ids or ())
    samples = sorted(context.load("default").records, key=lambda s: s.id)
    return [Item(str(s.id), "default", s) for s in samples if not wanted or s.id in wanted]


def solve(item: Item, context: TaskContext) -> Outcome:
    sample: RecastSample = item.row
    options: RecastOptions = context.options
    model, judge = context.clients["model"], context.client("judge")
    generation = generate(model, sample, name_assisted=options.name_assisted, corrector=context.client("corrector"),
                          max_attempts=options.max_attempts)
    fields = {"messages": build_messages(sample, name_assisted=options.name_assisted),
              "confounding_lenient": sample.confounding_lenient, "generation": generation.to_dict(),
              "error": generation.error, "judged": judge is not None}
    if generation.error == "llm_error":
        return Outcome(fields, f"llm_error: {generation.error_detail}")
    if generation.error == "format_error":
        return Outcome(fields)  # nothing was predicted: scored as an unusable answer
    scores = score_item(generation.graph(), sample, judge=judge, reversal_cost=options.reversal_cost,
                        max_attempts=options.max_attempts)
    fields |= {"deterministic": scores["deterministic"], "judge": scores.get("judge"),
               "error": generation.error or scores["error"]}
    transport = [e["error"] for e in (scores.get("judge") or {}).get("evaluations", {}).values()
                 if e["error"] and e["error"].split(" ", 1)[0] in LLM_CATEGORIES]
    return Outcome(fields, f"judge: {transport[0]}" if transport else None)


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[RecastMetrics, Slices]:
    """Generation outcome counts, name-based means and judge means over the scored samples.

    A sample without a prediction (``format_error``) is left out of the means and counted under
    ``generation``; ``scored_share`` says how many were scored.
    """
    outcomes = Counter(r["generation"]["error"] or "ok" for r in results)
    scored = [r for r in results if "deterministic" in r]
    judged = [r["judge"]["scores"] for r in scored if r.get("judge")]
    metrics = RecastMetrics(
        samples=len(results),
        scored_share=len(scored) / len(results) if results else 0.0,
        generation={key: outcomes.get(key, 0) for key in ("ok", *GENERATION_ERRORS)},
        corrected=sum(r["generation"]["corrected"] for r in results),
        deterministic=mean_scores([r["deterministic"] for r in scored]),
        judge_errors=sum(bool(r.get("judge") and r["judge"]["error"]) for r in scored),
        judge=aggregate(judged) if judged else None,
    )
    return metrics, {"by_confounding": by_confounding(scored)}


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


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Whether a graph was predicted, its normalized-name edge F1 and, when judged, the judge's F1.

    A sample without a usable prediction scores 0 on both F1s here (``summarize`` leaves it out of
    its means and reports ``scored_share`` instead); an unscored judge F1 counts 0.
    """
    scored = "deterministic" in result
    scores = {"usable": float(scored),
              "edge_f1_normalized": float(result["deterministic"]["normalized"]["edge_f1"]) if scored else 0.0}
    if result["judged"]:
        scores["judge_f1"] = float((result.get("judge") or {}).get("scores", {}).get("f1") or 0.0)
    return scores


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
)
