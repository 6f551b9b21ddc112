"""Row model of the ``causalab`` dataset: one record holds everything needed to replay an episode."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from causal_datasets.records.base import Record


class PropertyValue(Record):
    """One named number (a crystal base, a measured property)."""

    name: str = Field(description="Property name (e.g. `temperatureC`).")
    value: float = Field(description="Its value.")


class Edge(Record):
    """A directed edge of the hidden causal graph."""

    source: str = Field(description="The cause (a property name).")
    target: str = Field(description="The effect (a property name).")


class Term(Record):
    """A parent's contribution ``quadratic·p² + linear·p`` (``quadratic`` is 0 in the linear family)."""

    parent: str = Field(description="The parent property.")
    linear: float = Field(description="Coefficient of the parent's value.")
    quadratic: float = Field(description="Coefficient of the parent's squared value (0 in the linear family).")


class Equation(Record):
    """``node = base + Σ terms``. For controllable nodes ``base`` is the upstream nominal value only:
    every crystal brings its own base for them. The target's base is shared by all crystals."""

    node: str = Field(description="The property the equation sets.")
    base: float = Field(
        description="Intercept: shared by all crystals for `resonanceFreq`; for controllable properties only the "
        "release's nominal value, as every crystal brings its own base."
    )
    terms: list[Term] = Field(description="One term per parent.")


class Disturbance(Record):
    """Hidden disturbance H: redrawn from ``value_space`` after every intervention, added with
    ``weight`` to ``affected_nodes`` and propagated downstream. Never observable."""

    value_space: list[float] = Field(description="Values H is drawn from after every intervention, e.g. [−5, 0, 5].")
    weight: float = Field(description="Weight with which H is added to each affected property.")
    affected_nodes: list[str] = Field(
        description="Properties H is added to (the frequency among them in the freqnode suites)."
    )
    initial_value: float = Field(description="H before the first intervention.")


class Intervention(Record):
    """A setting of one controllable property."""

    target_prop: str = Field(description="The property set.")
    target_value: float = Field(description="The value it was set to.")


class Measurement(Record):
    """A measurement record shown to the agent: properties, frequency, and the intervention that
    produced it (None for a plain observation)."""

    id: str = Field(description="Record id.")
    properties: list[PropertyValue] = Field(description="Every measured property except the frequency.")
    frequency: float = Field(description="Measured resonance frequency (Hz).")
    intervention: Intervention | None = Field(
        description="The intervention that produced the record; null for an observation."
    )


class Crystal(Record):
    """The bases of a crystal's controllable properties."""

    id: str = Field(description="Crystal id (`observation-<i>`, `manipulator`, `reactor`).")
    bases: list[PropertyValue] = Field(description="Base value of each controllable property.")


class EdgeAxis(Record):
    """Vertex position ``-linear / (2·quadratic)`` of one quadratic edge, as the release states it."""

    source: str = Field(description="The parent.")
    target: str = Field(description="The child.")
    axis: float = Field(description="Vertex position `-linear / (2·quadratic)` of the edge's parabola.")


class QuadraticMetadata(Record):
    """Upstream metadata of the hard-quadratic suite kept for fidelity: vertex per edge and probe
    points per controllable node (not used by the environment)."""

    edge_axes: list[EdgeAxis] = Field(description="Vertex position of every quadratic edge.")
    probe_left: list[PropertyValue] = Field(description="Left probe point per controllable property, as released.")
    probe_right: list[PropertyValue] = Field(description="Right probe point per controllable property, as released.")


class CausaLabEpisode(Record):
    """One CausaLab episode: hidden SCM, crystals, what the agent is shown, and the answer."""

    id: str = Field(description="Episode id: `<config>/<graph_id>`.")
    suite: str = Field(description="The released suite the episode belongs to or mirrors (e.g. `4nodes_hidden_n2`).")
    origin: Literal["generated", "upstream"] = Field(
        description="`generated` by this package's seeded generator, or `upstream` "
        "(imported from the authors' release)."
    )
    graph_id: str = Field(description="Graph id within the suite; suites of one size share graphs index by index.")
    description: str = Field(description="One-line description of the graph (as released, for upstream episodes).")
    family: Literal["linear", "quadratic"] = Field(
        description="Equation family: `linear` (`X = base + Σ w·p`) or `quadratic` (each parent adds `u·p² + w·p`)."
    )
    nodes: list[str] = Field(description="Every property of the crystal, `resonanceFreq` included.")
    controllable: list[str] = Field(description="Properties the agent may set on the manipulator crystal.")
    edges: list[Edge] = Field(description="The hidden causal graph (a DAG).")
    equations: list[Equation] = Field(description="One structural equation per property.")
    frequency_can_be_parent: bool = Field(
        description="Whether `resonanceFreq` may cause other properties (freqparent suites)."
    )
    disturbance: Disturbance | None = Field(description="Hidden disturbance H of the hidden suites; null elsewhere.")
    observation_crystals: list[Crystal] = Field(
        description="Crystals the prior records were measured on (empty when the release supplies the records)."
    )
    prior_records: list[Measurement] = Field(
        description="Measurement records shown to the agent at the start "
        "(the Golden suites add a chain of interventions)."
    )
    manipulator: Crystal = Field(description="The crystal the agent intervenes on.")
    reactor: Crystal = Field(description="The held-out crystal whose frequency the agent must predict.")
    reactor_properties: list[PropertyValue] = Field(
        description="The reactor's visible properties (all but the frequency)."
    )
    reactor_frequency: float = Field(description="The reactor's hidden frequency (Hz): the answer.")
    budget: int = Field(description="Interventions allowed, 4(n − 1) for n properties.")
    tolerance: float = Field(
        description="A prediction succeeds when it is strictly within this many Hz of the answer (5)."
    )
    max_submissions: int = Field(description="Predictions allowed; every one is checked (3).")
    seed: int = Field(description="Seed of the crystals (when drawn) and of the redraws of H.")
    quadratic_metadata: QuadraticMetadata | None = Field(
        description="Upstream metadata of the hard-quadratic suite, kept for fidelity (unused by the environment); "
        "null elsewhere."
    )
