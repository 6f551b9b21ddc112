"""The options of ``causal-datasets eval recast``: prompt variant, sample ids, retries, SHD cost, analysis bins."""

from __future__ import annotations

import datetime

from pydantic import BaseModel, Field

from causal_datasets.recast import analysis


class RecastOptions(BaseModel):
    name_assisted: bool = Field(
        default=False, description="give the model the ground-truth node names with ids (the paper's ablation)"
    )
    ids: list[int] | None = Field(default=None, description="only these sample ids")
    max_attempts: int = Field(default=3, ge=1, description="calls per formatting correction and per judge evaluation")
    reversal_cost: float = Field(
        default=1, ge=1, le=2, description="SHD cost of a reversed edge, 1 or 2 (2 = the paper's convention)"
    )
    context_check: bool = Field(
        default=True, description="exclude samples that do not fit the model's context window before calling it"
    )
    confounding_bins: int = Field(
        default=4, ge=1, description="bins of the lenient degree of confounding, each with about as many samples"
    )
    strict_confounding_bins: int = Field(default=5, ge=1, description="bins of the strict degree of confounding")
    knowledge_cutoff: datetime.date = Field(
        default=analysis.DEFAULT_CUTOFF, description="papers published on or after this date are 'recent' (YYYY-MM-DD)"
    )
