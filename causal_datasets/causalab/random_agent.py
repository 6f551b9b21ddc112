"""Baseline random agent: random interventions over the whole budget, a random acyclic hypothesis,
and a guess drawn uniformly between the lowest and highest frequency it has seen."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from causal_datasets.causalab.crystals import stable_seed
from causal_datasets.causalab.dsl import DslEdge, DslStep, Experiment, Hypothesis
from causal_datasets.causalab.episode import AgentStep, LabView
from causal_datasets.causalab.properties import TARGET

EDGE_PROBABILITY = 0.4


@dataclass
class RandomAgent:
    seed: int = 0
    name: str = "random"
    rng: random.Random | None = None
    hypothesis: Hypothesis = field(default_factory=Hypothesis)

    def act(self, view: LabView) -> AgentStep:
        if self.rng is None:
            self.rng = random.Random(stable_seed(self.seed, "random-agent", view.episode_id))
            self.hypothesis = _random_hypothesis(view, self.rng)
        if view.remaining > 0 and not view.submissions:
            prop = self.rng.choice(view.controllable)
            step = DslStep(
                action="intervene",
                experiment=Experiment(target_prop=prop, target_value=float(self.rng.randint(0, 100))),
            )
        else:
            seen = [r["freq"] for r in view.prior_records] + [r["values"][TARGET] for r in view.readings]
            step = DslStep(action="submit", prediction=round(self.rng.uniform(min(seen), max(seen)), 2))
        step.hypothesis = self.hypothesis
        return AgentStep(step=step, raw=step.model_dump_json())


def _random_hypothesis(view: LabView, rng: random.Random) -> Hypothesis:
    """A random acyclic hypothesis: each edge along a shuffled order of the properties, then the frequency."""
    order = [*view.properties]
    rng.shuffle(order)
    order.append(TARGET)
    edges = [
        DslEdge(source=a, target=b)
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if rng.random() < EDGE_PROBABILITY
    ]
    return Hypothesis(edges=edges)
