"""``causal-datasets eval cladder_pairs``: DoVerifier on CLadder — the estimand task, the judge, feedback, derivations.

Each question of the ``cladder_pairs/questions`` config is sent as one of two prompts
(``--prompt``): ``estimand`` (:mod:`causal_datasets.cladder_pairs.estimand_task`, the package's own task: the graph
is given, the answer is an ``Estimand:`` line) or ``paper`` (:mod:`causal_datasets.cladder_pairs.paper_task`:
DoVerifier's App. G prompt verbatim; the model writes the expression, its own graph and a yes/no
answer, and the expression is also verified under that graph). Every expression is scored against
CLadder's estimand and its formal form (``--reference`` picks the headline, both are kept; CLadder's shorthand
read as CLadder means it, :func:`~causal_datasets.cladder_pairs.cladder.cladder_reading`) under both rules of
:mod:`~causal_datasets.docalc.scoring_rules` — ``equivalence``
(DoVerifier's: equal under the question's graph) and ``identification`` (also a formula in observed
probabilities) —, ``--scoring`` picks the headline (default: the paper's rule under the paper's prompt,
identification under the estimand prompt, which asks for an estimand), beside string match, BLEU,
token F1 and, with ``--judge-model``, an LLM judge (Table 1, with the judge's agreement with the
verifier). ``--feedback-rounds N`` sends a diagnosis back to the model up to N times (Table 2):
``--feedback graph`` (App. H) decides from the answer and the graph alone whether and what to say;
``--feedback oracle`` continues while the reference says the answer is wrong, an upper bound.
``--derivation`` asks for a derivation and checks every step.

Generation is kept apart from scoring: ``solve`` (:mod:`.generation`) asks the model and runs the feedback
loop (the graph checks depend on no reference; only ``--feedback oracle`` asks the reference whether to go
on, under the run's rule), and ``score`` (:mod:`.scores`) reads every reply of the transcript and scores it
against the question (:func:`~.replies.score_reply`), asking the judge when there is one — so
``causal-datasets rescore`` scores the same replies under another rule without the model. The options are
:mod:`.options`, the tables :mod:`.metrics`; this module declares the :data:`TASK`.
"""

from __future__ import annotations

from collections.abc import Callable

from causal_datasets.agreement import agreement_estimators
from causal_datasets.cladder_pairs import estimand_task
from causal_datasets.cladder_pairs.generation import CladderGeneration, solve
from causal_datasets.cladder_pairs.metrics import SLICES, CladderMetrics, item_scores, summarize, verdict_label
from causal_datasets.cladder_pairs.options import CladderOptions, check
from causal_datasets.cladder_pairs.records import CladderQuestionRow
from causal_datasets.cladder_pairs.replies import is_credited
from causal_datasets.cladder_pairs.scores import CladderScores, rescore_notes, score
from causal_datasets.runners.task import Estimates, Item, RoleSpec, Task, TaskContext
from causal_datasets.uncertainty import Mean
from causal_datasets.views import ResultsHistogram, View


def items(context: TaskContext) -> list[Item]:
    """The questions (of the chosen families and query types) except those whose CLadder estimand uses
    a variable the story calls unobserved (:func:`~causal_datasets.cladder_pairs.estimand_task.reference_unobserved`:
    the arrowhead natural effects), which no answer over observed variables can match."""
    options: CladderOptions = context.options
    return [
        Item(q.id, "questions", q)
        for q in context.rows("questions", CladderQuestionRow)
        if (not options.graph_families or q.graph_id in options.graph_families)
        and (not options.query_types or q.query_type in options.query_types)
        and not estimand_task.reference_unobserved(q)
    ]


def _paper(value: Callable[[CladderScores], float | None]) -> Callable[[CladderScores], float | None]:
    """``value`` of an answer to the paper's prompt (whose graph has an edge F1, 0 when unreadable); None otherwise."""
    return lambda scores: value(scores) if scores.graph_edge_f1 is not None else None


#: questions about one CLadder causal model (a story with its probabilities) share it; the headline numbers
#: beyond item_scores: the paper prompt's own-graph and yes/no columns, derivations, the judge's agreement
ESTIMATES = Estimates(
    unit="CLadder story and causal model",
    cluster=lambda item: item.row.causal_model,
    groups=lambda item, context: {name: str(getattr(item.row, field)) for name, field in SLICES},
    estimators=(
        Mean("accuracy_own_graph", _paper(lambda s: float(is_credited(s, s.scoring, suffix="_own_graph")))),
        Mean("answer_accuracy", _paper(lambda s: float(s.answer_correct is True))),
        Mean("graph_edge_f1", lambda s: s.graph_edge_f1),
        Mean("derivation_valid_share", lambda s: s.derivation_valid_share),
        *agreement_estimators("judge_agreement", lambda s: (verdict_label(s.judge), verdict_label(s.equivalent))),
    ),
)


TASK = Task(
    name="cladder_pairs",
    version=2,  # 2: the paper prompt carries the legend, answers are scored against both references
    help="CLadder estimand task (DoVerifier). Each answer is scored against CLadder's estimand and its formal form "
    "(--reference picks the headline; formal-form, the paper's, by default with --prompt paper) under both rules: "
    "equivalence (DoVerifier's: equal under the question's graph, do() answers allowed) and identification (the "
    "package's stricter task: also a formula in observed probabilities); --scoring picks the headline. Beside them: "
    "string match, BLEU, token F1 and optionally an LLM judge; optional feedback rounds, derivation checking. "
    "DoVerifier's Table 1 is --prompt paper (App. G verbatim with CLadder's legend, scored against the formal form by "
    "equivalence), its Table 2 adds "
    "--feedback-rounds N (App. H's graph-only feedback). Questions whose estimand uses a variable the story calls "
    "unobserved (the arrowhead natural effects) are left out",
    configs=("questions",),
    items=items,
    solve=solve,
    score=score,
    summarize=summarize,
    item_scores=item_scores,
    generation=CladderGeneration,
    scores=CladderScores,
    metrics=CladderMetrics,
    roles=(
        RoleSpec("model", "a chat model to answer the questions", required=True),
        RoleSpec(
            "judge", "an LLM judge of whether each answer equals CLadder's estimand (the judge column)", scoring=True
        ),
    ),
    options=CladderOptions,
    from_files=True,
    check=check,
    scoring_options=(
        "scoring",
        "reference",
        "verifier_seed",
        "judge_graph",
        "judge_attempts",
        "bertscore_model",
        "bertscore_layers",
    ),
    judge_options=("judge_graph", "judge_attempts"),  # a new --reference: the judge replays fail without its model
    rescore_notes=rescore_notes,
    view=View(
        "CLadder pairs (estimand equivalence, DoVerifier)",
        (
            ResultsHistogram(
                "proof_length", "Proof length of answers proven equivalent", "rewrite steps", where="equivalent"
            ),
        ),
    ),
    inspect={"cladder_estimand": "questions"},
    estimates=ESTIMATES,
)
