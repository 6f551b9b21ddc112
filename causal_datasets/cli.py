"""The ``causal-datasets`` command line.

Each module in :mod:`causal_datasets.commands` adds its own subcommand through
``register(subparsers)``; this file only discovers them and turns expected failures (the
library's :class:`~causal_datasets.errors.CausalDatasetsError` family and the commands' own
:class:`~causal_datasets.commands._errors.CommandError`) into a one-line message and exit code 2.
Output piped into a reader that stops early (``| head``) ends the console script quietly with exit
code 141 (128 + SIGPIPE, as a shell reports a command killed by it). The CLI sits on the commands:
neither they nor the library import this file.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import pkgutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from causal_datasets import commands
from causal_datasets.commands._errors import CommandError
from causal_datasets.errors import CausalDatasetsError
from causal_datasets.redaction import redact_urls
from causal_datasets.secret_values import ScrubbedStream


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of the ``only`` one (its module alone is imported: a
    command starts without the others' libraries)."""
    parser = argparse.ArgumentParser(
        prog="causal-datasets", description="Causal-reasoning benchmarks as Hugging Face datasets, metrics and runners."
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the program's version number and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in [only] if only else command_modules():
        importlib.import_module(f"{commands.__name__}.{name}").register(subparsers)
    _remember_parsers(parser)
    return parser


class _Version(argparse.Action):
    """``--version``: the installed version, read (``importlib.metadata``) only when asked."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        import causal_datasets

        print(f"{parser.prog} {causal_datasets.__version__}")
        parser.exit()


def command_modules() -> list[str]:
    """The modules of :mod:`causal_datasets.commands` that are subcommands (not shared helpers)."""
    return sorted(info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_"))


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Let every (sub)command's parser put itself in the parsed arguments (``usage_parser``): the innermost
    one that parsed wins, so an option it does not take is refused under its own usage line."""
    parser.set_defaults(usage_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _remember_parsers(child)


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parser.parse_args``, but an unrecognized argument is reported by the innermost command's parser
    (``causal-datasets eval causalab: error: unrecognized arguments: --judge-model``), with its usage."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        getattr(args, "usage_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; everything it prints (stdout, stderr: logs, progress, errors) goes out with the
    secrets the process holds redacted (:mod:`causal_datasets.secret_values`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    with scrubbed_output():
        named = argv[0].replace("-", "_") if argv and not argv[0].startswith("-") else None
        args = parse(build_parser(named if named in command_modules() else None), argv)
        try:
            return int(args.handler(args) or 0)
        except (CommandError, CausalDatasetsError) as error:
            print(f"error: {redact_urls(str(error))}", file=sys.stderr)  # no URL shows a password or key
            return 2


@contextmanager
def scrubbed_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` scrubbed of secrets while the block runs, restored after it."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ScrubbedStream(sys.stdout), ScrubbedStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams


#: allocations between two young-generation collections (Python's default is 700)
GC_THRESHOLD = 50_000


def tune_garbage_collector() -> None:
    """Make the cyclic garbage collector run less often in this short-lived process.

    Commands build millions of small objects that are never cyclic garbage (expression trees,
    records, rows); at the default threshold the collector runs every 700 of them and rescans the
    ever larger heap: a fifth of generating a synthetic config and three quarters of validating
    loaded records. The objects alive at this point (imported modules) are frozen out of its
    scans; forked workers inherit both settings."""
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def entry_point() -> int:
    """The ``causal-datasets`` console script (and ``python -m causal_datasets.cli``): the process's
    garbage collector set for batch work, then :func:`main`. Calling :func:`main` from other code
    leaves the collector alone."""
    tune_garbage_collector()
    try:
        return main()
    except BrokenPipeError:
        # the reader is gone: nothing more can be shown, and the exit-time flush must not complain either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE


#: exit code when the reader of the output went away (128 + SIGPIPE)
BROKEN_PIPE = 141


if __name__ == "__main__":
    sys.exit(entry_point())
