"""The benchmarks' papers: BibTeX entries read from the metric cards shipped with the package.

The metric cards (``metrics/<name>/README.md``) hold checked BibTeX for every paper; dataset cards
cite the same entries by key, so a citation is written once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

from causal_datasets.errors import BuilderRegistrationError
from causal_datasets.paths import metric_names, metric_path

_BIBTEX_BLOCK = re.compile(r"^```bibtex\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_ENTRY = re.compile(r"@\w+\{([^,\s]+),")
_FIELD = re.compile(r"^\s*(\w+)\s*=\s*", re.MULTILINE)


@dataclass(frozen=True)
class Paper:
    """What a card says about a paper: title, authors, venue, year and link, from its BibTeX entry."""

    title: str
    authors: str
    venue: str
    year: str
    url: str

    def markdown(self) -> str:
        """``*Title*. Authors. Venue, year. <url>``"""
        title = f"*{self.title}*" + ("" if self.title[-1:] in (".", "?", "!") else ".")
        rest = [part for part in (self.authors, ", ".join(p for p in (self.venue, self.year) if p)) if part]
        text = " ".join([title, *(f"{part}." for part in rest)])
        return f"{text} <{self.url}>" if self.url else text


@cache
def bibtex_entries() -> dict[str, str]:
    """Every BibTeX entry of the metric cards, by key (the first card that has a key wins)."""
    entries: dict[str, str] = {}
    for name in metric_names():
        text = (Path(metric_path(name)) / "README.md").read_text(encoding="utf-8")
        for block in _BIBTEX_BLOCK.findall(text):
            for entry in _split_entries(block):
                key = _ENTRY.match(entry)
                if key:
                    entries.setdefault(key.group(1), entry)
    return entries


def bibtex(keys: Sequence[str]) -> list[str]:
    """The entries for ``keys``, in that order (:class:`BuilderRegistrationError` names an unknown key)."""
    entries = bibtex_entries()
    unknown = [key for key in keys if key not in entries]
    if unknown:
        raise BuilderRegistrationError(
            f"no BibTeX entry {unknown} in the metric cards; known: {', '.join(sorted(entries))}"
        )
    return [entries[key] for key in keys]


def paper(entry: str) -> Paper:
    """The displayed facts of one BibTeX entry (braces removed)."""
    fields = _fields(entry)
    venue = (
        fields.get("booktitle") or fields.get("journal") or (f"arXiv:{fields['eprint']}" if "eprint" in fields else "")
    )
    return Paper(
        title=fields.get("title", ""),
        authors=", ".join(_first_last(a) for a in fields.get("author", "").split(" and ")),
        venue=venue or fields.get("note", ""),
        year=fields.get("year", ""),
        url=fields.get("url", ""),
    )


def _split_entries(block: str) -> list[str]:
    starts = [m.start() for m in re.finditer(r"^@", block, re.MULTILINE)]
    return [block[a:b].strip() for a, b in pairwise([*starts, len(block)])]


def _fields(entry: str) -> dict[str, str]:
    """``name = {value}`` fields of an entry; values may hold nested braces."""
    fields = {}
    for match in _FIELD.finditer(entry):
        start = match.end()
        if entry[start : start + 1] != "{":
            continue
        fields[match.group(1).lower()] = _plain(entry[start + 1 : _closing_brace(entry, start)])
    return fields


def _closing_brace(text: str, start: int) -> int:
    """Index of the brace that closes the one at ``start``; the last index when it never closes."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return len(text) - 1


def _plain(value: str) -> str:
    value = value.replace('{\\"o}', "ö").replace('\\"o', "ö")
    return re.sub(r"\s+", " ", value.replace("{", "").replace("}", "")).strip()


def _first_last(name: str) -> str:
    last, _, first = name.partition(", ")
    return f"{first} {last}".strip()
