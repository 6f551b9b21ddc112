"""The LLM variable-name merge, validated in code.

The model proposes groups of spellings of one variable and the name to keep. A proposal is
rejected (and the model asked again with the reasons) unless, for every group: all old names
exist, the new name is one of them, no name is in two groups, no name contains ``<`` or ``>``, and
every pair of names is the same after normalization (case, punctuation, whitespace, plural) or
one edit apart with at least :data:`MIN_LENGTH_FOR_ONE_EDIT` characters — so "GDP"/"GNP" can
never be merged while "carbondioxide"/"carbon dioxide" can.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from pydantic import BaseModel, ConfigDict
from rapidfuzz.distance import Levenshtein

from causal_datasets.llm.chat import ChatClient
from causal_datasets.recast.raw.prompts import MERGE, ask_json, merge_request
from causal_datasets.scoring.node_matching import normalize_name

MIN_LENGTH_FOR_ONE_EDIT = 6


class MergeGroup(BaseModel):
    model_config = ConfigDict(extra="forbid")
    old_names: list[str]
    new_name: str


class MergeProposal(BaseModel):
    model_config = ConfigDict(extra="ignore")
    combined_variables: list[MergeGroup]


@dataclass
class MergeResult:
    edges: list[tuple[str, str]]
    renamed: dict[str, str] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)
    error: str | None = None


def slip_only(a: str, b: str) -> bool:
    """Whether two spellings can be one variable written twice (see the module docstring)."""
    if normalize_name(a) == normalize_name(b):
        return True
    shorter = min(len(a), len(b))
    return shorter >= MIN_LENGTH_FOR_ONE_EDIT and Levenshtein.distance(a.casefold(), b.casefold()) <= 1


def check_proposal(proposal: MergeProposal, names: set[str]) -> dict[str, str]:
    """``old name → kept name`` for a valid proposal; ``ValueError`` listing what is wrong otherwise."""
    problems, renamed = [], {}
    for number, group in enumerate(proposal.combined_variables, start=1):
        olds = list(dict.fromkeys(group.old_names))
        unknown = [n for n in [*olds, group.new_name] if n not in names]
        if unknown:
            problems.append(f"group {number}: {unknown} are not names in the diagram")
        if group.new_name not in olds:
            problems.append(f"group {number}: the kept name {group.new_name!r} must be one of the old names")
        if any("<" in n or ">" in n for n in olds):
            problems.append(f"group {number}: names with '<' or '>' are never merged")
        distinct = [(a, b) for a, b in combinations(olds, 2) if not slip_only(a, b)]
        if distinct:
            problems.append(f"group {number}: {distinct[0][0]!r} and {distinct[0][1]!r} are different variables")
        for name in olds:
            if name in renamed:
                problems.append(f"group {number}: {name!r} is already in another group")
            renamed[name] = group.new_name
    if problems:
        raise ValueError("; ".join(problems))
    return {old: new for old, new in renamed.items() if old != new}


def merge_variables(client: ChatClient, edges: list[tuple[str, str]], *, max_attempts: int = 3) -> MergeResult:
    """Ask ``client`` for merges, validate them, and return the edges with merged names.

    With no valid proposal after ``max_attempts`` the edges are returned unchanged and ``error`` says why.
    """
    names = {name for edge in edges for name in edge}
    answer = ask_json(
        client,
        MERGE,
        merge_request(edges),
        lambda value: check_proposal(MergeProposal.model_validate(value), names),
        max_attempts,
    )
    rejected = answer.raw if answer.value is None else answer.raw[:-1]
    if answer.value is None:
        return MergeResult(
            list(edges), rejected=rejected, error=f"no valid merge after {answer.attempts} attempt(s): {answer.error}"
        )
    renamed = answer.value
    merged = [(renamed.get(s, s), renamed.get(t, t)) for s, t in edges]
    return MergeResult(list(dict.fromkeys(merged)), renamed, rejected)
