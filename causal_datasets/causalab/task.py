"""``causal-datasets eval causalab``: CausaLab episodes played by a chat model or a reference agent.

Agents and models go through the same episode loop (:mod:`causal_datasets.causalab.play`); scoring the
finished episode (:mod:`causal_datasets.causalab.scores`) gives the per-step and final mechanism scores
and the consistency of the final hypothesis with the agent's own data. ``--regime`` /
``--prior-observations`` / ``--budget`` set the interaction regime (:mod:`causal_datasets.causalab.regimes`).
An episode the model server could not finish (``llm_error``) is a failed item, played again by ``--resume``.
The authors' own run folders are scored as published transcripts through the same scoring
(:mod:`causal_datasets.causalab.upstream_scores`).
"""

from __future__ import annotations

from causal_datasets.causalab.estimates import ESTIMATES
from causal_datasets.causalab.options import CausaLabOptions
from causal_datasets.causalab.play import AGENTS, CausaLabGeneration, solve
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.regimes import with_setting
from causal_datasets.causalab.scores import CausaLabScores, item_scores, score
from causal_datasets.causalab.summary import CausaLabMetrics, summarize
from causal_datasets.causalab.view import VIEW
from causal_datasets.runners.task import Item, RoleSpec, Task, TaskContext


def items(context: TaskContext) -> list[Item]:
    """The episodes of the configs asked for, in the run's interaction regime."""
    setting = context.options.setting()
    return [
        Item(row.id, config, with_setting(row, setting))
        for config in context.configs
        for row in context.rows(config, CausaLabEpisode)
    ]


TASK = Task(
    name="causalab",
    version=1,
    help="interactive CausaLab episodes: intervene on crystals, predict the reactor frequency, state the mechanism",
    default_configs=("4nodes",),
    items=items,
    solve=solve,
    score=score,
    summarize=summarize,
    item_scores=item_scores,
    generation=CausaLabGeneration,
    scores=CausaLabScores,
    metrics=CausaLabMetrics,
    roles=(RoleSpec("model", "the model that runs the experiments"),),
    agents=AGENTS,
    options=CausaLabOptions,
    multiple_configs=True,
    from_files=True,
    estimates=ESTIMATES,
    view=VIEW,
)
