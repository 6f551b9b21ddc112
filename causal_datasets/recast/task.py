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

The task's parts: :mod:`~causal_datasets.recast.options`, :mod:`~causal_datasets.recast.scores`
(what a sample keeps), :mod:`~causal_datasets.recast.summary` (the metrics and the paper's analyses),
:mod:`~causal_datasets.recast.estimates` and :mod:`~causal_datasets.recast.view` (the report's figures).
"""

from __future__ import annotations

from typing import Any

from causal_datasets.recast.estimates import ESTIMATES
from causal_datasets.recast.generation import Generation, generate
from causal_datasets.recast.metric import score_item
from causal_datasets.recast.options import RecastOptions
from causal_datasets.recast.records import RecastSample
from causal_datasets.recast.scores import SAMPLE_FIELDS, RecastScores, item_scores
from causal_datasets.recast.summary import RecastMetrics, summarize
from causal_datasets.recast.view import VIEW
from causal_datasets.runners.task import CallFailed, Item, RoleSpec, Task, TaskContext, Transcript


def items(context: TaskContext) -> list[Item]:
    wanted = set(context.options.ids or ())
    samples = sorted(context.rows("default", RecastSample), key=lambda s: s.id)
    return [Item(str(s.id), "default", s) for s in samples if not wanted or s.id in wanted]


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
    excluded (no scores). A judge call the server or the transport ended fails the item (``CallFailed``)."""
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
    failure = scores.judgement.transport_failure if scores.judgement is not None else None
    if failure is not None:
        raise CallFailed(failure.error)
    return RecastScores(
        **fields
        | {
            "prediction_edges": scores.prediction_edges,
            "deterministic": scores.deterministic,
            "judge": scores.judgement.to_dict() if scores.judgement is not None else None,
            "error": generation.error or scores.error,
        }
    )


TASK = Task(
    name="recast",
    version=1,
    help="ReCAST: build causal graphs of economics papers with a model; judge and name-based scores",
    configs=("default",),
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
