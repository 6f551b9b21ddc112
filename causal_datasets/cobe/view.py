"""The report's view of CoBe runs: the paper's figures of failure rates, accuracy per slice and failure modes."""

from __future__ import annotations

from causal_datasets.views import MappingBars, NestedBars, View

VIEW = View(
    "CoBe",
    (
        MappingBars("failure_rate", "CoBe failure rate per criterion (Fig. 5)", "failure rate"),
        NestedBars(
            "by_model", "failure_rate", "CoBe failure rate per criterion and model (Fig. 5)", "model", "failure rate"
        ),
        NestedBars("by_graph_type", "model_accuracy", "CoBe accuracy by graph type (Fig. 6)", "graph type", "accuracy"),
        NestedBars("by_phrasing", "model_accuracy", "CoBe accuracy by query phrasing (Fig. 7)", "phrasing", "accuracy"),
        NestedBars("by_domain", "model_accuracy", "CoBe accuracy by domain (Fig. 8)", "domain", "accuracy"),
        NestedBars(
            "by_failure_mode",
            "model_share",
            "CoBe wrong rewrites by failure mode (Fig. 9)",
            "failure mode",
            "share of a model's classified wrong rewrites",
        ),
    ),
)
