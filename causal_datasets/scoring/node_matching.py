"""Match predicted node names to reference node names before graphs are compared.

Four modes (``NodeMatching``):

- ``exact``: a predicted node matches the reference node with the identical name. Names are
  whitespace-cleaned the way :class:`~causal_datasets.CausalGraph` cleans them (trimmed, inner
  runs collapsed to one space) before they get here; nothing else is forgiven.
- ``normalized``: names match when their :func:`normalize_name` keys are equal (case, Unicode
  form, punctuation, whitespace, simple plural/singular). Several predicted spellings of one
  reference node ("Price", "prices") are merged into that node, and a warning says so.
- ``fuzzy``: one-to-one. Exact names are paired first; the remaining names are paired by a
  Hungarian assignment (``scipy.optimize.linear_sum_assignment``) maximising the total
  similarity of their normalized keys, where a pair below ``threshold`` (or of similarity 0) may
  not be used. Similarity = max(``rapidfuzz.fuzz.ratio``, ``token_sort_ratio``) / 100: the first
  forgives typos, including a lost space, the second word order. Two predicted nodes never
  claim the same reference node.
- ``ids``: the ReCAST name-assisted task, where the model answers with node ids. ``node_ids``
  maps each id to its reference name (``{1: "supply", 2: "demand"}``); ids are compared as
  trimmed strings, so ``2``, ``"2"`` and ``" 2 "`` are the same id. A predicted token that is
  not an id in the table stays unmatched (a false-positive node) and is reported.

The result maps every *matched* predicted node to its reference name; predicted nodes absent
from the mapping are unmatched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

import numpy as np

NodeMatching = Literal["exact", "normalized", "fuzzy", "ids"]
NODE_MATCHING_MODES: tuple[str, ...] = get_args(NodeMatching)
DEFAULT_FUZZY_THRESHOLD = 0.8

_NON_WORD = re.compile(r"[\W_]+")
#: word endings that look plural but are not (``business``, ``status``, ``analysis``)
_NOT_PLURAL = ("ss", "us", "is")


@dataclass(frozen=True)
class NodeMatch:
    """How predicted nodes were paired with reference nodes."""

    mapping: dict[Hashable, Hashable]
    warnings: list[str] = field(default_factory=list)


def singular(word: str) -> str:
    """A simple English singular: ``policies``→``policy``, ``taxes``→``tax``, ``prices``→``price``.

    Words of three letters or fewer and words ending in ``ss``/``us``/``is`` are left alone.
    """
    if len(word) <= 3 or word.endswith(_NOT_PLURAL) or not word.endswith("s"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


def normalize_name(name: Hashable) -> str:
    """The key names are compared by in ``normalized`` and ``fuzzy`` matching.

    NFKC Unicode form, case-folded, every run of punctuation/underscores/whitespace replaced by
    one space, each word made singular by :func:`singular`. ``"Interest-Rates "`` → ``"interest rate"``.
    """
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    return " ".join(singular(word) for word in _NON_WORD.sub(" ", text).split())


def match_nodes(
    predicted: Sequence[Hashable],
    reference: Sequence[Hashable],
    mode: NodeMatching = "exact",
    *,
    threshold: float = DEFAULT_FUZZY_THRESHOLD,
    node_ids: Mapping[Hashable, str] | None = None,
) -> NodeMatch:
    """Pair predicted node names with reference node names (see the module docstring for modes).

    ``predicted`` and ``reference`` are distinct names in a deterministic order (first appearance);
    ties in ``fuzzy`` matching are broken by that order.
    """
    if mode == "exact":
        in_reference = set(reference)
        return NodeMatch({name: name for name in predicted if name in in_reference})
    if mode == "normalized":
        return _match_normalized(predicted, reference)
    if mode == "fuzzy":
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"fuzzy threshold must be within [0, 1], got {threshold}")
        return _match_fuzzy(predicted, reference, threshold)
    if mode == "ids":
        if node_ids is None:
            raise ValueError("node_matching='ids' needs node_ids={id: reference name}")
        return _match_ids(predicted, reference, node_ids)
    raise ValueError(f"unknown node_matching {mode!r}; choose one of {list(NODE_MATCHING_MODES)}")


def _match_normalized(predicted: Sequence[Hashable], reference: Sequence[Hashable]) -> NodeMatch:
    by_key: dict[str, Hashable] = {}
    warnings: list[str] = []
    for name in reference:
        key = normalize_name(name)
        if key in by_key:
            warnings.append(
                f"reference nodes {by_key[key]!r} and {name!r} are the same after normalization; "
                f"predicted variants go to {by_key[key]!r}"
            )
            continue
        by_key[key] = name
    in_reference = set(reference)
    mapping: dict[Hashable, Hashable] = {}
    for name in predicted:
        target = name if name in in_reference else by_key.get(normalize_name(name))
        if target is not None:
            mapping[name] = target
    warnings.extend(_merge_warnings(mapping))
    return NodeMatch(mapping, warnings)


def _merge_warnings(mapping: Mapping[Hashable, Hashable]) -> list[str]:
    """One warning per reference node that received more than one predicted name."""
    claimed: dict[Hashable, list[Hashable]] = {}
    for source, target in mapping.items():
        claimed.setdefault(target, []).append(source)
    return [
        f"predicted nodes {names!r} were merged into reference node {target!r}"
        for target, names in claimed.items()
        if len(names) > 1
    ]


def _match_fuzzy(
    predicted: Sequence[Hashable], reference: Sequence[Hashable], threshold: float
) -> NodeMatch:
    # imported here: ``import causal_datasets`` should not pay for scipy.optimize and rapidfuzz
    from rapidfuzz import fuzz, process
    from scipy.optimize import linear_sum_assignment

    in_reference = set(reference)
    mapping = {name: name for name in predicted if name in in_reference}
    rest_predicted = [name for name in predicted if name not in mapping]
    rest_reference = [name for name in reference if name not in mapping]
    if rest_predicted and rest_reference:
        keys = [normalize_name(name) for name in rest_predicted]
        reference_keys = [normalize_name(name) for name in rest_reference]
        scores = np.maximum(
            process.cdist(keys, reference_keys, scorer=fuzz.ratio, dtype=np.float64),
            process.cdist(keys, reference_keys, scorer=fuzz.token_sort_ratio, dtype=np.float64),
        ) / 100.0
        allowed = np.where(scores >= threshold, scores, 0.0)
        rows, cols = linear_sum_assignment(allowed, maximize=True)
        for row, col in zip(rows.tolist(), cols.tolist()):
            if allowed[row, col] > 0.0:
                mapping[rest_predicted[row]] = rest_reference[col]
    return NodeMatch(mapping)


def _id_key(token: Hashable) -> str:
    return str(token).strip()


def id_table(node_ids: Mapping[Hashable, str]) -> dict[str, str]:
    """``{id as text: reference name}``; ``ValueError`` for an id given twice with different names,
    ``TypeError`` for a table that is not a mapping."""
    if not isinstance(node_ids, Mapping):
        raise TypeError(f"node_ids must be a mapping {{id: reference name}}, not {type(node_ids).__name__}")
    table: dict[str, str] = {}
    for key, name in node_ids.items():
        if _id_key(key) in table and table[_id_key(key)] != name:
            raise ValueError(f"node id {key!r} is given twice with different names")
        table[_id_key(key)] = name
    return table


def _match_ids(
    predicted: Sequence[Hashable], reference: Sequence[Hashable], node_ids: Mapping[Hashable, str]
) -> NodeMatch:
    table = id_table(node_ids)
    warnings: list[str] = []
    in_reference = set(reference)
    outside = sorted({name for name in table.values() if name not in in_reference}, key=str)
    if outside:
        warnings.append(f"node_ids names not in the reference graph: {preview(outside)}")
    mapping: dict[Hashable, Hashable] = {}
    unknown: list[Hashable] = []
    for token in predicted:
        found = table.get(_id_key(token))
        if found is None:
            unknown.append(token)
        else:
            mapping[token] = found
    if unknown:
        warnings.append(f"{len(unknown)} predicted node id(s) not in node_ids: {preview(unknown)}")
    warnings.extend(_merge_warnings(mapping))
    return NodeMatch(mapping, warnings)


def preview(items: Iterable[Hashable], limit: int = 5) -> str:
    """``'a', 'b', … (+3 more)`` for warnings that must stay short."""
    items = list(items)
    shown = ", ".join(repr(item) for item in items[:limit])
    return shown + (f", … (+{len(items) - limit} more)" if len(items) > limit else "")
