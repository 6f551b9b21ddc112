"""The figures ``report`` draws for CausaLab runs: accuracy by size, accuracy against edge F1 by regime,
the scaling curves, the scores along the episodes, budget use and consistency by success."""

from __future__ import annotations

from causal_datasets.views import MappingBars, ResultsTrajectories, RunCurves, RunScatter, SlicePlot, View

#: where CausaLab's scaling curves read a run's count: its records without interventions, its budget otherwise
SCALING_AXES = (("observation-only", "prior_observations"), ("mixed", "budget"), ("intervention-only", "budget"))

VIEW = View(
    "CausaLab",
    (
        SlicePlot(
            "by_num_nodes", "task_accuracy", "CausaLab task accuracy by number of nodes", "nodes", "task accuracy"
        ),
        RunScatter(
            "task_accuracy",
            "edge_f1",
            "regime",
            ("observation-only", "mixed"),
            "CausaLab accuracy vs edge F1 by regime (Fig. 3)",
            "task accuracy",
            "all-edge F1",
        ),
        *(
            RunCurves(
                metric,
                "regime",
                SCALING_AXES,
                f"CausaLab scaling: {name} (App. Figs. 13-14)",
                "prior observations (observation-only) or interventions (mixed, intervention-only)",
                name,
            )
            for metric, name in (("task_accuracy", "task accuracy"), ("edge_f1", "all-edge F1"))
        ),
        SlicePlot("by_step", "edge_f1", "CausaLab edge F1 at each step, mean per run", "step", "all-edge F1"),
        ResultsTrajectories(
            "trajectory", "edge_f1", "CausaLab edge F1 along each episode (App. Fig. 8)", "step", "all-edge F1"
        ),
        MappingBars("budget_used_by_success", "CausaLab budget used, by success", "budget used"),
        MappingBars(
            "consistent_by_success", "CausaLab final hypothesis fits own data, by success", "share of episodes"
        ),
    ),
)
