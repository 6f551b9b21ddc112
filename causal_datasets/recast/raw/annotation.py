"""Annotation files: one ``source -> sink`` line per causal link, checked and lightly auto-corrected.

Code checks come first, as in the paper: arrow variants (``-->``, ``- >``, ``→``) are rewritten
to ``->``; a chain ``A -> B -> C`` becomes two links; every correction is reported. Lines that
cannot be read are reported and skipped. The graph checks then list repeated links, self-loops
and names that differ only in case, punctuation or plural form (candidates for the LLM merge).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from causal_datasets.scoring.node_matching import normalize_name

_ARROW_VARIANT = re.compile(r"\s*(?:-+\s*>|→|=>)\s*")


@dataclass
class Annotation:
    edges: list[tuple[str, str]] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def nodes(self) -> list[str]:
        return list(dict.fromkeys(name for edge in self.edges for name in edge))

    def repeated_edges(self) -> list[tuple[str, str]]:
        """Every edge that repeats an earlier one, in order."""
        seen: set[tuple[str, str]] = set()
        repeated = []
        for edge in self.edges:
            if edge in seen:
                repeated.append(edge)
            seen.add(edge)
        return repeated

    def self_loops(self) -> list[str]:
        return [s for s, t in self.edges if s == t]

    def near_duplicates(self) -> list[list[str]]:
        """Groups of distinct names with the same normalized form."""
        groups: dict[str, list[str]] = defaultdict(list)
        for name in self.nodes:
            groups[normalize_name(name)].append(name)
        return [names for names in groups.values() if len(names) > 1]


def parse_annotation(text: str) -> Annotation:
    """Read annotation text (blank lines and ``#`` comments ignored)."""
    result = Annotation()
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        ends = [" ".join(part.split()) for part in _ARROW_VARIANT.split(line)]
        if len(ends) < 2:
            result.problems.append(f"line {number}: no arrow in {line!r}")
            continue
        if any(not end for end in ends):
            result.problems.append(f"line {number}: an empty end in {line!r}")
            continue
        canonical = " -> ".join(ends)
        if canonical != line:
            result.corrections.append(f"line {number}: {line!r} read as {canonical!r}")
        result.edges.extend(pairwise(ends))
    return result


def read_annotation(path: Path) -> Annotation:
    return parse_annotation(Path(path).read_text(encoding="utf-8"))
