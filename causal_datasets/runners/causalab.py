"""``causal-datasets eval causalab``: CausaLab episodes played by a chat model or a reference agent.

Agents and models go through the same episode loop; the finished episode (steps, raw replies,
parsed hypotheses, submissions, outcome, every record the agent saw) is the item's generation, and
scoring it gives the per-step and final mechanism scores and the consistency of the final
hypothesis with the agent's own data. ``--regime`` / ``--prior-observations`` / ``--budget`` set
the interaction regime (:mod:`causal_datasets.causalab.regimes`). An episode the model server could
not finish (``llm_error``) is a failed item, played again by ``--resume``. The authors' own run
folders are scored as published transcripts through the same scoring (:func:`score_upstream_runs`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from statistics import fmean
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

from causal_datasets.causalab.dsl import Hypothesis
from causal_datasets.causalab.episode import Agent, EpisodeResult, run_episode
from causal_datasets.causalab.episode import Outcome as EpisodeOutcome
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.llm_agent import ChatAgent
from causal_datasets.causalab.metrics import (
    SCORE_FIELDS,
    Consistency,
    MechanismScores,
    consistency,
    score_hypothesis,
    score_trajectory,
)
from causal_datasets.causalab.random_agent import RandomAgent
from causal_datasets.causalab.regimes import (
    REGIMES,
    RegimeName,
    ScalingFamily,
    Setting,
    regime_of,
    scaling_setting,
    with_setting,
)
from causal_datasets.causalab.suites import SUITE_SPECS
from causal_datasets.causalab.upstream import SUITES
from causal_datasets.causalab.upstream_run import (
    CONFIG_FILE,
    TRACKING_FILE,
    UpstreamRunError,
    read_upstream_run,
)
from causal_datasets.errors import RunConfigurationError
from causal_datasets.records.causalab import CausaLabEpisode
from causal_datasets.registry import get_builder
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.records import BenchmarkMetrics, DatasetRef, ModelCall, RunSummary, Slices
from causal_datasets.runners.rescore import score_published
from causal_datasets.runners.task import (
    CallFailed,
    Estimates,
    Item,
    RoleSpec,
    RunSettings,
    Scored,
    Task,
    TaskContext,
    Transcript,
)
from causal_datasets.uncertainty import Mean, Statistic, ratio
from causal_datasets.views import MappingBars, ResultsTrajectories, RunCurves, RunScatter, SlicePlot, View

AGENTS = ("experimenter", "random")
#: bounds of the regime options (a run of 1000 records or interventions per episode is a typo)
MAX_PRIOR_OBSERVATIONS = MAX_BUDGET = 1000
#: the per-step scores the trajectory slice averages
TRAJECTORY_FIELDS = ("edge_f1", "shd", "freq_edge_f1", "coefficient_f1", "root_f1")


class CausaLabOptions(BaseModel):
    agent_seed: int = Field(default=0, ge=0, description="seed of the random agent")
    verify: bool = Field(
        default=False, description="ask the model to check its hypothesis against past data before submitting"
    )
    max_turns: int | None = Field(
        default=None,
        ge=1,
        description="steps per episode before it ends unsubmitted (default: budget + submissions + 8)",
    )
    history: int | None = Field(
        default=None, ge=0, description="send only the last N exchanges after the opening messages (default: all)"
    )
    reask: int = Field(
        default=1, ge=0, le=5, description="times a reply with no readable step is asked again (each counted)"
    )
    regime: RegimeName | None = Field(
        default=None,
        description="preset interaction regime: observation-only (12 records, no intervention), mixed (the release's 2 "
        "records and budget), intervention-only (no record, the release's budget); --prior-observations and --budget "
        "override it",
    )
    prior_observations: int | None = Field(
        default=None,
        ge=0,
        le=MAX_PRIOR_OBSERVATIONS,
        description="prior observation records each episode starts with (default: the dataset's 2)",
    )
    budget: int | None = Field(
        default=None,
        ge=0,
        le=MAX_BUDGET,
        description="interventions allowed per episode (default: the dataset's 4(n-1))",
    )

    def setting(self) -> Setting:
        """The regime's counts, with the explicit ones taking precedence."""
        preset = REGIMES[self.regime] if self.regime else Setting()
        return Setting(
            prior_observations=(
                preset.prior_observations if self.prior_observations is None else self.prior_observations
            ),
            budget=self.budget if self.budget is not None else preset.budget,
        )


class CausaLabMetrics(BenchmarkMetrics):
    benchmark: Literal["causalab"] = "causalab"
    count: int = Field(title="episodes")
    regime: str | None = Field(
        default=None,
        title="regime",
        description=("observation-only (no intervention), intervention-only (no prior record), mixed, or several"),
    )
    prior_observations: float | None = Field(default=None, title="prior observations", description="mean per episode")
    budget: float | None = Field(default=None, title="intervention budget", description="mean per episode")
    task_accuracy: float | None = Field(default=None, title="task accuracy")
    edge_precision: float | None = Field(default=None, title="edge precision")
    edge_recall: float | None = Field(default=None, title="edge recall")
    edge_f1: float | None = Field(default=None, title="edge F1")
    shd: float | None = Field(default=None, title="SHD")
    freq_edge_f1: float | None = Field(default=None, title="frequency-edge F1")
    coefficient_f1: float | None = Field(default=None, title="coefficient F1")
    root_f1: float | None = Field(default=None, title="root-node F1")
    formula_hit: float | None = Field(default=None, title="formula hit")
    budget_used: float | None = Field(default=None, title="budget used", description="mean share of the budget spent")
    invalid_steps: float | None = Field(default=None, title="invalid steps per episode")
    reasks: float | None = Field(
        default=None, title="re-asks per episode", description="unreadable replies asked again"
    )
    consistent: float | None = Field(
        default=None,
        title="consistent with own data",
        description=(
            "share of episodes whose final frequency equation is within the tolerance of every record the agent saw"
        ),
    )
    outcomes: dict[str, int] = Field(default_factory=dict, title="outcomes")
    budget_used_by_success: dict[str, float | None] | None = Field(default=None, title="budget used by success")
    consistent_by_success: dict[str, float | None] | None = Field(
        default=None, title="consistent with own data by success"
    )


class CausaLabGeneration(BaseModel):
    """A finished episode as the loop recorded it, before any scoring."""

    agent: str = Field(description="'model:<name>', 'agent:<name>' or 'published'")
    outcome: EpisodeOutcome
    success: bool = Field(description="the reactor activated")
    error: str | None
    predictions: list[float] = Field(description="the reactor frequencies submitted, in order")
    interventions_used: int
    invalid_steps: int
    reasks: int = Field(description="unreadable replies asked again")
    refusals: dict[str, int]
    final_hypothesis: Hypothesis
    data: list[dict[str, Any]] = Field(description="every record the agent saw: prior records, then each reading")
    steps: list[dict[str, Any]] = Field(description="each step: raw reply, parsed step, parse error, warnings, event")

    @classmethod
    def of(cls, result: EpisodeResult, agent: str) -> CausaLabGeneration:
        return cls(
            agent=agent,
            outcome=result.outcome,
            success=result.success,
            error=result.error,
            predictions=result.predictions,
            interventions_used=result.interventions_used,
            invalid_steps=result.invalid_steps,
            reasks=result.reasks,
            refusals=result.refusals,
            final_hypothesis=result.final_hypothesis,
            data=result.data,
            steps=result.steps,
        )


class CausaLabScores(BaseModel):
    """The scores of a finished episode: the episode's facts, the final hypothesis against the true
    mechanism and against the agent's own data, and every hypothesis stated along the way."""

    suite: str
    num_nodes: int
    origin: str
    regime: str
    prior_observations: int
    budget: int
    reactor_frequency: float
    success: bool
    interventions_used: int
    invalid_steps: int
    reasks: int
    mechanism: MechanismScores = Field(description="the final hypothesis against the true mechanism")
    consistency: Consistency = Field(description="the final hypothesis against every record the agent saw")
    trajectory: list[MechanismScores] = Field(description="the hypothesis of each readable step, scored")


def items(context: TaskContext) -> list[Item]:
    setting = context.options.setting()
    return [
        Item(row.id, config, with_setting(row, setting))
        for config in context.configs
        for row in context.rows(config, CausaLabEpisode)
    ]


def solve(item: Item, context: TaskContext) -> CausaLabGeneration:
    episode: CausaLabEpisode = item.row
    options: CausaLabOptions = context.options
    agent: Agent
    if context.settings.agent == "experimenter":
        agent, name = ExperimenterAgent(), "agent:experimenter"
    elif context.settings.agent == "random":
        agent, name = RandomAgent(seed=options.agent_seed), "agent:random"
    else:
        client = context.clients["model"]
        agent = ChatAgent(client, episode, verify=options.verify, history=options.history, reask=options.reask)
        name = f"model:{client.config.model}"
    result = run_episode(episode, agent, max_turns=options.max_turns)
    if result.outcome == "llm_error":
        raise CallFailed(result.error)
    return CausaLabGeneration.of(result, name)


def score(item: Item, transcript: Transcript[CausaLabGeneration], context: TaskContext) -> CausaLabScores:
    episode: CausaLabEpisode = item.row
    played = transcript.generation
    hypotheses = [Hypothesis.model_validate(s["step"]["hypothesis"]) for s in played.steps if s["step"] is not None]
    return CausaLabScores(
        suite=episode.suite,
        num_nodes=len(episode.nodes),
        origin=episode.origin,
        regime=regime_of(len(episode.observation_crystals), episode.budget),
        prior_observations=len(episode.observation_crystals),
        budget=episode.budget,
        reactor_frequency=episode.reactor_frequency,
        success=played.success,
        interventions_used=played.interventions_used,
        invalid_steps=played.invalid_steps,
        reasks=played.reasks,
        mechanism=score_hypothesis(played.final_hypothesis, episode),
        consistency=consistency(played.final_hypothesis, played.data, episode.tolerance),
        trajectory=score_trajectory(hypotheses, episode),
    )


Episode = Scored[CausaLabGeneration, CausaLabScores]


def summarize(results: list[Episode], context: TaskContext | None = None) -> tuple[CausaLabMetrics, Slices]:
    """Aggregate scores, outcome counts, budget use and consistency (overall and split by success),
    the regime; overall and per number of nodes and per suite."""
    metrics: dict[str, Any] = aggregate(results)
    counts = Counter(r.generation.outcome for r in results)
    metrics["outcomes"] = {outcome: counts[outcome] for outcome in get_args(EpisodeOutcome)}  # zeros shown, not missing
    if results:
        regimes = {r.scores.regime for r in results}
        metrics |= {
            "regime": regimes.pop() if len(regimes) == 1 else "several",
            "prior_observations": fmean(r.scores.prior_observations for r in results),
            "budget": fmean(r.scores.budget for r in results),
            "budget_used": _budget_used(results),
            "invalid_steps": fmean(r.scores.invalid_steps for r in results),
            "reasks": fmean(r.scores.reasks for r in results),
            "consistent": fmean(float(r.scores.consistency.consistent) for r in results),
        }
        by_success = {
            "solved": [r for r in results if r.scores.success],
            "failed": [r for r in results if not r.scores.success],
        }
        metrics["budget_used_by_success"] = {key: _budget_used(group) for key, group in by_success.items()}
        metrics["consistent_by_success"] = {
            key: fmean(float(r.scores.consistency.consistent) for r in group) if group else None
            for key, group in by_success.items()
        }
    slices = {
        "by_num_nodes": _by(results, lambda r: str(r.scores.num_nodes)),
        "by_suite": _by(results, lambda r: r.scores.suite),
        "by_step": by_step(results),
    }
    return CausaLabMetrics(**metrics), slices


def aggregate(results: Sequence[Episode]) -> dict[str, Any]:
    """``count``, and the means over episodes of ``task_accuracy`` (from ``success``) and every mechanism score."""
    if not results:
        return {"count": 0}
    means = {name: fmean(float(getattr(r.scores.mechanism, name)) for r in results) for name in SCORE_FIELDS}
    return {"count": len(results), "task_accuracy": fmean(float(r.scores.success) for r in results), **means}


def _budget_used(results: Sequence[Episode]) -> float | None:
    """Mean share of the budget an episode used (episodes with no budget have none to use)."""
    shares = [share for r in results if (share := _budget_share(r.scores)) is not None]
    return fmean(shares) if shares else None


def by_step(results: Sequence[Episode]) -> dict[str, dict[str, Any]]:
    """Mean mechanism scores of the hypotheses stated at step 1, 2, … (an episode that has ended keeps
    its last hypothesis), and how many episodes were still going at each step."""
    trajectories = [r.scores.trajectory for r in results if r.scores.trajectory]
    longest = max((len(t) for t in trajectories), default=0)
    steps: dict[str, dict[str, Any]] = {}
    for index in range(longest):
        at = [t[min(index, len(t) - 1)] for t in trajectories]
        steps[str(index + 1)] = {
            "running": sum(len(t) > index for t in trajectories),
            **{name: fmean(float(getattr(s, name)) for s in at) for name in TRAJECTORY_FIELDS},
        }
    return steps


def _by(results: Sequence[Episode], key: Any) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Episode]] = {}
    for result in results:
        groups.setdefault(key(result), []).append(result)
    return {name: aggregate(group) for name, group in sorted(groups.items())}


def item_scores(scores: CausaLabScores) -> dict[str, float]:
    """Success and the final mechanism scores: their means over episodes are the run's metrics."""
    return {
        "task_accuracy": float(scores.success),
        **{name: float(getattr(scores.mechanism, name)) for name in SCORE_FIELDS},
    }


def groups(item: Item, context: TaskContext) -> dict[str, str]:
    episode: CausaLabEpisode = item.row
    return {"by_num_nodes": str(len(episode.nodes)), "by_suite": episode.suite}


def _budget_share(scores: CausaLabScores) -> float | None:
    return scores.interventions_used / scores.budget if scores.budget else None


def _consistent(scores: CausaLabScores) -> float:
    return float(scores.consistency.consistent)


def _by_success(name: str, value: Callable[[CausaLabScores], float | None]) -> tuple[Statistic, ...]:
    """``name.solved`` and ``name.failed``: the mean of ``value`` over the solved and the failed episodes with one."""

    def counted(solved: bool) -> Callable[[CausaLabScores], float]:
        return lambda s: float(s.success == solved and value(s) is not None)

    def summed(solved: bool) -> Callable[[CausaLabScores], float]:
        return lambda s: counted(solved)(s) * (value(s) or 0.0)

    return tuple(
        ratio(f"{name}.{key}", summed(solved), counted(solved)) for key, solved in (("solved", True), ("failed", False))
    )


#: the episodes played on one released config (graph): suites of one size share it, and an upstream run
#: folder may hold several runs of it
ESTIMATES = Estimates(
    unit="graph config",
    cluster=lambda item: item.row.graph_id,
    groups=groups,
    estimators=(
        Mean("budget_used", _budget_share),
        Mean("invalid_steps", lambda s: s.invalid_steps),
        Mean("reasks", lambda s: s.reasks),
        Mean("consistent", _consistent),
        *_by_success("budget_used_by_success", _budget_share),
        *_by_success("consistent_by_success", _consistent),
    ),
)

#: where CausaLab's scaling curves read a run's count: its records without interventions, its budget otherwise
SCALING_COUNTS = (("observation-only", "prior_observations"), ("mixed", "budget"), ("intervention-only", "budget"))

VIEW = View(
    "CausaLab",
    (
        SlicePlot(
            "by_num_nodes", "task_accuracy", "CausaLab task accuracy by number of nodes", "nodes", "task accuracy"
        ),
        RunScatter(
            "task_accuracy",
            "edge_f1",
            "regime",
            ("observation-only", "mixed"),
            "CausaLab accuracy vs edge F1 by regime (Fig. 3)",
            "task accuracy",
            "all-edge F1",
        ),
        *(
            RunCurves(
                metric,
                "regime",
                SCALING_COUNTS,
                f"CausaLab scaling: {name} (App. Figs. 13-14)",
                "prior observations (observation-only) or interventions (mixed, intervention-only)",
                name,
            )
            for metric, name in (("task_accuracy", "task accuracy"), ("edge_f1", "all-edge F1"))
        ),
        SlicePlot("by_step", "edge_f1", "CausaLab edge F1 at each step, mean per run", "step", "all-edge F1"),
        ResultsTrajectories(
            "trajectory", "edge_f1", "CausaLab edge F1 along each episode (App. Fig. 8)", "step", "all-edge F1"
        ),
        MappingBars("budget_used_by_success", "CausaLab budget used, by success", "budget used"),
        MappingBars(
            "consistent_by_success", "CausaLab final hypothesis fits own data, by success", "share of episodes"
        ),
    ),
)

TASK = Task(
    name="causalab",
    help="interactive CausaLab episodes: intervene on crystals, predict the reactor frequency, state the mechanism",
    dataset="causalab",
    configs=(*SUITE_SPECS, *(f"upstream_{suite}" for suite in SUITES)),
    default_configs=("4nodes",),
    items=items,
    solve=solve,
    score=score,
    summarize=summarize,
    item_scores=item_scores,
    generation=CausaLabGeneration,
    scores=CausaLabScores,
    metrics=CausaLabMetrics,
    roles=(RoleSpec("model", "the model that runs the experiments"),),
    agents=AGENTS,
    options=CausaLabOptions,
    multiple_configs=True,
    from_files=True,
    estimates=ESTIMATES,
    view=VIEW,
)


def upstream_run_folders(paths: Sequence[Path]) -> list[Path]:
    """Every upstream run folder in ``paths``: a path that holds one, or any folder below it that does."""
    folders = []
    for path in map(Path, paths):
        if (path / CONFIG_FILE).is_file():
            folders.append(path)
        elif path.is_dir():
            folders += sorted(
                found.parent for found in path.rglob(CONFIG_FILE) if (found.parent / TRACKING_FILE).is_file()
            )
        else:
            raise UpstreamRunError(f"{path} does not exist")
    if not folders:
        raise UpstreamRunError(f"no upstream run folder (one holding {CONFIG_FILE}) in {', '.join(map(str, paths))}")
    return folders


def score_upstream_runs(paths: Sequence[Path], out: Path) -> RunSummary[CausaLabMetrics]:
    """Score the authors' run folders under ``paths`` as published transcripts — each run's replies
    the model's calls, its episode replayed as the loop would have recorded it — with the task's own
    scoring, and write them as a run folder ``out`` (solver ``published``) that ``report`` reads like
    any other. Every folder is read before anything is written."""
    folders = upstream_run_folders(paths)
    runs = [(folder, read_upstream_run(folder)) for folder in folders]
    ids: Counter[str] = Counter()
    transcripts = []
    for folder, run in runs:
        episode = run.episode()
        item_id = f"{episode.id}@{folder.name}"
        ids[item_id] += 1
        if ids[item_id] > 1:
            item_id += f"#{ids[item_id]}"
        calls = tuple(
            ModelCall(role="model", model=_upstream_model(folder) or "published", reply=reply) for reply in run.replies
        )
        generation = CausaLabGeneration.of(run.result(episode), "published")
        transcripts.append((Item(item_id, f"upstream_{run.suite}", episode), Transcript(calls, generation)))
    models = sorted({model for folder, _ in runs if (model := _upstream_model(folder))})
    dataset = DatasetRef(
        name=TASK.dataset,
        version=get_builder(TASK.dataset).version,
        seed=0,
        read_from=", ".join(map(str, paths)),
        configs=sorted({i.config for i, _ in transcripts}),
        split="upstream runs",
    )
    return score_published(
        TASK, transcripts, out, dataset=dataset, models={"model": ", ".join(models)} if models else {}
    )


def _upstream_model(folder: Path) -> str | None:
    """The action model named by a run's ``source_config.json`` (None when it has none)."""
    path = folder / "source_config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))["models"]["action"]["generator_params"]["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def sweep_points(families: Sequence[ScalingFamily], counts: Sequence[int]) -> list[tuple[str, Setting]]:
    """``(folder name, setting)`` of every point of the scaling curves asked for, e.g. ``observation-o12-i0``."""
    points = []
    for family in families:
        for count in counts:
            setting = scaling_setting(family, count)
            points.append((f"{family}-o{setting.prior_observations}-i{setting.budget}", setting))
    return points


def run_sweep(settings: RunSettings, families: Sequence[ScalingFamily], counts: Sequence[int]) -> list[RunSummary[Any]]:
    """The paper's scaling experiments: one ``eval`` run per point, in ``settings.out/<point>/``
    (each resumable on its own); ``settings.options`` must leave the regime to the sweep."""
    options = CausaLabOptions.model_validate(settings.options) if settings.options is not None else CausaLabOptions()
    if options.regime is not None or options.prior_observations is not None or options.budget is not None:
        raise RunConfigurationError(
            "a sweep sets the number of observations and the budget itself: drop --regime, "
            "--prior-observations and --budget"
        )
    if settings.out is None:
        raise RunConfigurationError("a sweep needs a folder for its runs (RunSettings.out)")
    summaries = []
    for name, setting in sweep_points(families, counts):
        point = options.model_copy(update={"prior_observations": setting.prior_observations, "budget": setting.budget})
        summaries.append(run_task(TASK, replace(settings, out=settings.out / name, options=point)))
    return summaries
