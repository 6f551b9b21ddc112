"""Read an upstream episode folder (an authors' run, e.g. their released gpt-5-mini sample): its
graph, the prior observations its task text showed, the manipulator readings shown in the dialogs,
the interventions that produced them, the reactor crystal, the frequencies submitted, whether the
reactor activated, and the DSL steps — and replay it as an :class:`EpisodeResult` our metrics score.

The tracking file is a stream of pretty-printed JSON objects (one per step, each holding the
dialog the environment showed and the agent's action); ``raw_io.jsonl`` holds every model reply;
the data file the task text and the final scorecard. A folder that is not such a run is one
:class:`UpstreamRunError` naming it.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_datasets.builder import reading_source
from causal_datasets.causalab.crystals import crystal_reading
from causal_datasets.causalab.dsl import Hypothesis, parse_step, read_json_stream
from causal_datasets.causalab.episode import AgentStep, EpisodeResult, Event, step_log
from causal_datasets.causalab.mechanism import Mechanism
from causal_datasets.causalab.properties import TARGET, normalize_name
from causal_datasets.causalab.records import CausaLabEpisode, PropertyValue
from causal_datasets.causalab.regimes import Setting, with_setting
from causal_datasets.causalab.suites import SUITE_SPECS, HiddenSpec
from causal_datasets.causalab.upstream import SUITES, import_config
from causal_datasets.errors import SourceFormatError

CONFIG_FILE = "graph_config.json"
TRACKING_FILE = "Reactor_Lab_Causal_Causal_1_tracking_simple.jsonl"
RAW_IO_FILE = "raw_io.jsonl"
DATA_FILE = "Reactor_Lab_Causal_Causal_1_data.json"
_LINE = re.compile(r"^\s*-?\s*(?P<name>[A-Za-z][A-Za-z ()]*?):\s*(?P<value>-?\d+(?:\.\d+)?)\s*$")
_CRYSTAL_FREQ = re.compile(r"Crystal freq: (?P<value>-?\d+(?:\.\d+)?) Hz")
_OBSERVATION = re.compile(r"^- Observation (?P<index>\d+): (?P<values>\{[^{}\n]{0,2000}\})\s*$", re.MULTILINE)
_SUBMISSION = re.compile(
    r"Frequency set to (?P<value>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?) Hz\.\s*Usage: (?P<count>\d+)/\d+ submissions"
)
_USES = re.compile(r"Uses: \d+/(?P<budget>\d+)")
_COMPLETION = "Reactor Activated (COMPLETION)"


class UpstreamRunError(SourceFormatError):
    """A folder is not a readable upstream run; the message names it and what is missing."""


@dataclass(frozen=True)
class UpstreamRun:
    config: dict[str, Any]
    readings: list[dict[str, float]]  # manipulator readings, the first before any intervention
    interventions: list[tuple[str, float]]  # (property, value) that produced readings[1:]
    reactor: dict[str, float]  # visible reactor properties that are graph nodes
    reactor_frequency: float  # as stated by the final scorecard
    tracking: list[dict[str, Any]]
    replies: list[str]
    observations: list[dict[str, float]]  # the prior observation records of the task text
    budget: int  # interventions the manipulator allowed (its "Uses: k/N" counter, else the config's)
    submissions: list[float]  # reactor frequencies the agent set, in order
    activated: bool  # the final scorecard's completion flag

    @property
    def suite(self) -> str:
        """The released suite the configuration belongs to (see :func:`suite_of`)."""
        return suite_of(self.config)

    def episode(self, suite: str | None = None) -> CausaLabEpisode:
        """The run's configuration as an episode with the run's own crystals (the manipulator's
        bases read off its first reading, the reactor's off the reactor dialog), its number of
        prior observations and its budget."""
        episode = with_setting(
            import_config(self.config, suite or self.suite),
            Setting(prior_observations=len(self.observations), budget=self.budget),
        )
        mechanism = Mechanism.from_episode(episode)
        manipulator = crystal_reading(mechanism, "manipulator", self.readings[0])
        reactor = crystal_reading(mechanism, "reactor", self.reactor)
        values = mechanism.evaluate({b.name: b.value for b in reactor.bases})
        return episode.model_copy(
            update={
                "manipulator": manipulator,
                "reactor": reactor,
                "reactor_properties": [PropertyValue(name=n, value=v) for n, v in values.items() if n != TARGET],
                "reactor_frequency": values[TARGET],
            }
        )

    def result(self, episode: CausaLabEpisode) -> EpisodeResult:
        """The run as the episode loop would have recorded it: one step per model reply (parsed with
        the same tolerant parser), the final readable hypothesis, the submissions and the outcome the
        environment gave, the interventions used and every record the agent saw."""
        steps: list[dict[str, Any]] = []
        hypothesis: Hypothesis | None = None
        unreadable = 0
        messages = [item.get("lastActionMessage", "") for item in self.tracking]
        for index, reply in enumerate(self.replies):
            parsed = parse_step(reply)
            unreadable += parsed.step is None
            if parsed.step is not None:
                hypothesis = parsed.step.hypothesis
            message = messages[index] if index < len(messages) else ""
            turn = AgentStep(parsed.step, reply, parsed.error, parsed.warnings)
            steps.append(step_log(turn, Event("upstream", message.splitlines()[0] if message else "")))
        return EpisodeResult.ended(
            episode,
            steps,
            hypothesis,
            solved=self.activated,
            predictions=self.submissions,
            interventions_used=len(self.interventions),
            invalid_steps=unreadable,
            readings=[values for values in self.readings if TARGET in values],
        )


def suite_of(config: dict[str, Any]) -> str:
    """The first released suite whose family fits the configuration: size, equation family, hidden
    disturbance (count, magnitude, on the target or not), frequency as a parent, Golden trace.
    Graph ids repeat across suites (``4nodes_0`` is in eleven), so the id cannot tell."""
    hidden = config.get("hidden_variable") or None
    spec_hidden = None
    if hidden:
        affected = list(hidden.get("affected_nodes") or [])
        magnitude = max(abs(float(v)) for v in hidden.get("value_space") or [0])
        spec_hidden = HiddenSpec(len(affected), magnitude, TARGET in affected)
    wanted = (
        len(config["nodes"]),
        "quadratic" if config.get("equation_family") == "quadratic" else "linear",
        spec_hidden,
        bool(config.get("frequency_can_be_parent")),
        bool(config.get("bootstrap_past_data")),
    )
    for name in SUITES:
        spec = SUITE_SPECS[name]
        if (spec.nodes, spec.family, spec.hidden, spec.frequency_can_be_parent, spec.golden) == wanted:
            return name
    return f"{len(config['nodes'])}nodes"


def read_upstream_run(folder: Path) -> UpstreamRun:
    """The run in ``folder``; :class:`UpstreamRunError` naming the folder when it is not one."""
    folder = Path(folder)
    missing = [name for name in (CONFIG_FILE, TRACKING_FILE, RAW_IO_FILE, DATA_FILE) if not (folder / name).is_file()]
    if missing:
        raise UpstreamRunError(f"{folder} is not an upstream CausaLab run folder: it has no {', '.join(missing)}")
    try:
        with reading_source(folder):
            return _read(folder)
    except SourceFormatError as error:
        raise UpstreamRunError(str(error)) from error


def parse_observations(task_text: str) -> list[dict[str, float]]:
    """The ``- Observation <i>: {...}`` records of an upstream task text, in order (each a Python
    dict literal of numbers; anything else in one is an error)."""
    records = []
    for match in _OBSERVATION.finditer(task_text):
        try:
            values = ast.literal_eval(match["values"])
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as error:
            raise ValueError(
                f"observation {match['index']} is not a Python dict literal: {type(error).__name__}"
            ) from None
        numbers = isinstance(values, dict) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values.values()
        )
        if not numbers:
            raise ValueError(f"observation {match['index']} is not a mapping of numbers: {match['values'][:80]}")
        records.append({normalize_name(str(k)): float(v) for k, v in values.items()})
    return records


def parse_submissions(messages: list[str]) -> list[float]:
    """The reactor frequencies set, in order: each dialog's ``Frequency set to X Hz. Usage: k/N``,
    counted once per ``k`` (the environment repeats its last message)."""
    by_count: dict[int, float] = {}
    for message in messages:
        for match in _SUBMISSION.finditer(message):
            if math.isfinite(value := float(match["value"])):
                by_count.setdefault(int(match["count"]), value)
    return [by_count[k] for k in sorted(by_count)]


def _read(folder: Path) -> UpstreamRun:
    config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    tracking = read_json_stream((folder / TRACKING_FILE).read_text(encoding="utf-8"))
    replies = [item["raw_output"] for item in read_json_stream((folder / RAW_IO_FILE).read_text(encoding="utf-8"))]
    readings: list[dict[str, float]] = []
    interventions: list[tuple[str, float]] = []
    reactor: dict[str, float] = {}
    chosen: str | None = None
    shown_options: dict[str, str] = {}  # the menu the agent saw when it chose (previous step's dialog)
    for item in tracking:
        dialog = item.get("dialog_box") or {}
        text = item.get("lastActionMessage", "")
        action = item.get("action") or {}
        option = action.get("chosen_dialog_option_int")
        label = shown_options.get(str(option), "") if option is not None else ""
        if label.startswith("Adjust "):
            chosen = normalize_name(label.removeprefix("Adjust "))
        if "Crystal Analysis:" in text and "Select an option" in text:
            values = _values(text.split("Crystal Analysis:", 1)[1].split("Uses:", 1)[0], config)
            if not readings:
                readings.append(values)
            elif "value" in action and chosen is not None:
                readings.append(values)
                interventions.append((chosen, float(action["value"])))
                chosen = None
        if "Crystal properties (directly shown):" in text:
            reactor = _values(text.split("Crystal properties (directly shown):", 1)[1].split("Current", 1)[0], config)
        shown_options = dialog.get("dialogOptions") or {}
    data = json.loads((folder / DATA_FILE).read_text(encoding="utf-8"))
    scorecard = data["metadata"]["final_scorecard"][0]
    notes = " ".join(card["associatedNotes"] for card in scorecard["scoreCard"])
    match = _CRYSTAL_FREQ.search(notes)
    if match is None:
        raise UpstreamRunError(f"{folder}: the scorecard does not state the crystal frequency")
    if not reactor:
        raise UpstreamRunError(f"{folder}: the run never showed the reactor crystal's properties")
    messages = [item.get("lastActionMessage", "") for item in tracking]
    budgets = {int(m["budget"]) for message in messages for m in _USES.finditer(message)}
    return UpstreamRun(
        config=config,
        readings=readings,
        interventions=interventions,
        reactor=reactor,
        reactor_frequency=float(match["value"]),
        tracking=tracking,
        replies=replies,
        observations=parse_observations(data["task_description"]),
        budget=budgets.pop() if len(budgets) == 1 else int(config["budget"]),
        submissions=parse_submissions(messages),
        activated=any(card["name"] == _COMPLETION and card["completed"] for card in scorecard["scoreCard"]),
    )


def _values(block: str, config: dict[str, Any]) -> dict[str, float]:
    values = {}
    for line in block.splitlines():
        match = _LINE.match(line)
        if match and (name := normalize_name(match["name"])) in config["nodes"]:
            values[name] = float(match["value"])
    return values
