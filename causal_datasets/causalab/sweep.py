"""The paper's scaling experiments (``causal-datasets sweep causalab``): one ``eval`` run per point of the
curves, each with its own number of prior observations and intervention budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from causal_datasets.causalab.options import CausaLabOptions
from causal_datasets.causalab.regimes import ScalingFamily, Setting, scaling_setting
from causal_datasets.causalab.task import TASK
from causal_datasets.errors import RunConfigurationError
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.records import RunSummary
from causal_datasets.runners.task import RunSettings


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
