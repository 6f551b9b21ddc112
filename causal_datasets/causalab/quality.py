"""Data-quality findings of the imported release (the ``upstream_<suite>`` configs).

* The release holds manipulator and reactor crystal bases only for the hard-quadratic suite: the
  authors' code drew the others from Python's per-process randomized string ``hash()``, so they
  cannot be recovered. The import draws them from a stable seed
  (:func:`causal_datasets.causalab.crystals.stable_seed`). The observation crystals are not drawn:
  the authors' fixed stream reproduces them exactly.
* Every released budget should be 4(n − 1) for n properties.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from causal_datasets.builder import Finding
from causal_datasets.causalab.records import CausaLabEpisode


def upstream_findings(configs: Mapping[str, Sequence[CausaLabEpisode]]) -> list[Finding]:
    """The checks above on the imported configs (name → episodes)."""
    episodes = [e for rows in configs.values() for e in rows]
    drawn = [name for name, rows in configs.items() if any(e.quadratic_metadata is None for e in rows)]
    budgets = [e.id for e in episodes if e.budget != 4 * (len(e.nodes) - 1)]
    return [
        Finding(
            "upstream_*",
            "the release has no manipulator or reactor crystal bases (the authors drew them from Python's "
            "per-process randomized `hash()`; their observation crystals come from a fixed seed and are reproduced)",
            "drawn from `random.Random` seeded by sha256 of (seed, suite, graph id): the same on every build",
            ids=tuple(drawn),
            unit="configs",
        ),
        Finding(
            "upstream_*",
            "budget differs from 4(n − 1) for n properties",
            "kept as released",
            ids=tuple(budgets),
            unit="episodes",
        ),
    ]
