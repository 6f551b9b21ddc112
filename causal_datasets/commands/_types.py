"""Argument types shared by the subcommands: a bad value is argparse's one-line error and exit code 2."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def at_least(low: int) -> Callable[[str], int]:
    """An integer option that must be ``>= low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def between(low: int, high: int) -> Callable[[str], int]:
    """An integer option that must be in ``low..high``."""
    check = at_least(low)

    def parse(text: str) -> int:
        value = check(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{value} is above {high}")
        return value

    parse.__name__ = f"integer in {low}..{high}"
    return parse


def positive_seconds(text: str) -> float:
    """A duration in seconds that must be above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value
