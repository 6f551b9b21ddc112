"""CausaLab as a single-turn generator: the records an experiment produced, then the reactor's frequency.

An episode (:func:`~causal_datasets.causalab.generator.generate_episode`) of ``nodes`` nodes whose frequency
a hidden variable shifts by ±``hidden`` Hz (the release's ``freqnode`` and ``vrange`` suites; a hidden
variable on other properties alone changes nothing a prediction needs, they are all visible), under one of
the paper's interaction regimes (``regime``, :mod:`~causal_datasets.causalab.regimes`), is played by the
reference ``experimenter`` agent; the entry shows every record it saw (the prior observation records, then
each manipulator reading after its adjustments) and the reactor crystal's visible properties, and asks for
the reactor's resonance frequency. The answer is the true frequency; a reply is scored by the lab's own
success rule (``|prediction − frequency| < tolerance``, the release's 5 Hz). The records are those the
reference agent solved the episode from when it did (``metadata["reference_solved"]``; under a strong hidden
variable it often cannot): the knobs' measured difficulty is that agent's failure rate (docs/generators.md).

The reply's prediction is the number its ``Prediction: <number>`` lines state, else the whole reply when it
is one number; a reply that states different predictions, or anything but a plain number, earns nothing.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from statistics import fmean

from causal_datasets.causalab.episode import run_episode
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.generator import generate_episode
from causal_datasets.causalab.properties import TARGET
from causal_datasets.causalab.regimes import REGIMES, with_setting
from causal_datasets.causalab.suites import HiddenSpec, SuiteSpec
from causal_datasets.gym.base import Difficulty, Entry, Generator, Knob
from causal_datasets.llm.structured import strip_thinking
from causal_datasets.reward_guards import statement_problem

#: the regimes, easiest first (docs/generators.md measures them)
REGIME_ORDER = ("observation-only", "mixed", "intervention-only")
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_PREDICTION = re.compile(r"^\W*prediction\W*:\s*(\S.*?)\s*$", re.IGNORECASE | re.MULTILINE)
_PLAIN_NUMBER = re.compile(rf"\s*({_NUMBER})\s*\.?\s*")

SYSTEM = f"""You are a scientist in a crystal laboratory. The properties of a quantum crystal are linked by a hidden
causal mechanism (a directed acyclic graph with structural equations) that is the same for every crystal; each
crystal has its own base values, except the resonance frequency ({TARGET}), whose base is shared. You are given
measurement records of crystals and the visible properties of the reactor crystal, whose frequency is hidden.
Predict the reactor's resonance frequency; a prediction within the tolerance of the true value succeeds.
Reason briefly, then end your reply with one final line:
Prediction: <number>"""


def _suite(difficulty: Difficulty) -> SuiteSpec:
    nodes, hidden = difficulty["nodes"], difficulty["hidden"]
    spec = HiddenSpec(1, float(hidden), includes_target=True) if hidden else None
    return SuiteSpec(f"gym_{nodes}nodes_h{hidden:g}", nodes, hidden=spec)


def _entry(rng: random.Random, difficulty: Difficulty) -> Entry:
    episode = generate_episode(_suite(difficulty), 0, rng.randrange(2**31))
    episode = with_setting(episode, REGIMES[difficulty["regime"]])
    result = run_episode(episode, ExperimenterAgent())
    reactor = {p.name: p.value for p in episode.reactor_properties}
    lines = [f"- record {n}: {json.dumps(r['props'])}, {TARGET}={r['freq']}" for n, r in enumerate(result.data, 1)]
    user = "\n".join(
        [
            f"Properties: {', '.join(n for n in episode.nodes if n != TARGET)} and {TARGET}.",
            "Measurement records:",
            *lines,
            f"Reactor crystal ({TARGET} hidden): {json.dumps(reactor)}",
            f"Tolerance: {episode.tolerance:g} Hz. What is the reactor's {TARGET}?",
        ]
    )
    return {
        "question": f"{SYSTEM}\n\n{user}",
        "answer": f"{episode.reactor_frequency:.4f}",
        "metadata": {
            "prompt": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
            "frequency": episode.reactor_frequency,
            "tolerance": episode.tolerance,
            "records": len(result.data),
            "reference_solved": result.success,
            "agent_steps": len(result.steps),
        },
    }


def prediction(reply: str) -> float | None:
    """The reply's prediction: its ``Prediction:`` lines when they all state the same plain number (at most
    three times), else the whole reply when it is one plain number; None otherwise (several predictions, an
    expression, no number)."""
    visible = strip_thinking(reply)
    stated = [match.group(1) for match in _PREDICTION.finditer(visible)] or [visible]
    values = []
    for text in stated:
        number = _PLAIN_NUMBER.fullmatch(text)
        if number is None:
            return None
        values.append(float(number.group(1)))
    return None if statement_problem(values) else values[-1]


def _score(answer: str, entry: Entry) -> float:
    value = prediction(answer)
    meta = entry["metadata"]
    return float(value is not None and abs(value - meta["frequency"]) < meta["tolerance"])


def _measure(entries: Sequence[Entry]) -> dict[str, float]:
    return {
        "reference_failure": fmean(not e["metadata"]["reference_solved"] for e in entries),
        "agent_steps": fmean(e["metadata"]["agent_steps"] for e in entries),
        "records": fmean(e["metadata"]["records"] for e in entries),
    }


CAUSALAB = Generator(
    name="causalab",
    description="predict the reactor crystal's resonance frequency from an experiment's records (within 5 Hz)",
    knobs={
        "nodes": Knob(4, (3, 4, 5, 6, 7), "nodes of the hidden SCM, the frequency included"),
        "hidden": Knob(5.0, (0.0, 0.5, 5.0, 20.0, 50.0), "shift (± Hz) of a hidden variable on the frequency; 0: none"),
        "regime": Knob("intervention-only", REGIME_ORDER, "the paper's interaction regime the reference agent played"),
    },
    build=_entry,
    score=_score,
    measure=_measure,
)
