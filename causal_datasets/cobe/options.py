"""The options of ``causal-datasets eval cobe`` and the check of a run's configuration against them."""

from __future__ import annotations

from pydantic import BaseModel, Field

from causal_datasets.cobe.judge import DEFAULT_ATTEMPTS
from causal_datasets.cobe.records import Phrasing
from causal_datasets.errors import RunConfigurationError
from causal_datasets.runners.records import Role
from causal_datasets.runners.task import RunSettings


class CoBeOptions(BaseModel):
    phrasing: list[Phrasing] | None = Field(default=None, description="only these query phrasings")
    models: list[str] | None = Field(default=None, description="with --config responses: only these published models")
    max_attempts: int = Field(
        default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per criterion until a single T/F answer"
    )
    failure_modes: bool = Field(
        default=False, description="sort each wrong rewrite into the paper's seven failure modes with the judge"
    )


def check(settings: RunSettings, options: CoBeOptions, roles: frozenset[Role]) -> None:
    responses = tuple(settings.configs) == ("responses",)
    if not responses and "model" not in roles:
        raise RunConfigurationError("--config queries needs --model (and --base-url) to generate the rewrites")
    if options.failure_modes and "judge" not in roles and "model" not in roles:
        raise RunConfigurationError("--failure-modes needs a judge: pass --judge-model (and --judge-base-url)")
    if options.models and not responses:
        raise RunConfigurationError("--models picks published models: it needs --config responses")
