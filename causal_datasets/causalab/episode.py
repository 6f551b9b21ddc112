"""The episode loop every agent goes through — reference agents and chat models alike.

The loop shows the agent a :class:`LabView` (only what a model may see), takes one DSL step,
applies its action to the :class:`~causal_datasets.causalab.lab.Lab` (``intervene``, ``submit`` or
``stop``) and repeats until the reactor is activated, the submissions are used up, the agent
stops, or the turn cap is reached. Every step is kept with its raw text and any parse problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from causal_datasets.causalab.dsl import DslStep, Hypothesis
from causal_datasets.causalab.lab import Lab, Reading, Refusal, SubmissionResult
from causal_datasets.causalab.metrics import score_hypothesis
from causal_datasets.causalab.properties import TARGET
from causal_datasets.causalab.records import CausaLabEpisode, Measurement

Outcome = Literal["solved", "wrong_answer", "no_submission", "invalid_format", "llm_error", "agent_error"]
EXTRA_TURNS = 8
MAX_CONSECUTIVE_INVALID = 3


class AgentFailure(RuntimeError):
    """The agent could not produce a step for a reason outside its control (e.g. the model endpoint)."""


@dataclass(frozen=True)
class Event:
    """What happened after the agent's last step, as the agent is told."""

    #: ``upstream``: a step of an authors' run, replayed (:mod:`causal_datasets.causalab.upstream_run`)
    kind: Literal["start", "reading", "refused", "submission", "stopped", "invalid_step", "upstream"]
    message: str
    values: dict[str, float] | None = None


@dataclass
class LabView:
    """Everything an agent may observe: the public task, prior records, the manipulator's readings
    so far, the reactor crystal's visible properties, counters, and the latest event."""

    episode_id: str
    family: str
    properties: list[str]
    controllable: list[str]
    frequency_can_be_parent: bool
    budget: int
    tolerance: float
    max_submissions: int
    prior_records: list[dict[str, Any]]
    reactor_properties: dict[str, float]
    readings: list[dict[str, Any]] = field(default_factory=list)
    submissions: list[dict[str, Any]] = field(default_factory=list)
    remaining: int = 0
    event: Event | None = None

    @classmethod
    def open(cls, lab: Lab) -> LabView:
        episode = lab.episode
        records = [
            {"id": m.id, "props": {p.name: p.value for p in m.properties}, "freq": m.frequency}
            | ({"intervention": m.intervention.model_dump()} if m.intervention else {})
            for m in episode.prior_records
        ]
        initial = lab.manipulator_values()
        return cls(
            episode_id=episode.id,
            family=episode.family,
            properties=[n for n in episode.nodes if n != TARGET],
            controllable=list(episode.controllable),
            frequency_can_be_parent=episode.frequency_can_be_parent,
            budget=episode.budget,
            tolerance=episode.tolerance,
            max_submissions=episode.max_submissions,
            prior_records=records,
            reactor_properties=lab.reactor_properties(),
            readings=[{"intervention": None, "values": initial}],
            remaining=lab.remaining,
            event=Event("start", "episode started", initial),
        )


@dataclass
class AgentStep:
    """One agent turn: the parsed step (None when unreadable), the raw text and any problem."""

    step: DslStep | None
    raw: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)


class Agent(Protocol):
    @property
    def name(self) -> str: ...

    def act(self, view: LabView) -> AgentStep: ...


@dataclass
class EpisodeResult:
    episode_id: str
    outcome: Outcome
    success: bool
    steps: list[dict[str, Any]]
    final_hypothesis: Hypothesis
    predictions: list[float]
    interventions_used: int
    invalid_steps: int
    refusals: dict[str, int]
    #: every record the agent saw: the prior records, then each manipulator reading ({props, freq})
    data: list[dict[str, Any]] = field(default_factory=list)
    #: replies the agent had to ask again because they could not be read (see ``AgentStep.info``)
    reasks: int = 0
    error: str | None = None
    #: whether any step with a hypothesis was read; without one the episode scores the worst
    hypothesis_stated: bool = True

    @classmethod
    def ended(
        cls,
        episode: CausaLabEpisode,
        steps: list[dict[str, Any]],
        hypothesis: Hypothesis | None,
        *,
        solved: bool,
        predictions: list[float],
        interventions_used: int,
        invalid_steps: int,
        readings: Sequence[dict[str, float]],
        refusals: dict[str, int] | None = None,
        outcome: Outcome | None = None,
        error: str | None = None,
    ) -> EpisodeResult:
        """An episode that ended after ``steps`` (their logs, :func:`step_log`), with ``hypothesis`` the last
        one read (None when none was). Its outcome is the environment's (solved, a wrong answer, no
        submission) unless the loop ended it otherwise (``outcome``, with its ``error``); its data are the
        episode's prior records, then the manipulator's ``readings``; its re-asks are counted off the steps."""
        return cls(
            episode_id=episode.id,
            outcome=outcome or ("solved" if solved else "wrong_answer" if predictions else "no_submission"),
            success=solved,
            steps=steps,
            final_hypothesis=hypothesis if hypothesis is not None else Hypothesis(),
            predictions=predictions,
            interventions_used=interventions_used,
            invalid_steps=invalid_steps,
            refusals=refusals or {},
            data=[_prior_record(m) for m in episode.prior_records] + [data_record(values) for values in readings],
            reasks=sum(int(s.get("info", {}).get("reasks", 0)) for s in steps),
            error=error,
            hypothesis_stated=hypothesis is not None,
        )

    def scores(self, episode: CausaLabEpisode) -> dict[str, Any]:
        return score_hypothesis(self.final_hypothesis if self.hypothesis_stated else None, episode).to_dict()


def run_episode(episode: CausaLabEpisode, agent: Agent, *, max_turns: int | None = None) -> EpisodeResult:
    """Play one episode with ``agent``; never raises for bad agent output. An :class:`AgentFailure`
    ends the episode as ``llm_error``, any other agent exception as ``agent_error``; the steps so far
    are kept either way."""
    session = LabSession(episode, max_turns=max_turns)
    while not session.done:
        try:
            turn = agent.act(session.view)
        except AgentFailure as failure:
            session.fail("llm_error", str(failure))
        except Exception as failure:  # an agent's own bug ends only this episode, steps kept
            session.fail("agent_error", f"{type(failure).__name__}: {failure}")
        else:
            session.apply(turn)
    return session.result()


class LabSession:
    """One episode in play, one step at a time: the lab, what the agent sees (``view``), the steps so far.

    It ends when the reactor is activated, the submissions are used up, the agent stops, three readable-less
    steps come in a row (``invalid_format``), :meth:`fail` is called, or ``max_turns`` steps were taken
    (default: budget + submissions + :data:`EXTRA_TURNS`). The environment of the RL integrations
    (:class:`causal_datasets.causalab.env.CausaLabEnv`) is this session with the chat protocol on top."""

    def __init__(self, episode: CausaLabEpisode, *, max_turns: int | None = None):
        self.episode = episode
        self.lab = Lab(episode)
        self.view = LabView.open(self.lab)
        self.max_turns = max_turns or episode.budget + episode.max_submissions + EXTRA_TURNS
        self.steps: list[dict[str, Any]] = []
        self.hypothesis: Hypothesis | None = None
        self.invalid, self.consecutive_invalid = 0, 0
        self.refusals: dict[str, int] = {}
        self.outcome: Outcome | None = None
        self.error: str | None = None
        self.ended = False

    @property
    def done(self) -> bool:
        return self.ended or len(self.steps) >= self.max_turns

    def apply(self, turn: AgentStep) -> Event:
        """Carry out one step of the agent's and tell the view what happened."""
        event = _apply(self.lab, turn)
        if turn.step is not None and turn.error is None:
            self.hypothesis = turn.step.hypothesis
        if event.kind in ("invalid_step", "refused"):
            self.invalid += 1
            self.consecutive_invalid += 1
            if event.kind == "refused":
                reason = event.message.split(":", 1)[0]
                self.refusals[reason] = self.refusals.get(reason, 0) + 1
        else:
            self.consecutive_invalid = 0
        self.steps.append(step_log(turn, event))
        _update(self.view, self.lab, turn, event)
        if self.lab.finished or event.kind == "stopped":
            self.ended = True
        elif self.consecutive_invalid >= MAX_CONSECUTIVE_INVALID and turn.step is None:
            self.outcome, self.ended = "invalid_format", True
        return event

    def fail(self, outcome: Outcome, error: str) -> None:
        """End the episode for a reason outside the lab (the agent could not produce a step)."""
        self.outcome, self.error, self.ended = outcome, error, True

    def result(self) -> EpisodeResult:
        """The episode as it stands (an unfinished one has no submission, or a wrong one)."""
        return EpisodeResult.ended(
            self.episode,
            self.steps,
            self.hypothesis,
            solved=self.lab.solved,
            predictions=[s.prediction for s in self.lab.submissions],
            interventions_used=self.lab.uses,
            invalid_steps=self.invalid,
            readings=[r["values"] for r in self.view.readings],
            refusals=self.refusals,
            outcome=self.outcome,
            error=self.error,
        )


def data_record(values: dict[str, float]) -> dict[str, Any]:
    """A measured crystal (every property and the frequency) as ``{props, freq}``."""
    return {"props": {k: v for k, v in values.items() if k != TARGET}, "freq": values[TARGET]}


def _prior_record(measurement: Measurement) -> dict[str, Any]:
    return data_record({p.name: p.value for p in measurement.properties} | {TARGET: measurement.frequency})


def _apply(lab: Lab, turn: AgentStep) -> Event:
    step = turn.step
    if step is None or turn.error:
        return Event("invalid_step", f"unreadable step: {turn.error or 'no step'}")
    result: Reading | Refusal | SubmissionResult
    if step.action == "intervene":
        result = lab.intervene(step.experiment.target_prop or "", step.experiment.target_value)
    elif step.action == "submit":
        result = lab.submit(step.prediction)
    elif step.action == "stop":
        return Event("stopped", "the agent ended the episode")
    else:
        return Event("invalid_step", f"unknown action {step.action!r}; use intervene or submit")
    if isinstance(result, Refusal):
        return Event("refused", f"{result.reason}: {result.message}")
    if isinstance(result, Reading):
        return Event("reading", f"adjustment {result.uses}/{result.budget} done", result.values)
    assert isinstance(result, SubmissionResult)
    verdict = "the reactor activated" if result.success else "the reactor did not activate"
    return Event("submission", f"submission {result.submissions}/{result.max_submissions}: {verdict}")


def _update(view: LabView, lab: Lab, turn: AgentStep, event: Event) -> None:
    view.event = event
    view.remaining = lab.remaining
    if event.kind == "reading" and turn.step is not None:
        experiment = turn.step.experiment
        view.readings.append(
            {
                "intervention": {"target_prop": experiment.target_prop, "target_value": experiment.target_value},
                "values": event.values,
            }
        )
    if event.kind == "submission":
        view.submissions = [{"prediction": s.prediction, "success": s.success} for s in lab.submissions]


def step_log(turn: AgentStep, event: Event) -> dict[str, Any]:
    """A step as the episode keeps it: the raw reply, the parsed step, any parse problem, what happened."""
    return {
        "raw": turn.raw,
        "step": turn.step.model_dump() if turn.step is not None else None,
        "parse_error": turn.error,
        "warnings": turn.warnings,
        "event": {"kind": event.kind, "message": event.message, "values": event.values},
        **({"info": turn.info} if turn.info else {}),
    }
