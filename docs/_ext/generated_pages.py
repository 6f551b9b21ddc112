"""Parts of the documentation pages made from the code, so they cannot drift from it.

A page marks a part with a one-line HTML comment (invisible where the Markdown is read as is), and the
part follows it in the file, up to ``<!-- end KIND -->``, so the pages read whole on GitHub too:

- ``<!-- cli-reference -->``: every command of ``causal-datasets``, nested subcommands included, each
  under its own heading with the help text that ``--help`` prints, from :func:`causal_datasets.cli.build_parser`
  (wrapped to the site's column);
- ``<!-- card NAME BLOCK... -->``: the prose of blocks of the dataset card template ``cards/NAME.md``
  (``summary``, ``tasks``, ``configs``, ``fixes``, ...), the same text a build puts into the card;
  ``BLOCK:N`` keeps its first N paragraphs (those before a figure that only a build computes).

:func:`expand` writes every part afresh (a marker without its part gets one); ``scripts/render_docs.py``
writes the pages with it (``--check``, in CI: fails when a page is stale). Sphinx only verifies: a page
whose parts differ from :func:`expand`'s is a warning, an error under ``-W``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import jinja2
from huggingface_hub import DatasetCard
from sphinx.util import logging

from causal_datasets.cli import build_parser
from causal_datasets.paths import card_template, cards_dir

logger = logging.getLogger(__name__)

#: a marker line and the part after it up to its end line (none yet: the marker alone), never across a marker
MARKER = re.compile(
    r"^(?P<marker><!-- (?P<kind>cli-reference|card) ?(?P<args>[^>]*?) ?-->)\n"
    r"(?:(?:(?!<!-- (?:cli-reference|card)[ >-]).)*?^<!-- end (?P=kind) -->\n)?",
    re.MULTILINE | re.DOTALL,
)
#: columns of the generated help text, what the site's column shows of a code block without scrolling
#: (argparse otherwise uses the terminal's width); longer lines (a list of choices) are wrapped after commas
HELP_WIDTH = 88
#: a piece a help line may be broken after: a word and its space, or a choice and its comma
_PIECE = re.compile(r"[^ ,]*(?:,|[ ]+|$)")


def expand(text: str) -> str:
    """``text`` with the part after every marker written afresh (the markers kept)."""
    return MARKER.sub(lambda match: f"{match['marker']}\n\n{_part(match)}\n<!-- end {match['kind']} -->\n", text)


def _part(match: re.Match) -> str:
    if match["kind"] == "cli-reference":
        return cli_reference()
    name, *blocks = match["args"].split()
    parts = [block.partition(":") for block in blocks]
    return "\n".join(card_block(name, block, int(count) if count else None) for block, _, count in parts)


def cli_reference() -> str:
    """One section per command, subcommands under their command, as Markdown."""
    parser = build_parser()
    sections = [_section(parser, 2)]
    for command in _subcommands(parser):
        sections += _command_sections(command, 2)
    return "\n".join(sections)


def _command_sections(parser: argparse.ArgumentParser, level: int) -> Iterator[str]:
    """The section of a command, then those of its subcommands one level down."""
    yield _section(parser, level)
    for subparser in _subcommands(parser):
        yield from _command_sections(subparser, min(level + 1, 6))


def _section(parser: argparse.ArgumentParser, level: int) -> str:
    parser.formatter_class = _fixed_width(parser.formatter_class)
    return f"{'#' * level} `{parser.prog}`\n\n```text\n{wrap_help(parser.format_help())}```\n"


def wrap_help(text: str, width: int = HELP_WIDTH) -> str:
    """``text`` with every line longer than ``width`` broken after a space or a comma, each continuation
    indented two more columns than the line; a piece longer than the room left stays whole."""
    lines = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
        current = ""
        for piece in _PIECE.findall(line.rstrip()):
            if current.strip() and len(current + piece.rstrip()) > width:
                lines.append(current.rstrip())
                current = indent
            current += piece
        lines.append(current.rstrip())
    return "\n".join(lines) + "\n"


def _fixed_width(formatter_class: type[argparse.HelpFormatter]):
    return lambda prog: formatter_class(prog, width=HELP_WIDTH)


def _subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of ``parser``'s subcommands, each once (aliases share a parser), in declaration order."""
    found: dict[int, argparse.ArgumentParser] = {}
    for action in parser._actions:  # argparse has no public accessor for its subparsers
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                found.setdefault(id(subparser), subparser)
    return list(found.values())


class _BuildFigure(jinja2.Undefined):
    """A value only a build computes: rendered as a mark that must not reach a page."""

    def __str__(self) -> str:
        return BUILD_FIGURE


BUILD_FIGURE = "\x00build figure\x00"


def card_block(name: str, block: str, paragraphs: int | None = None) -> str:
    """Block ``block`` of the card template of dataset ``name``, rendered, or its first ``paragraphs``.

    Raises ValueError when the text kept holds a figure that only a build computes."""
    loader = jinja2.FileSystemLoader(cards_dir())
    environment = jinja2.Environment(loader=loader, undefined=_BuildFigure, trim_blocks=True)
    template = environment.from_string(DatasetCard(card_template(name).read_text(encoding="utf-8")).text)
    if block not in template.blocks:
        raise KeyError(f"cards/{name}.md has no block {block!r} (it has {', '.join(template.blocks)})")
    text = "".join(template.blocks[block](template.new_context())).strip()
    text = "\n\n".join(text.split("\n\n")[:paragraphs])
    if BUILD_FIGURE in text:
        raise ValueError(
            f"block {block!r} of cards/{name}.md uses a figure only a build computes: keep fewer paragraphs"
        )
    return text + "\n"


#: a fence with a title (```` ```bash title="needs a model server" ````, as in the README)
TITLED_FENCE = re.compile(r'^```(?P<language>\w+) title="(?P<title>[^"]+)"$', re.MULTILINE)


STALE = "its generated parts differ from the code's: run python scripts/render_docs.py"


def _read_source(app, docname: str, source: list[str]) -> None:
    """The page as Sphinx reads it, each fence's title shown as its caption; a stale page is a warning."""
    if expand(source[0]) != source[0]:
        logger.warning(STALE, location=docname)
    source[0] = TITLED_FENCE.sub(r"```{code-block} \g<language>\n:caption: \g<title>\n", source[0])


def setup(app) -> dict:
    app.connect("source-read", _read_source)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
