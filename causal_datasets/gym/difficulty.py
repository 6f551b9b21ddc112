"""Measured difficulty per knob: each knob's levels in turn (the other knobs at their defaults), each level's
entries measured by its generator (the reference agent's steps or success, graph statistics).

:data:`TRACKED` names, per knob, the measure that knob is claimed to raise monotonically; the docs table
(scripts/gym_difficulty.py → docs/generators.md) shows every measure, and tests check the tracked ones.
"""

from __future__ import annotations

from typing import Any

from causal_datasets.gym import get

#: (generator, knob) → the measure that rises (never falls) with the knob's level
TRACKED: dict[tuple[str, str], str] = {
    ("cladder_equivalence", "nodes"): "edges",
    ("cladder_equivalence", "latents"): "edges",
    ("cladder_equivalence", "depth"): "terms",
    ("identification", "nodes"): "derivation_steps",
    ("identification", "latents"): "not_identifiable",
    ("identification", "conditional_share"): "conditional",
    ("shapeworld", "structure"): "edges",
    ("shapeworld", "variables"): "edges",
    ("causalab", "nodes"): "agent_steps",
    ("causalab", "hidden"): "reference_failure",
    ("causalab", "regime"): "reference_failure",
}


def knob_levels(name: str, knob: str, *, size: int, seed: int = 0) -> list[tuple[Any, dict[str, float]]]:
    """Each level of ``knob`` with the measures of ``size`` entries at that level (the rest at defaults)."""
    generator = get(name)
    rows = []
    for level in generator.knobs[knob].levels:
        difficulty = generator.difficulty({knob: level})
        entries = [generator.entry(seed, index, difficulty) for index in range(size)]
        rows.append((level, generator.measure(entries)))
    return rows


def rises(values: list[float]) -> bool:
    """Whether ``values`` never fall and end above where they start."""
    return all(a <= b for a, b in zip(values, values[1:], strict=False)) and values[-1] > values[0]
