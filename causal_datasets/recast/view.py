"""The report's view of a ReCAST run: the paper's figures (confounding, domains, size, answer length)."""

from __future__ import annotations

from causal_datasets.views import RadarPlot, ResultsHistogram, ResultsScatter, SlicePlot, View

#: the two per-sample scores of ReCAST's analyses (recast.analysis.SCORES) and their names on plots
SCORES = (("judge_f1", "judge F1"), ("edge_f1_normalized", "edge F1 (normalized names)"))

VIEW = View(
    "ReCAST",
    (
        *(
            SlicePlot(
                slice,
                metric,
                f"ReCAST {name} by degree of confounding, {kind} ({figure})",
                f"{kind} degree of confounding (bins of about equal size)",
                name,
            )
            for slice, kind, figure in (
                ("by_confounding", "lenient", "Fig. 2"),
                ("by_confounding_strict", "strict", "App. Fig. 9"),
            )
            for metric, name in SCORES
        ),
        *(RadarPlot("by_domain", metric, f"ReCAST {name} by domain (Fig. 4)") for metric, name in SCORES),
        *(
            ResultsScatter(
                size,
                "confounding_lenient",
                f"ReCAST {label} vs confounding ({figure})",
                f"{label} (log scale)",
                "lenient degree of confounding",
                log_x=True,
            )
            for size, label, figure in (
                ("text_length", "text length", "Fig. 3, App. Fig. 6"),
                ("num_edges", "edges", "App. Fig. 7"),
                ("num_nodes", "nodes", "as App. Fig. 7"),
            )
        ),
        ResultsHistogram(
            "completion_tokens",
            "ReCAST answer length incl. reasoning trace (App. Figs. 4-5)",
            "completion tokens (bins of 1,000)",
            bin_width=1000,
        ),
    ),
)
