"""A task's (or builder's) options model as command-line flags, and the flags back as a validated model.

The flags come from :mod:`causal_datasets.flags` (one per field, the model's defaults kept); a value
the model rejects is one line naming the flag (exit code 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from causal_datasets.cli import CommandError
from causal_datasets.flags import add_flags, first_problem, given_values


def add_options(parser: argparse.ArgumentParser, model: type[BaseModel], title: str = "task options") -> None:
    if model.model_fields:
        add_flags(parser.add_argument_group(title), model)


def options_from_args(model: type[BaseModel], args: argparse.Namespace,
                      earlier: Mapping[str, Any] | None = None) -> BaseModel:
    """The options the flags give, over ``earlier`` values (a resumed run's) where a flag is not given."""
    try:
        return model.model_validate({**(earlier or {}), **given_values(model, args)})
    except ValidationError as error:
        raise CommandError(first_problem(error)) from None
