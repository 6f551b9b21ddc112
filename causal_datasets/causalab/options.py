"""The options of ``causal-datasets eval causalab``: the model's protocol (its scaffold, :mod:`.scaffolds`) and the
interaction regime."""

from __future__ import annotations

from pydantic import BaseModel, Field

from causal_datasets.causalab.regimes import REGIMES, RegimeName, Setting
from causal_datasets.causalab.scaffolds import SCAFFOLDS, ScaffoldName

#: bounds of the regime options (a run of 1000 records or interventions per episode is a typo)
MAX_PRIOR_OBSERVATIONS = MAX_BUDGET = 1000


class CausaLabOptions(BaseModel):
    agent_seed: int = Field(default=0, ge=0, description="seed of the random agent")
    scaffold: ScaffoldName = Field(
        default="react-memory",
        description="the paper's agent scaffold: react-memory (its ReAct loop with memory, every main table) or "
        "react-memory-verify (RQ4: the hypothesis checked against past data before each submission)",
    )
    verify: bool | None = Field(
        default=None,
        description="ask the model to check its hypothesis against past data before submitting (default: the "
        "scaffold's)",
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

    def verifies(self) -> bool:
        """Whether the agent verifies before submitting: ``--verify`` when given, else the scaffold's."""
        return SCAFFOLDS[self.scaffold].verify if self.verify is None else self.verify

    def setting(self) -> Setting:
        """The regime's counts, with the explicit ones taking precedence."""
        preset = REGIMES[self.regime] if self.regime else Setting()
        return Setting(
            prior_observations=(
                preset.prior_observations if self.prior_observations is None else self.prior_observations
            ),
            budget=self.budget if self.budget is not None else preset.budget,
        )
