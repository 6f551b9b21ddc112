"""Generators on demand, reasoning-gym's way: ``names()``, ``make(name, seed=..., size=..., **difficulty)``.

``make`` returns a :class:`~causal_datasets.gym.base.GymDataset` of entries ``{"question", "answer",
"metadata"}`` (indexable, iterable, ``len``) whose ``score_answer(answer, entry)`` is the benchmark's own
score in [0, 1]; :func:`score_answer` scores an entry of any generator. :func:`~causal_datasets.gym.streaming.stream`
and :func:`~causal_datasets.gym.streaming.iterable_dataset` give an endless stream (a ``datasets.IterableDataset``
for training) whose difficulty a :class:`~causal_datasets.gym.streaming.Curriculum` raises on a schedule.
The generators: ``base`` (the shape of one), ``cladder`` (equivalence pairs, identification), ``shapeworld``,
``causalab``; docs/generators.md shows each knob's measured effect (scripts/gym_difficulty.py).
"""

from __future__ import annotations

from typing import Any

from causal_datasets.gym.base import Entry, Generator, GymDataset, GymError, Knob, score_with
from causal_datasets.gym.causalab import CAUSALAB
from causal_datasets.gym.cladder import EQUIVALENCE, IDENTIFICATION
from causal_datasets.gym.shapeworld import SHAPEWORLD

GENERATORS: dict[str, Generator] = {g.name: g for g in (EQUIVALENCE, IDENTIFICATION, SHAPEWORLD, CAUSALAB)}

__all__ = ["GENERATORS", "Entry", "Generator", "GymDataset", "GymError", "Knob", "get", "make", "names", "score_answer"]


def names() -> list[str]:
    """The generators' names, sorted."""
    return sorted(GENERATORS)


def get(name: str) -> Generator:
    """The generator called ``name`` (:class:`GymError` naming the others when there is none)."""
    if name not in GENERATORS:
        raise GymError(f"no generator {name!r}; choose from {', '.join(names())}")
    return GENERATORS[name]


def make(name: str, *, seed: int = 0, size: int = 500, **difficulty: Any) -> GymDataset:
    """``size`` entries of generator ``name`` at ``difficulty`` (its knobs; the others at their defaults),
    entry ``i`` a function of the name, ``seed``, ``i`` and the difficulty alone."""
    generator = get(name)
    return GymDataset(generator, seed, size, generator.difficulty(difficulty))


def score_answer(answer: str | None, entry: Entry) -> float:
    """The score in [0, 1] of ``answer`` for an entry of any generator (by its ``metadata["source_dataset"]``)."""
    return score_with(get(entry["metadata"]["source_dataset"]), answer, entry)
