"""The shape every generator of :mod:`causal_datasets.gym` has, after reasoning-gym's ``ProceduralDataset``.

A :class:`Generator` declares its difficulty knobs (:class:`Knob`: a default and the levels a curriculum
walks, easiest first), builds entry ``index`` of a dataset from one ``random.Random`` seeded by a string
naming the generator, the seed and the index (SHA-512, never ``hash()``: item ``i`` is the same whatever
the size, and any item can be rebuilt alone) and scores an answer with the benchmark's own scoring. An
:data:`Entry` is a dict ``{"question", "answer", "metadata"}``; ``metadata`` names its generator
(``source_dataset``), index, difficulty and the chat ``prompt`` a chat model is sent, and holds every
column its score reads.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from causal_datasets.errors import CausalDatasetsError
from causal_datasets.reward_guards import over_length

Entry = dict[str, Any]
Difficulty = dict[str, Any]


class GymError(CausalDatasetsError, ValueError):
    """An unknown generator or knob, or a knob value outside its range."""


@dataclass(frozen=True)
class Knob:
    """One difficulty parameter: its default and its levels, easiest first (the curriculum's steps)."""

    default: Any
    levels: tuple[Any, ...]
    description: str

    def check(self, name: str, value: Any) -> Any:
        """``value`` when it is one of the levels (or, for a numeric knob, within their range)."""
        numeric = all(isinstance(level, (int, float)) and not isinstance(level, bool) for level in self.levels)
        if numeric and isinstance(value, (int, float)) and not isinstance(value, bool):
            continuous = any(isinstance(level, float) for level in self.levels)
            if min(self.levels) <= value <= max(self.levels) and (continuous or isinstance(value, int)):
                return float(value) if continuous else value  # 5 and 5.0 name the same difficulty
        elif value in self.levels:
            return value
        shown = f"{min(self.levels)}..{max(self.levels)}" if numeric else ", ".join(map(str, self.levels))
        raise GymError(f"{name} must be one of {shown}, got {value!r}")


@dataclass(frozen=True)
class Generator:
    """A generator: ``build(rng, difficulty)`` makes the question, answer and metadata of one entry,
    ``score(answer, entry)`` scores a reply in [0, 1] with the benchmark's own rules."""

    name: str
    description: str
    knobs: Mapping[str, Knob]
    build: Callable[[random.Random, Difficulty], Entry]
    score: Callable[[str, Entry], float]
    #: measured difficulty of a list of entries: {measure: value} (docs/generators.md)
    measure: Callable[[Sequence[Entry]], dict[str, float]] = field(repr=False, default=lambda entries: {})

    def difficulty(self, overrides: Mapping[str, Any]) -> Difficulty:
        """Every knob's value: the defaults, with ``overrides`` checked against the knobs."""
        unknown = sorted(set(overrides) - set(self.knobs))
        if unknown:
            raise GymError(f"{self.name} has no knob {', '.join(unknown)}; its knobs: {', '.join(self.knobs)}")
        return {name: knob.check(name, overrides.get(name, knob.default)) for name, knob in self.knobs.items()}

    def entry(self, seed: int, index: int, difficulty: Difficulty) -> Entry:
        """Entry ``index`` of the dataset with this ``seed`` and ``difficulty``."""
        rng = random.Random(f"causal_datasets.gym/{self.name}/{seed}/{index}/{sorted(difficulty.items())}")
        entry = self.build(rng, difficulty)
        entry["metadata"] |= {"source_dataset": self.name, "source_index": index, "difficulty": dict(difficulty)}
        return entry


class GymDataset(Sequence[Entry]):
    """``size`` entries of one generator at one difficulty, built on demand (reasoning-gym's ``ProceduralDataset``):
    indexable, iterable, ``len``, and :meth:`score_answer`."""

    def __init__(self, generator: Generator, seed: int, size: int, difficulty: Difficulty):
        if size < 0:
            raise GymError(f"size must be at least 0, got {size}")
        self.generator, self.seed, self.size, self.difficulty = generator, seed, size, difficulty

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        if not -self.size <= index < self.size:
            raise IndexError(f"entry {index} of a dataset of {self.size}")
        return self.generator.entry(self.seed, index % self.size, self.difficulty)

    def __iter__(self) -> Iterator[Entry]:
        return (self[i] for i in range(self.size))

    def score_answer(self, answer: str | None, entry: Entry) -> float:
        """The reward of ``answer`` for ``entry`` in [0, 1]; None or empty scores 0.0."""
        return score_with(self.generator, answer, entry)


def score_with(generator: Generator, answer: str | None, entry: Entry) -> float:
    """``generator.score``, with None, blank and over-long answers scoring 0.0 and the result kept in [0, 1]."""
    if not isinstance(answer, str) or not answer.strip() or over_length(answer):
        return 0.0
    return min(1.0, max(0.0, float(generator.score(answer, entry))))
