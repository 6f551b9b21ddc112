"""Interaction regimes: how many prior observation records an episode starts with and how many
interventions it may make (the paper's RQ2, Fig. 3, and its scaling experiments, App. Figs. 13–14).

A dataset row holds the release's setting, two observation records and a budget of 4(n − 1)
interventions. :func:`with_setting` derives the same episode with any other number of either
(zero included): the hidden SCM, the manipulator and the reactor stay the same, and observation
record ``i`` is the same crystal whatever the count, so the records of a smaller setting are a
prefix of a larger one. For a released configuration the observation crystals come from the
authors' own fixed stream (:func:`~causal_datasets.causalab.crystals.upstream_observation_crystals`);
for a generated one, crystals beyond the row's own are drawn from
``stable_seed(episode seed, "observation", i)``. Records a suite supplies (the Golden traces) always
follow the observations.

The presets carry the paper's names: ``observation-only`` (12 records, no intervention),
``mixed`` (the release's 2 records and its budget: the anchor of every follow-up) and
``intervention-only`` (no record, the release's budget). The scaling experiments vary one count
over :data:`SCALING_COUNTS` in three families: ``observation`` (N records, no intervention),
``intervention`` (no record, budget N) and ``mixed`` (3 records, budget N).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from causal_datasets.causalab.crystals import (
    draw_crystal,
    observation_records,
    stable_seed,
    upstream_observation_crystals,
)
from causal_datasets.causalab.mechanism import Mechanism
from causal_datasets.causalab.records import CausaLabEpisode, Crystal

RegimeName = Literal["observation-only", "mixed", "intervention-only"]
ScalingFamily = Literal["observation", "intervention", "mixed"]
#: the counts of the paper's scaling experiments (observations, or interventions)
SCALING_COUNTS = (3, 6, 12, 24)
#: prior observations of the scaling experiments' mixed family
MIXED_SCALING_OBSERVATIONS = 3


@dataclass(frozen=True)
class Setting:
    """Prior observation records and intervention budget; None keeps the dataset row's own."""

    prior_observations: int | None = None
    budget: int | None = None


REGIMES: dict[RegimeName, Setting] = {
    "observation-only": Setting(prior_observations=12, budget=0),
    "mixed": Setting(prior_observations=2),
    "intervention-only": Setting(prior_observations=0),
}


def scaling_setting(family: ScalingFamily, count: int) -> Setting:
    """The setting of one point of a scaling curve."""
    if family == "observation":
        return Setting(prior_observations=count, budget=0)
    if family == "intervention":
        return Setting(prior_observations=0, budget=count)
    return Setting(prior_observations=MIXED_SCALING_OBSERVATIONS, budget=count)


def regime_of(prior_observations: int, budget: int) -> RegimeName:
    """The regime an episode's counts fall in: no intervention → observation-only; interventions
    without any record → intervention-only; both → mixed."""
    if budget == 0:
        return "observation-only"
    return "intervention-only" if prior_observations == 0 else "mixed"


def observation_crystals(episode: CausaLabEpisode, count: int) -> list[Crystal]:
    """The first ``count`` observation crystals of ``episode`` (see the module docstring)."""
    if episode.origin == "upstream":
        presets = episode.observation_crystals if episode.quadratic_metadata is not None else []
        return upstream_observation_crystals(episode.controllable, count, presets)
    stored = list(episode.observation_crystals[:count])
    extra = [
        draw_crystal(
            random.Random(stable_seed(episode.seed, "observation", i)), f"observation-{i}", episode.controllable
        )
        for i in range(len(stored), count)
    ]
    return stored + extra


def with_setting(episode: CausaLabEpisode, setting: Setting) -> CausaLabEpisode:
    """``episode`` with the setting's number of prior observation records and budget."""
    update: dict[str, object] = {}
    if setting.prior_observations is not None and setting.prior_observations != len(episode.observation_crystals):
        crystals = observation_crystals(episode, setting.prior_observations)
        supplied = episode.prior_records[len(episode.observation_crystals) :]
        records = observation_records(Mechanism.from_episode(episode), crystals)
        update |= {"observation_crystals": crystals, "prior_records": records + supplied}
    if setting.budget is not None:
        update["budget"] = setting.budget
    return episode.model_copy(update=update) if update else episode
