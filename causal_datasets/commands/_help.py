"""A subcommand's parser with its ``--help`` description taken from its module docstring."""

from __future__ import annotations

import argparse
import re

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``", re.S)


def describe(doc: str) -> str:
    """A command module's docstring as its ``--help`` description: the text after the first paragraph,
    reST markup made plain (a role's target by its last name, a literal without its backquotes)."""
    text = doc.split("\n\n", 1)[1]
    return _LITERAL.sub(r"\1", _ROLE.sub(lambda match: match.group(1).rsplit(".", 1)[-1], text))


def command_parser(subparsers: argparse._SubParsersAction, name: str, help: str, doc: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name``: ``help`` in the list of commands, its module's docstring ``doc`` as
    its ``--help`` description (:func:`describe`)."""
    return subparsers.add_parser(name, help=help, description=describe(doc))
