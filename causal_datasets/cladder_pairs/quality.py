"""Data-quality findings of the ``cladder_pairs`` rows: repeated synthetic pairs, CLadder's spellings.

* The random walks of the synthetic config sometimes produce a pair already produced (small graphs
  leave few distinct start terms): :func:`distinct_synthetic` keeps the first of each and reports
  the ids of the repeats. Two rows repeat each other when they state the same identity: the same
  edges (in any order), the same nodes apart from isolated ones no expression mentions (they change
  nothing), and the same two expressions in either order; the label then is the same too.
* CLadder writes some minus signs as U+2212 and closes some ``P(`` with ``]``. The rows keep
  CLadder's strings verbatim; :func:`spelling_findings` lists the rows that carry them.
* The arrowhead stories say V2 is unobserved, yet CLadder's natural-effect estimands for them
  adjust for V2: :func:`unobserved_estimand_findings` lists those rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from causal_datasets.builder import Finding
from causal_datasets.cladder_pairs.cladder import try_parse
from causal_datasets.cladder_pairs.records import CladderPair, CladderQuestionRow, SyntheticPair
from causal_datasets.docalc.expr import variables

UNICODE_MINUS = "\u2212"
_CLOSING = {")": "(", "]": "[", "}": "{"}


def distinct_synthetic(rows: Sequence[SyntheticPair]) -> tuple[list[SyntheticPair], Finding]:
    """The rows without repeats (the first occurrence is kept, with its id) and the finding listing the repeats."""
    seen: set[tuple] = set()
    kept: list[SyntheticPair] = []
    repeats: list[SyntheticPair] = []
    for row in rows:
        key = identity_key(row)
        (repeats if key in seen else kept).append(row)
        seen.add(key)
    finding = Finding(
        "synthetic",
        "repeats an earlier pair: the same identity (same edges in any order, same nodes but for isolated ones no "
        "expression mentions, same two expressions in either order)",
        "removed; the first occurrence is kept under its own id",
        ids=tuple(row.id for row in repeats),
    )
    return kept, finding


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def identity_key(row: SyntheticPair) -> tuple:
    """What a pair states: its edges, the nodes that matter (linked by an edge or named in an expression),
    and its two expressions as a set."""
    edges = tuple(sorted((e.source, e.target) for e in row.edges))
    named = set(_NAME.findall(row.expr_a)) | set(_NAME.findall(row.expr_b))  # canonical texts: names are whole words
    nodes = tuple(sorted({n for edge in edges for n in edge} | (named & set(row.nodes))))
    return edges, nodes, tuple(sorted((row.expr_a, row.expr_b)))


def spelling_findings(config: str, texts: Mapping[str, Sequence[str]], columns: str) -> list[Finding]:
    """Rows (id → their CLadder strings) whose strings use a Unicode minus or close ``P(`` with ``]``."""
    checks = (
        ("a minus sign written as U+2212 (`−`)", lambda text: UNICODE_MINUS in text, "`-`"),
        ("a bracket closed by another kind (CLadder's `P(… ]`)", mismatched_brackets, "the bracket it closes"),
    )
    return [
        Finding(
            config,
            issue,
            f"kept verbatim in {columns}; the parser reads it as {reading}, so verdicts and scores are unaffected",
            ids=tuple(row_id for row_id, strings in texts.items() if any(test(s) for s in strings)),
        )
        for issue, test, reading in checks
    ]


def mismatched_brackets(text: str) -> bool:
    """Whether some ``)``, ``]`` or ``}`` closes a bracket of another kind (or none)."""
    stack: list[str] = []
    for char in text:
        if char in "([{":
            stack.append(char)
        elif char in _CLOSING and (not stack or stack.pop() != _CLOSING[char]):
            return True
    return False


def unobserved_estimand_findings(
    pairs: Sequence[CladderPair], questions: Sequence[CladderQuestionRow]
) -> list[Finding]:
    """CLadder's own pairs and questions whose estimand uses a node the story calls unobserved."""

    def hidden(estimand: str, latent: Sequence[str]) -> bool:
        parsed = try_parse(estimand)
        return parsed is not None and bool(variables(parsed) & set(latent))

    issue = (
        "CLadder's estimand uses a variable the story says is unobserved (V2 in the arrowhead `nde` / `nie` questions)"
    )
    question_ids = tuple(q.id for q in questions if hidden(q.estimand, q.latent))
    return [
        Finding(
            "cladder",
            issue,
            "kept; labeled on the same graph with every node modeled (whether two expressions are "
            "equal does not depend on what is observed); `latent` lists the node",
            ids=tuple(r.id for r in pairs if r.pair_kind == "formal_vs_estimand" and hidden(r.expr_b, r.latent)),
        ),
        Finding(
            "questions",
            issue,
            "kept; no expression over observed variables can equal such an estimand, so "
            "`causal-datasets eval cladder_pairs` leaves these questions out",
            ids=question_ids,
        ),
        Finding(
            "prompts",
            issue,
            "kept; `reference` is that estimand although the request lists the node as unobserved",
            ids=question_ids,
        ),
    ]
