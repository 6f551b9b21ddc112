"""Per-suite statistics of built CausaLab episodes, for the dataset card."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean

from causal_datasets.causalab.properties import TARGET
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.markdown import markdown_table


def suite_table(configs: Mapping[str, Sequence[CausaLabEpisode]]) -> str:
    """One row per config: size, edges, frequency parents, weights, budget, family, disturbance."""
    rows = []
    for name, episodes in configs.items():
        if not episodes:
            continue
        edges = [len(e.edges) for e in episodes]
        parents = [sum(1 for x in e.edges if x.target == TARGET) for e in episodes]
        weights = [t.linear for e in episodes for eq in e.equations for t in eq.terms]
        hidden = {tuple(e.disturbance.value_space) for e in episodes if e.disturbance}
        rows.append(
            [
                name,
                len(episodes),
                "/".join(sorted({str(len(e.nodes)) for e in episodes})),
                f"{min(edges)}–{max(edges)} (mean {fmean(edges):.2f})",
                f"{fmean(parents):.2f}",
                f"{min(weights):g} … {max(weights):g}" if weights else "–",
                "/".join(sorted({str(e.budget) for e in episodes})),
                episodes[0].family,
                ", ".join(f"±{max(v):g}" for v in sorted(hidden)) or "–",
                f"{fmean(len(e.prior_records) for e in episodes):.1f}",
                f"{fmean(e.reactor_frequency for e in episodes):.1f}",
            ]
        )
    headers = [
        "config", "episodes", "nodes", "edges", "freq parents", "linear weights", "budget", "family",
        "hidden H", "prior records", "mean reactor Hz",
    ]  # fmt: skip
    return markdown_table(headers, rows)
