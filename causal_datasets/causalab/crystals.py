"""Crystals of an episode: seeded bases, measurement records, and assembling a complete episode.

Shared by the generator and the upstream importer, so both produce episodes the same way. The
authors' environment draws the observation crystals of every released configuration from one
fixed stream (:func:`upstream_observation_crystals`); only its manipulator and reactor crystals
depended on Python's per-process ``hash()``, and those are drawn here from a stable seed.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from causal_datasets.causalab.mechanism import Mechanism
from causal_datasets.causalab.properties import TARGET
from causal_datasets.causalab.records import (
    CausaLabEpisode,
    Crystal,
    Disturbance,
    Edge,
    Equation,
    Measurement,
    PropertyValue,
    QuadraticMetadata,
)

BASE_RANGE = (0, 100)
PRIOR_OBSERVATIONS = 2
#: the authors' environment draws every configuration's observation crystals from this fixed seed
UPSTREAM_OBSERVATION_SEED = 42
TOLERANCE_HZ = 5.0
MAX_SUBMISSIONS = 3


def stable_seed(*parts: object) -> int:
    """A 48-bit seed from the parts' text (sha256; never Python's randomized ``hash()``)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return int(digest[:12], 16)


def draw_crystal(rng: random.Random, crystal_id: str, controllable: Sequence[str]) -> Crystal:
    """A crystal with integer bases drawn uniformly from ``BASE_RANGE`` for every controllable node."""
    return Crystal(
        id=crystal_id, bases=[PropertyValue(name=n, value=float(rng.randint(*BASE_RANGE))) for n in controllable]
    )


def bases_of(crystal: Crystal) -> dict[str, float]:
    return {item.name: item.value for item in crystal.bases}


def crystal_reading(mechanism: Mechanism, crystal_id: str, values: dict[str, float]) -> Crystal:
    """The crystal whose controllable properties read ``values`` (each equation inverted on them)."""
    full = {TARGET: 0.0} | values
    return Crystal(
        id=crystal_id,
        bases=[
            PropertyValue(name=n, value=round(full[n] - mechanism.contribution(n, full), 2))
            for n in sorted(mechanism.controllable)
        ],
    )


def disturbance_shifts(disturbance: Disturbance | None, value: float | None = None) -> dict[str, float]:
    """Per-node shifts when H takes ``value`` (its initial value if None); empty without H."""
    if disturbance is None:
        return {}
    h = disturbance.initial_value if value is None else value
    return {node: disturbance.weight * h for node in disturbance.affected_nodes}


def measurement(record_id: str, values: dict[str, float], intervention=None) -> Measurement:
    """A record as the agent sees it: every property except the target, plus the target's frequency."""
    return Measurement(
        id=record_id,
        properties=[PropertyValue(name=n, value=v) for n, v in values.items() if n != TARGET],
        frequency=values[TARGET],
        intervention=intervention,
    )


def observation_records(mechanism: Mechanism, crystals: Sequence[Crystal]) -> list[Measurement]:
    """The prior observation records measured on ``crystals`` (a hidden disturbance never acts on them)."""
    return [measurement(f"{i}/prior", mechanism.evaluate(bases_of(c))) for i, c in enumerate(crystals)]


def upstream_observation_crystals(
    controllable: Sequence[str], count: int, presets: Sequence[Crystal] = ()
) -> list[Crystal]:
    """The observation crystals the authors' environment shows for a released configuration: the
    hard-quadratic presets first, then integer bases in [0, 100] drawn for every controllable
    property in node order from ``random.Random(UPSTREAM_OBSERVATION_SEED)`` — one fixed stream,
    the same for every configuration, so any number of them is reproducible exactly."""
    rng = random.Random(UPSTREAM_OBSERVATION_SEED)
    return [
        presets[i].model_copy(update={"id": f"observation-{i}"})
        if i < len(presets)
        else draw_crystal(rng, f"observation-{i}", controllable)
        for i in range(count)
    ]


def assemble_episode(
    *,
    episode_id: str,
    suite: str,
    origin: str,
    graph_id: str,
    description: str,
    family: str,
    nodes: list[str],
    controllable: list[str],
    edges: list[Edge],
    equations: list[Equation],
    budget: int,
    seed: int,
    frequency_can_be_parent: bool = False,
    disturbance: Disturbance | None = None,
    observation_crystals: list[Crystal] | None = None,
    supplied_records: Sequence[Measurement] = (),
    manipulator: Crystal | None = None,
    reactor: Crystal | None = None,
    quadratic_metadata: QuadraticMetadata | None = None,
) -> CausaLabEpisode:
    """A complete episode; crystals not given are drawn from ``random.Random(seed)`` in a fixed order
    (observations, manipulator, reactor). The prior records are the observation crystals' readings,
    then any ``supplied_records`` (the Golden suites' intervention traces). A hidden disturbance
    acts on the manipulator only, after interventions (as in the authors' environment): prior
    records and the reactor are undisturbed."""
    rng = random.Random(seed)
    mechanism = Mechanism.build(equations, controllable)
    if observation_crystals is None:
        observation_crystals = [draw_crystal(rng, f"observation-{i}", controllable) for i in range(PRIOR_OBSERVATIONS)]
    manipulator = manipulator or draw_crystal(rng, "manipulator", controllable)
    reactor = reactor or draw_crystal(rng, "reactor", controllable)
    reactor_values = mechanism.evaluate(bases_of(reactor))
    return CausaLabEpisode(
        id=episode_id,
        suite=suite,
        origin=origin,
        graph_id=graph_id,
        description=description,
        family=family,
        nodes=nodes,
        controllable=controllable,
        edges=edges,
        equations=equations,
        frequency_can_be_parent=frequency_can_be_parent,
        disturbance=disturbance,
        observation_crystals=observation_crystals,
        prior_records=observation_records(mechanism, observation_crystals) + list(supplied_records),
        manipulator=manipulator,
        reactor=reactor,
        reactor_properties=[PropertyValue(name=n, value=v) for n, v in reactor_values.items() if n != TARGET],
        reactor_frequency=reactor_values[TARGET],
        budget=budget,
        tolerance=TOLERANCE_HZ,
        max_submissions=MAX_SUBMISSIONS,
        seed=seed,
        quadratic_metadata=quadratic_metadata,
    )
