"""A pydantic model's fields as argparse flags, and the flags given back as field values.

``agent_seed: int`` becomes ``--agent-seed AGENT_SEED`` (with ``prefix="judge-"``:
``--judge-agent-seed``); a ``Literal`` gives choices; ``list[...]`` takes one or more values; a
mapping takes a JSON object (text that is not one is argparse's one-line error naming the flag);
a bool that defaults to False is a switch, one that defaults to True is turned off with
``--no-<name>``. A flag not given is absent from the namespace, so the model's own default
applies: each default is defined once, in the model, and the help shows it. Values reach pydantic
as text and are converted there; :func:`flag_problem` names the flag of a value it rejects.
"""

from __future__ import annotations

import argparse
import types
import typing
from collections.abc import Collection, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticUndefined

from causal_datasets.bounded_values import BadValue, load_json
from causal_datasets.secret_values import SECRET_MARK


def flag(name: str, prefix: str = "") -> str:
    """The flag of field ``name``: ``--{prefix}{name with dashes}``."""
    return f"--{prefix}{name.replace('_', '-')}"


def dest(name: str, prefix: str = "") -> str:
    """Where argparse keeps the flag of field ``name``: ``{prefix with underscores}{name}``."""
    return f"{prefix.replace('-', '_')}{name}"


def add_flags(
    group: argparse._ActionsContainer,
    model: type[BaseModel],
    *,
    prefix: str = "",
    exclude: Collection[str] = (),
    helps: Mapping[str, str] | None = None,
) -> None:
    """A flag on ``group`` for every field of ``model`` but ``exclude``; ``helps`` replaces a field's description."""
    for name, field in model.model_fields.items():
        if name in exclude:
            continue
        described = (helps or {}).get(name) or field.description or name.replace("_", " ")
        annotation = _without_none(field.annotation)
        if annotation is bool:
            if field.default is True:
                group.add_argument(
                    f"--{prefix}no-{name.replace('_', '-')}",
                    dest=dest(name, prefix),
                    action="store_false",
                    default=argparse.SUPPRESS,
                    help=f"off: {described}",
                )
            else:
                group.add_argument(
                    flag(name, prefix),
                    dest=dest(name, prefix),
                    action="store_true",
                    default=argparse.SUPPRESS,
                    help=described,
                )
            continue
        many = typing.get_origin(annotation) is list
        value_type = typing.get_args(annotation)[0] if many else annotation
        choices = typing.get_args(value_type) if typing.get_origin(value_type) is Literal else None
        mapping = typing.get_origin(value_type) is dict or value_type is dict
        shown = field.default not in (None, PydanticUndefined) and field.default_factory is None
        group.add_argument(
            flag(name, prefix),
            dest=dest(name, prefix),
            nargs="+" if many else None,
            choices=choices,
            type=json_object if mapping else str,
            default=argparse.SUPPRESS,
            metavar=None if choices else ("JSON" if mapping else name.upper()),
            help=described + (f" (default {field.default})" if shown else ""),
        )


def given_values(
    model: type[BaseModel], args: argparse.Namespace, *, prefix: str = "", exclude: Collection[str] = ()
) -> dict[str, Any]:
    """The fields of ``model`` but ``exclude`` whose flags were given, by field name (``exclude`` as for
    :func:`add_flags`: a command's own option of the same name is not the field's flag)."""
    return {
        name: getattr(args, dest(name, prefix))
        for name in model.model_fields
        if name not in exclude and hasattr(args, dest(name, prefix))
    }


def flag_problem(problem: Mapping[str, Any], prefix: str = "") -> str:
    """``--{prefix}<field>: <message>`` of one of a ``ValidationError``'s ``errors()``."""
    return f"{flag(str(problem['loc'][0]), prefix)}: {problem['msg']}" if problem["loc"] else problem["msg"]


def first_problem(error: ValidationError, prefix: str = "") -> str:
    """:func:`flag_problem` of the first error."""
    return flag_problem(error.errors()[0], prefix)


def json_object(text: str) -> dict[str, Any]:
    """An argparse type: a JSON object, else ``ArgumentTypeError`` (argparse names the flag)."""
    try:
        value = load_json(text)
    except BadValue as error:
        raise argparse.ArgumentTypeError(f"{error}: {_shown(text)}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object {{...}}, got {type(value).__name__}: {_shown(text)}")
    return value


def _shown(text: str) -> str:
    """The start of a flag's value as an error shows it: the first 80 characters, escaped (never a secret it
    marks: the value is not repeated when it holds one)."""
    return "(value not shown: it marks a secret)" if SECRET_MARK in text else repr(text[:80])


def _without_none(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation
