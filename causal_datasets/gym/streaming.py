"""Endless streams of entries for training, and the curriculum that raises their difficulty on a schedule.

:func:`stream` yields entry 0, 1, 2, ... of a generator (entry ``i`` the same as ``make(...)[i]`` at the
difficulty the schedule gives item ``i``); :func:`iterable_dataset` wraps it as a ``datasets.IterableDataset``
(``IterableDataset.from_generator``) with TRL's conversational ``prompt`` column, ``answer`` and the rest of the
entry's ``metadata`` as JSON text (its keys differ between generators). A :class:`Curriculum` walks the named knobs
up their levels (easiest first), one level every ``every`` items, from the levels of ``start`` (each knob's
easiest by default); the other knobs keep the values given.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import count, islice
from typing import Any

from causal_datasets.gym import get
from causal_datasets.gym.base import Difficulty, Entry, GymError


@dataclass(frozen=True)
class Curriculum:
    """Raise ``knobs`` one level every ``every`` items (all together), from ``start`` (knob → first level)."""

    knobs: tuple[str, ...]
    every: int
    start: Mapping[str, Any] = field(default_factory=dict)

    def difficulty(self, base: Difficulty, levels: Mapping[str, tuple[Any, ...]], item: int) -> Difficulty:
        """The difficulty of item ``item``: ``base`` with each scheduled knob at its level for that item."""
        step = item // self.every
        scheduled = dict(base)
        for knob in self.knobs:
            first = levels[knob].index(self.start[knob]) if knob in self.start else 0
            scheduled[knob] = levels[knob][min(first + step, len(levels[knob]) - 1)]
        return scheduled


def stream(
    name: str, *, seed: int = 0, curriculum: Curriculum | None = None, limit: int | None = None, **difficulty: Any
) -> Iterator[Entry]:
    """Entries of generator ``name`` in order (``limit`` of them, or endlessly), at ``difficulty`` or on
    ``curriculum``'s schedule."""
    generator = get(name)
    base = generator.difficulty(difficulty)
    levels = {knob: spec.levels for knob, spec in generator.knobs.items()}
    if curriculum is not None:
        if curriculum.every < 1:
            raise GymError(f"a curriculum raises difficulty every 1 or more items, got {curriculum.every}")
        unknown = sorted((set(curriculum.knobs) | set(curriculum.start)) - set(levels))
        if unknown:
            raise GymError(f"{name} has no knob {', '.join(unknown)}; its knobs: {', '.join(levels)}")
        for knob, value in curriculum.start.items():
            if value not in levels[knob]:
                raise GymError(f"the curriculum starts {knob} at {value!r}, not one of its levels {levels[knob]}")
    for item in islice(count(), limit):
        at = base if curriculum is None else curriculum.difficulty(base, levels, item)
        yield generator.entry(seed, item, at)


def training_row(entry: Entry) -> dict[str, Any]:
    """An entry as a training row: ``prompt`` (chat messages), ``question``, ``answer``, the rest of its
    ``metadata`` as JSON."""
    metadata = dict(entry["metadata"])
    return {
        "prompt": metadata.pop("prompt"),
        "question": entry["question"],
        "answer": entry["answer"],
        "source_dataset": metadata["source_dataset"],
        "metadata": json.dumps(metadata, sort_keys=True),
    }


def _rows(name: str, seed: int, curriculum: Curriculum | None, limit: int | None, difficulty: Difficulty) -> Any:
    return (training_row(entry) for entry in stream(name, seed=seed, curriculum=curriculum, limit=limit, **difficulty))


def iterable_dataset(
    name: str, *, seed: int = 0, curriculum: Curriculum | None = None, limit: int | None = None, **difficulty: Any
) -> Any:
    """:func:`stream` as a ``datasets.IterableDataset`` of :func:`training_row` rows."""
    from datasets import Features, IterableDataset, List, Value

    get(name).difficulty(difficulty)  # bad knobs fail here, not at the first row
    features = Features(
        {
            "prompt": List({"role": Value("string"), "content": Value("string")}),
            "question": Value("string"),
            "answer": Value("string"),
            "source_dataset": Value("string"),
            "metadata": Value("string"),
        }
    )
    return IterableDataset.from_generator(
        _rows,
        features=features,
        gen_kwargs={"name": name, "seed": seed, "curriculum": curriculum, "limit": limit, "difficulty": difficulty},
    )
