"""What the task YAMLs name with ``!function utils.<name>`` (lm-eval loads this file by path).

Everything lives in :mod:`causal_datasets.integrations.lm_eval`; this module only gathers it.
"""

from causal_datasets.integrations.lm_eval.data import (
    load_cladder_estimand,
    load_cladder_yes_no,
    load_cobe_queries,
    load_recast_graph,
)
from causal_datasets.integrations.lm_eval.scoring import (
    score_cladder_estimand,
    score_cladder_yes_no,
    score_cobe_queries,
    score_recast_graph,
)
from causal_datasets.integrations.lm_eval.task import PromptsTask, final_user_message

__all__ = [
    "PromptsTask",
    "final_user_message",
    "load_cladder_estimand",
    "load_cladder_yes_no",
    "load_cobe_queries",
    "load_recast_graph",
    "score_cladder_estimand",
    "score_cladder_yes_no",
    "score_cobe_queries",
    "score_recast_graph",
]
