"""``causal-datasets eval causalab``: CausaLab episodes played by a chat model or a reference agent.

Agents and models go through the same episode loop; each result holds the steps, raw replies,
parsed hypotheses, per-step and final mechanism scores, the consistency of the final hypothesis
with the agent's own data and the outcome. ``--regime`` / ``--prior-observations`` /
``--budget`` set the interaction regime (:mod:`causal_datasets.causalab.regimes`). An episode the
model server could not finish (``llm_error``) is a failed item, played again by ``--resume``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from statistics import fmean
from typing import Any, get_args

from pydantic import BaseModel, Field

from causal_datasets import __version__
from causal_datasets.causalab.dsl import Hypothesis
from causal_datasets.causalab.episode import Agent, EpisodeResult, run_episode
from causal_datasets.causalab.episode import Outcome as EpisodeOutcome
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.llm_agent import ChatAgent
from causal_datasets.causalab.metrics import (
    SCORE_FIELDS,
    aggregate,
    consistency,
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
from causal_datasets.runners.estimates import item_units, summary_intervals
from causal_datasets.runners.records import (
    CausaLabMetrics,
    DatasetRef,
    ItemCounts,
    RunSummary,
    Slices,
    Usage,
)
from causal_datasets.runners.results import ResultsLog, write_summary
from causal_datasets.runners.task import (
    Estimates,
    Item,
    Outcome,
    RoleSpec,
    RunSettings,
    Task,
    TaskContext,
    result_line,
)
from causal_datasets.uncertainty import Mean, Statistic, ratio

AGENTS = ("experimenter", "random")
#: bounds of the regime options (a run of 1000 records or interventions per episode is a typo)
MAX_PRIOR_OBSERVATIONS = MAX_BUDGET = 1000
#: the per-step scores the trajectory slice averages
TRAJECTORY_FIELDS = ("edge_f1", "shd", "freq_edge_f1", "coefficient_f1", "root_f1")


class CausaLabOptions(BaseModel):
    agent_seed: int = Field(default=0, ge=0, description="seed of the random agent")
    verify: bool = Field(default=False, description="ask the model to check its hypothesis against past data before submitting")
    max_turns: int | None = Field(default=None, ge=1, description="steps per episode before it ends unsubmitted (default: budget + submissions + 8)")
    history: int | None = Field(default=None, ge=0, description="send only the last N exchanges after the opening messages (default: all)")
    reask: int = Field(default=1, ge=0, le=5, description="times a reply with no readable step is asked again (each counted)")
    regime: RegimeName | None = Field(
        default=None,
        description="preset interaction regime: observation-only (12 records, no intervention), mixed (the release's 2 "
        "records and budget), intervention-only (no record, the release's budget); --prior-observations and --budget override it",
    )
    prior_observations: int | None = Field(
        default=None, ge=0, le=MAX_PRIOR_OBSERVATIONS, description="prior observation records each episode starts with (default: the dataset's 2)"
    )
    budget: int | None = Field(default=None, ge=0, le=MAX_BUDGET, description="interventions allowed per episode (default: the dataset's 4(n-1))")

    def setting(self) -> Setting:
        """The regime's counts, with the explicit ones taking precedence."""
        preset = REGIMES[self.regime] if self.regime else Setting()
        return Setting(
            prior_observations=self.prior_observations if self.prior_observations is not None else preset.prior_observations,
            budget=self.budget if self.budget is not None else preset.budget,
        )


def episode_item(episode: CausaLabEpisode, result: EpisodeResult, agent_name: str) -> dict[str, Any]:
    """The result fields of one episode."""
    hypotheses = [Hypothesis.model_validate(s["step"]["hypothesis"]) for s in result.steps if s["step"] is not None]
    prior = len(episode.observation_crystals)
    return {
        "suite": episode.suite,
        "num_nodes": len(episode.nodes),
        "origin": episode.origin,
        "agent": agent_name,
        "regime": regime_of(prior, episode.budget),
        "prior_observations": prior,
        "outcome": result.outcome,
        "success": result.success,
        "error": result.error,
        "predictions": result.predictions,
        "reactor_frequency": episode.reactor_frequency,
        "interventions_used": result.interventions_used,
        "budget": episode.budget,
        "invalid_steps": result.invalid_steps,
        "reasks": result.reasks,
        "refusals": result.refusals,
        "final_hypothesis": result.final_hypothesis.model_dump(),
        "scores": result.scores(episode),
        "consistency": consistency(result.final_hypothesis, result.data, episode.tolerance).to_dict(),
        "trajectory": [s.to_dict() for s in score_trajectory(hypotheses, episode)],
        "steps": result.steps,
    }


def items(context: TaskContext) -> list[Item]:
    setting = context.options.setting()
    return [
        Item(row.id, config, with_setting(row, setting)) for config in context.configs for row in context.load(config).records
    ]


def solve(item: Item, context: TaskContext) -> Outcome:
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
    fields = episode_item(episode, result, name)
    return Outcome(fields, f"llm_error: {result.error}" if result.outcome == "llm_error" else None)


def summarize(results: list[dict[str, Any]], context: TaskContext | None = None) -> tuple[CausaLabMetrics, Slices]:
    """Aggregate scores, outcome counts, budget use and consistency (overall and split by success),
    the regime; overall and per number of nodes and per suite."""
    metrics: dict[str, Any] = aggregate(results)
    counts = Counter(r["outcome"] for r in results)
    metrics["outcomes"] = {outcome: counts[outcome] for outcome in get_args(EpisodeOutcome)}  # zeros shown, not missing
    if results:
        regimes = {r["regime"] for r in results}
        metrics |= {
            "regime": regimes.pop() if len(regimes) == 1 else "several",
            "prior_observations": fmean(r["prior_observations"] for r in results),
            "budget": fmean(r["budget"] for r in results),
            "budget_used": _budget_used(results),
            "invalid_steps": fmean(r["invalid_steps"] for r in results),
            "reasks": fmean(r["reasks"] for r in results),
            "consistent": fmean(float(r["consistency"]["consistent"]) for r in results),
        }
        by_success = {"solved": [r for r in results if r["success"]], "failed": [r for r in results if not r["success"]]}
        metrics["budget_used_by_success"] = {key: _budget_used(group) for key, group in by_success.items()}
        metrics["consistent_by_success"] = {
            key: fmean(float(r["consistency"]["consistent"]) for r in group) if group else None for key, group in by_success.items()
        }
    slices = {"by_num_nodes": _by(results, "num_nodes"), "by_suite": _by(results, "suite"), "by_step": by_step(results)}
    return CausaLabMetrics(**metrics), slices


def _budget_used(results: Sequence[dict[str, Any]]) -> float | None:
    """Mean share of the budget an episode used (episodes with no budget have none to use)."""
    shares = [r["interventions_used"] / r["budget"] for r in results if r["budget"]]
    return fmean(shares) if shares else None


def by_step(results: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Mean mechanism scores of the hypotheses stated at step 1, 2, … (an episode that has ended keeps
    its last hypothesis), and how many episodes were still going at each step."""
    trajectories = [r["trajectory"] for r in results if r["trajectory"]]
    longest = max((len(t) for t in trajectories), default=0)
    steps: dict[str, dict[str, Any]] = {}
    for index in range(longest):
        at = [t[min(index, len(t) - 1)] for t in trajectories]
        steps[str(index + 1)] = {
            "running": sum(len(t) > index for t in trajectories),
            **{name: fmean(float(s[name]) for s in at) for name in TRAJECTORY_FIELDS},
        }
    return steps


def _by(results: Sequence[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        groups.setdefault(str(result[field]), []).append(result)
    return {key: aggregate(group) for key, group in sorted(groups.items())}


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Success and the final mechanism scores: their means over episodes are the run's metrics."""
    return {"task_accuracy": float(bool(result["success"])), **{name: float(result["scores"][name]) for name in SCORE_FIELDS}}


def groups(item: Item, context: TaskContext | None) -> dict[str, str]:
    episode: CausaLabEpisode = item.row
    return {"by_num_nodes": str(len(episode.nodes)), "by_suite": episode.suite}


def _budget_share(result: Mapping[str, Any]) -> float | None:
    return result["interventions_used"] / result["budget"] if result["budget"] else None


def _consistent(result: Mapping[str, Any]) -> float:
    return float(result["consistency"]["consistent"])


def _by_success(name: str, value: Callable[[Mapping[str, Any]], float | None]) -> tuple[Statistic, ...]:
    """``name.solved`` and ``name.failed``: the mean of ``value`` over the solved and the failed episodes with one."""
    def counted(solved: bool) -> Callable[[Mapping[str, Any]], float]:
        return lambda r: float(bool(r["success"]) == solved and value(r) is not None)

    def summed(solved: bool) -> Callable[[Mapping[str, Any]], float]:
        return lambda r: counted(solved)(r) * (value(r) or 0.0)

    return tuple(ratio(f"{name}.{key}", summed(solved), counted(solved))
                 for key, solved in (("solved", True), ("failed", False)))


#: the episodes played on one released config (graph): suites of one size share it, and an upstream run
#: folder may hold several runs of it
ESTIMATES = Estimates(
    unit="graph config",
    cluster=lambda item: item.row.graph_id,
    groups=groups,
    estimators=(
        Mean("budget_used", _budget_share),
        Mean("invalid_steps", lambda r: r["invalid_steps"]),
        Mean("reasks", lambda r: r["reasks"]),
        Mean("consistent", _consistent),
        *_by_success("budget_used_by_success", _budget_share),
        *_by_success("consistent_by_success", _consistent),
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
    summarize=summarize,
    item_scores=item_scores,
    roles=(RoleSpec("model", "the model that runs the experiments"),),
    agents=AGENTS,
    options=CausaLabOptions,
    multiple_configs=True,
    from_files=True,
    estimates=ESTIMATES,
)


def upstream_run_folders(paths: Sequence[Path]) -> list[Path]:
    """Every upstream run folder in ``paths``: a path that holds one, or any folder below it that does."""
    folders = []
    for path in map(Path, paths):
        if (path / CONFIG_FILE).is_file():
            folders.append(path)
        elif path.is_dir():
            folders += sorted(found.parent for found in path.rglob(CONFIG_FILE) if (found.parent / TRACKING_FILE).is_file())
        else:
            raise UpstreamRunError(f"{path} does not exist")
    if not folders:
        raise UpstreamRunError(f"no upstream run folder (one holding {CONFIG_FILE}) in {', '.join(map(str, paths))}")
    return folders


def score_upstream_runs(paths: Sequence[Path], out: Path) -> RunSummary:
    """Score the authors' run folders under ``paths`` with our metrics and write them as a run folder
    ``out`` (``results.jsonl`` + ``summary.json``, solver ``published``) that ``report`` reads like
    any other. Every folder is read before anything is written."""
    folders = upstream_run_folders(paths)
    runs = [(folder, read_upstream_run(folder)) for folder in folders]
    log = ResultsLog(out, resume=False)
    ids: Counter[str] = Counter()
    units = []
    for folder, run in runs:
        episode = run.episode()
        item_id = f"{episode.id}@{folder.name}"
        ids[item_id] += 1
        if ids[item_id] > 1:
            item_id += f"#{ids[item_id]}"
        fields = episode_item(episode, run.result(episode), "published")
        item = Item(item_id, f"upstream_{run.suite}", episode)
        units.append(item_units(TASK, item, None))
        log.append(result_line(item, Outcome(fields), units=units[-1]))
    log.compact()
    results = list(log.items.values())
    metrics, slices = summarize(results)
    models = sorted({model for folder, _ in runs if (model := _upstream_model(folder))})
    summary = RunSummary(
        benchmark=TASK.name,
        status="complete",
        package_version=__version__,
        dataset=DatasetRef(
            name=TASK.dataset, version=get_builder(TASK.dataset).version, seed=0,
            read_from=", ".join(map(str, paths)), configs=sorted({r["config"] for r in results}), split="upstream runs",
        ),
        solver="published",
        models={"model": ", ".join(models)} if models else {},
        options={},
        items=ItemCounts(selected=len(results), scored=len(results), failed=0, missing=0),
        failures={},
        invocations=1,
        usage={},
        usage_total=Usage(),
        metrics=metrics,
        slices=slices,
        intervals=summary_intervals(TASK, metrics, slices, results, units),
    )
    write_summary(out, summary)
    return summary


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


def run_sweep(settings: RunSettings, families: Sequence[ScalingFamily], counts: Sequence[int]) -> list[RunSummary]:
    """The paper's scaling experiments: one ``eval`` run per point, in ``settings.out/<point>/``
    (each resumable on its own); ``settings.options`` must leave the regime to the sweep."""
    options = settings.options if settings.options is not None else CausaLabOptions()
    if options.regime is not None or options.prior_observations is not None or options.budget is not None:
        raise RunConfigurationError("a sweep sets the number of observations and the budget itself: drop --regime, "
                                    "--prior-observations and --budget")
    if settings.out is None:
        raise RunConfigurationError("a sweep needs a folder for its runs (RunSettings.out)")
    summaries = []
    for name, setting in sweep_points(families, counts):
        point = options.model_copy(update={"prior_observations": setting.prior_observations, "budget": setting.budget})
        summaries.append(run_task(TASK, replace(settings, out=settings.out / name, options=point)))
    return summaries
