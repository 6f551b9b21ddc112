"""A task's options model (pydantic) as command-line flags, and the flags back as a validated model.

``agent_seed: int`` becomes ``--agent-seed N``; a ``Literal`` gives choices; ``list[...]`` takes
one or more values; a bool that defaults to False is a switch, one that defaults to True is turned
off with ``--no-<name>``. Flags not given keep the model's defaults; a value the model rejects is
one line naming the flag (exit code 2).
"""

from __future__ import annotations

import argparse
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from causal_datasets.cli import CommandError


def add_options(parser: argparse.ArgumentParser, model: type[BaseModel], title: str = "task options") -> None:
    if not model.model_fields:
        return
    group = parser.add_argument_group(title)
    for name, field in model.model_fields.items():
        flag = "--" + name.replace("_", "-")
        described = field.description or name.replace("_", " ")
        annotation = _without_none(field.annotation)
        if annotation is bool:
            if field.default is True:
                group.add_argument(f"--no-{name.replace('_', '-')}", dest=name, action="store_false",
                                   default=argparse.SUPPRESS, help=f"off: {described}")
            else:
                group.add_argument(flag, dest=name, action="store_true", default=argparse.SUPPRESS, help=described)
            continue
        many = typing.get_origin(annotation) is list
        value_type = typing.get_args(annotation)[0] if many else annotation
        choices = typing.get_args(value_type) if typing.get_origin(value_type) is Literal else None
        default = "" if field.default is None else f" (default {field.default})"
        group.add_argument(flag, dest=name, nargs="+" if many else None, choices=choices, default=argparse.SUPPRESS,
                           metavar=None if choices else name.upper(), help=described + default)


def options_from_args(model: type[BaseModel], args: argparse.Namespace,
                      earlier: Mapping[str, Any] | None = None) -> BaseModel:
    """The options the flags give, over ``earlier`` values (a resumed run's) where a flag is not given."""
    given = {**(earlier or {}), **{name: getattr(args, name) for name in model.model_fields if hasattr(args, name)}}
    try:
        return model.model_validate(given)
    except ValidationError as error:
        first = error.errors()[0]
        name = str(first["loc"][0]).replace("_", "-")
        raise CommandError(f"--{name}: {first['msg']}") from None


def _without_none(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation
