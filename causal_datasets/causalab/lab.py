"""The laboratory environment of one episode: manipulator interventions, reactor, submissions.

* Interventions are shift-style: setting ``X`` to ``v`` moves X's base so that X would read ``v``
  given its current parents; later changes upstream still move X. The base is solved against the
  crystal's *undisturbed* values and rounded to 2 decimals, as the reference environment does.
* With a hidden disturbance H, H is redrawn after every intervention (seeded) and the crystal is
  recomputed with H's shift added to the affected nodes, so it propagates downstream: X then
  reads ``v`` plus whatever H now adds to it or to its causes. H starts at its initial value.
  The disturbance never enters a base: take H away and the crystal reads exactly what its
  interventions set.
* Submissions: a fixed number, every one of them checked (a success ends the episode); success is
  ``|prediction − reactor frequency| < tolerance``. After the first submission the manipulator is
  locked. Invalid requests come back as a typed :class:`Refusal`; nothing here raises on bad input.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Literal

from causal_datasets.causalab.crystals import bases_of, disturbance_shifts
from causal_datasets.causalab.mechanism import Mechanism
from causal_datasets.causalab.properties import normalize_name
from causal_datasets.causalab.records import CausaLabEpisode

RefusalReason = Literal[
    "unknown_property", "not_controllable", "invalid_value", "budget_exhausted", "manipulator_locked",
    "submissions_exhausted", "already_solved",
]  # fmt: skip


@dataclass(frozen=True)
class Refusal:
    """An invalid request: why, and a message for the agent."""

    reason: RefusalReason
    message: str


@dataclass(frozen=True)
class Reading:
    """The manipulator crystal after an intervention (every property and its frequency)."""

    values: dict[str, float]
    uses: int
    budget: int


@dataclass(frozen=True)
class SubmissionResult:
    prediction: float
    success: bool
    submissions: int
    max_submissions: int


@dataclass
class Lab:
    """Mutable state of one episode's laboratory."""

    episode: CausaLabEpisode
    mechanism: Mechanism = field(init=False)
    bases: dict[str, float] = field(init=False)
    hidden: float | None = field(init=False)
    uses: int = 0
    submissions: list[SubmissionResult] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mechanism = Mechanism.from_episode(self.episode)
        self.bases = bases_of(self.episode.manipulator)
        disturbance = self.episode.disturbance
        self.hidden = disturbance.initial_value if disturbance else None
        self._rng = random.Random(self.episode.seed)

    # -- what the agent may look at -------------------------------------------------------
    def manipulator_values(self) -> dict[str, float]:
        return self.mechanism.evaluate(self.bases, disturbance_shifts(self.episode.disturbance, self.hidden))

    def reactor_properties(self) -> dict[str, float]:
        """The reactor crystal's visible properties (its frequency stays hidden)."""
        return {p.name: p.value for p in self.episode.reactor_properties}

    @property
    def remaining(self) -> int:
        return self.episode.budget - self.uses

    @property
    def solved(self) -> bool:
        return any(s.success for s in self.submissions)

    @property
    def finished(self) -> bool:
        return self.solved or len(self.submissions) >= self.episode.max_submissions

    # -- actions ----------------------------------------------------------------------------
    def intervene(self, prop: str, value: object) -> Reading | Refusal:
        """Set a controllable property of the manipulator crystal (shift-style)."""
        name = normalize_name(prop)
        if name not in self.episode.nodes:
            return Refusal("unknown_property", f"unknown property {prop!r}; known: {', '.join(self.episode.nodes)}")
        if name not in self.episode.controllable:
            return Refusal("not_controllable", f"{name} cannot be set directly")
        number = _number(value)
        if number is None:
            return Refusal("invalid_value", f"value {value!r} is not a finite number")
        if self.submissions:
            return Refusal("manipulator_locked", "the manipulator is locked once the reactor has been used")
        if self.remaining <= 0:
            return Refusal("budget_exhausted", f"all {self.episode.budget} adjustments are used")
        undisturbed = self.mechanism.evaluate(self.bases)
        self.bases[name] = self.mechanism.base_for(name, number, self.bases[name], undisturbed)
        self.uses += 1
        disturbance = self.episode.disturbance
        if disturbance is not None:
            self.hidden = self._rng.choice(disturbance.value_space)
        return Reading(self.manipulator_values(), self.uses, self.episode.budget)

    def submit(self, prediction: object) -> SubmissionResult | Refusal:
        """Set the reactor to a frequency; every submission up to the limit is checked."""
        if self.solved:
            return Refusal("already_solved", "the reactor is already activated")
        if len(self.submissions) >= self.episode.max_submissions:
            return Refusal("submissions_exhausted", f"all {self.episode.max_submissions} submissions are used")
        number = _number(prediction)
        if number is None:
            return Refusal("invalid_value", f"prediction {prediction!r} is not a finite number")
        success = abs(number - self.episode.reactor_frequency) < self.episode.tolerance
        result = SubmissionResult(number, success, len(self.submissions) + 1, self.episode.max_submissions)
        self.submissions.append(result)
        return result


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
