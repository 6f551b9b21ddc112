"""The ReCAST paper's analyses of per-sample scores, as plain tables (the runner's slices and metrics).

Every table holds, per group, the number of samples and the mean and population SD of two scores:
``judge_f1`` (the paper's measure: the LLM judge's overall F1) and ``edge_f1_normalized``
(name-based edge F1, normalized names; what a run without a judge has). Groups:

* degree of confounding (Fig. 2 lenient, App. Fig. 9 strict) in bins that each hold about the same
  number of the dataset's samples (:func:`balanced_bins`: the paper divides samples "so that each is
  sufficiently large"; equal-width bins leave the top ones nearly empty). Bins come from the whole
  dataset, so runs on different subsets share them;
* domain (Fig. 4; Economics & Public Policy, which every sample has, left out) and number of
  other domains, ``0–1`` / ``2`` / ``3+`` (App. Table 2);
* publication before / from a cutoff date (App. Table 3), with the two-sided Mann–Whitney U test
  of the scores of the two groups (scipy);
* bottom vs top quartile of text length, edges and nodes (Table 4): the difference of the means
  (top − bottom) ± the SD of that difference for independent groups, √(SD²top + SD²bottom);
  quartile thresholds from the whole dataset; a sample equal to a threshold is in that quartile.

:func:`size_confounding_r2` is Fig. 3 / App. Figs. 6–7: R² of a least-squares line of the lenient
degree of confounding on log10 of text length, nodes and edges (scipy ``linregress``).
"""

from __future__ import annotations

import datetime
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, pstdev
from typing import Any

import numpy as np

from causal_datasets.recast.records import RecastSample

ECONOMICS = "Economics & Public Policy"
#: the per-sample scores every table summarises
SCORES = ("judge_f1", "edge_f1_normalized")
#: Table 4's size attributes
SIZE_ATTRIBUTES = ("text_length", "num_edges", "num_nodes")
#: App. Table 2's groups of the number of domains besides economics
DOMAIN_COUNT_GROUPS = ("0–1", "2", "3+")
#: the paper's knowledge-cutoff split (papers published 2024 and later are "recent")
DEFAULT_CUTOFF = datetime.date(2024, 1, 1)


@dataclass(frozen=True)
class Scored:
    """One scored sample: the record (for its attributes) and its scores (None: not available)."""

    sample: RecastSample
    scores: Mapping[str, float | None]


@dataclass(frozen=True)
class Bin:
    """Values from ``low`` to ``high`` (both inclusive, as in the dataset); ``size``: dataset samples in it."""

    low: float
    high: float
    size: int

    @property
    def label(self) -> str:
        return f"{self.low:.3f}–{self.high:.3f}"


# --- summaries ------------------------------------------------------------------------------------


def score_summary(rows: Sequence[Scored]) -> dict[str, float | int | None]:
    """``n`` and, per score, its mean, population SD and how many samples have it."""
    summary: dict[str, float | int | None] = {"n": len(rows)}
    for name in SCORES:
        values = [value for row in rows if (value := row.scores.get(name)) is not None]
        summary[name] = fmean(values) if values else None
        summary[f"{name}_sd"] = pstdev(values) if values else None
        summary[f"{name}_n"] = len(values)
    return summary


def grouped(
    rows: Sequence[Scored], keys: Callable[[RecastSample], Sequence[str]], order: Sequence[str]
) -> dict[str, dict]:
    """:func:`score_summary` per group; a sample is in every group ``keys`` names; groups in ``order``."""
    groups: dict[str, list[Scored]] = {key: [] for key in order}
    for row in rows:
        for key in keys(row.sample):
            groups.setdefault(key, []).append(row)
    return {key: score_summary(members) for key, members in groups.items()}


# --- degree of confounding ------------------------------------------------------------------------


def balanced_bins(values: Sequence[float], count: int) -> list[Bin]:
    """At most ``count`` bins of consecutive values, each closed once it holds its share of what is left.

    Equal values always share a bin, so a value held by many samples (strict confounding 0 is 42% of
    ReCAST) is one bin and the rest are split evenly; bins are never empty.
    """
    if count < 1:
        raise ValueError("need at least one bin")
    counts = Counter(values)
    remaining, bins_left = len(values), count
    bins: list[Bin] = []
    low: float | None = None
    size = 0
    for value in sorted(counts):
        if low is None:
            low = value
        size += counts[value]
        if bins_left > 1 and size >= remaining / bins_left:
            bins.append(Bin(low, value, size))
            remaining, bins_left, low, size = remaining - size, bins_left - 1, None, 0
    if size and low is not None:  # a bin is open (size > 0) only after its first value set low
        bins.append(Bin(low, max(counts), size))
    return bins


def bin_of(value: float, bins: Sequence[Bin]) -> Bin:
    """The bin holding ``value``: the first whose ``high`` is not below it (the last for anything above)."""
    return next((b for b in bins if value <= b.high), bins[-1])


def confounding_bins(dataset: Sequence[RecastSample], attribute: str, count: int) -> list[Bin]:
    """The balanced bins of ``attribute`` over the whole dataset (none when no sample has a value)."""
    values = [value for s in dataset if (value := getattr(s, attribute)) is not None]
    return balanced_bins(values, count) if values else []


def by_confounding(
    rows: Sequence[Scored], dataset: Sequence[RecastSample], attribute: str, count: int
) -> dict[str, dict]:
    """Scores per balanced bin of ``attribute`` (``confounding_lenient`` or ``confounding_strict``);
    each entry also says how many dataset samples its bin holds."""
    bins = confounding_bins(dataset, attribute, count)
    if not bins:
        return {}
    members: dict[str, list[Scored]] = {b.label: [] for b in bins}
    for row in rows:
        value = getattr(row.sample, attribute)
        if value is not None:
            members[bin_of(value, bins).label].append(row)
    return {b.label: {"dataset_n": b.size, **score_summary(members[b.label])} for b in bins}


# --- domains --------------------------------------------------------------------------------------


def other_domains(sample: RecastSample) -> list[str]:
    return [d for d in sample.domains if d != ECONOMICS]


def domain_count_group(sample: RecastSample) -> str:
    count = len(other_domains(sample))
    return "0–1" if count <= 1 else "2" if count == 2 else "3+"


def by_domain(rows: Sequence[Scored], domains: Sequence[str]) -> dict[str, dict]:
    """Scores per domain other than economics (a sample counts in each of its domains)."""
    return grouped(rows, other_domains, [d for d in domains if d != ECONOMICS])


def by_domain_count(rows: Sequence[Scored]) -> dict[str, dict]:
    return grouped(rows, lambda s: [domain_count_group(s)], DOMAIN_COUNT_GROUPS)


# --- knowledge cutoff -----------------------------------------------------------------------------


def cutoff_groups(cutoff: datetime.date) -> tuple[str, str]:
    return f"before {cutoff.isoformat()}", f"{cutoff.isoformat()} and later"


def cutoff_group(sample: RecastSample, cutoff: datetime.date) -> str | None:
    """The sample's side of ``cutoff`` (None: undated)."""
    if sample.publication_date is None:
        return None
    older, recent = cutoff_groups(cutoff)
    return recent if sample.publication_date >= cutoff else older


def by_cutoff(rows: Sequence[Scored], cutoff: datetime.date) -> dict[str, dict]:
    """Scores of samples published before ``cutoff`` and from it on (undated samples left out)."""
    dated = [row for row in rows if row.sample.publication_date is not None]
    return grouped(dated, lambda s: [group] if (group := cutoff_group(s, cutoff)) else [], cutoff_groups(cutoff))


def cutoff_test(rows: Sequence[Scored], cutoff: datetime.date) -> dict[str, float | int | None]:
    """Two-sided Mann–Whitney U of each score, recent vs older samples: ``<score>_u`` and ``<score>_p``
    (None when a group has no value)."""
    dated = [(row, date) for row in rows if (date := row.sample.publication_date) is not None]
    recent = [row for row, date in dated if date >= cutoff]
    older = [row for row, date in dated if date < cutoff]
    result: dict[str, float | int | None] = {"cutoff_year": cutoff.year, "recent_n": len(recent), "older_n": len(older)}
    for name in SCORES:
        test = mann_whitney([r.scores.get(name) for r in recent], [r.scores.get(name) for r in older])
        result[f"{name}_u"], result[f"{name}_p"] = test if test else (None, None)
    return result


def mann_whitney(first: Sequence[float | None], second: Sequence[float | None]) -> tuple[float, float] | None:
    """(U of the first group, two-sided p) of the Mann–Whitney U test; None when a group is empty."""
    a = [v for v in first if v is not None]
    b = [v for v in second if v is not None]
    if not a or not b:
        return None
    from scipy import stats  # scipy.stats takes half a second to import: only when a test is run

    result = stats.mannwhitneyu(a, b, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


# --- size -----------------------------------------------------------------------------------------


def by_size_quartile(rows: Sequence[Scored], dataset: Sequence[RecastSample]) -> dict[str, dict]:
    """Per size attribute: samples in the bottom and top quartile and, per score, top − bottom ± SD."""
    table: dict[str, dict] = {}
    for attribute in SIZE_ATTRIBUTES:
        q1, q3 = np.quantile([getattr(s, attribute) for s in dataset], [0.25, 0.75])
        bottom = score_summary([r for r in rows if getattr(r.sample, attribute) <= q1])
        top = score_summary([r for r in rows if getattr(r.sample, attribute) >= q3])
        entry: dict[str, Any] = {
            "bottom_max": float(q1),
            "top_min": float(q3),
            "bottom_n": bottom["n"],
            "top_n": top["n"],
        }
        for name in SCORES:
            high, low, high_sd, low_sd = top[name], bottom[name], top[f"{name}_sd"], bottom[f"{name}_sd"]
            if high is None or low is None or high_sd is None or low_sd is None:
                entry[f"{name}_difference"] = entry[f"{name}_difference_sd"] = None
            else:
                entry[f"{name}_difference"] = high - low
                entry[f"{name}_difference_sd"] = math.hypot(high_sd, low_sd)
        table[attribute] = entry
    return table


def size_confounding_r2(
    samples: Sequence[RecastSample], attribute: str = "confounding_lenient"
) -> dict[str, float | None]:
    """R² of ``attribute`` on log10 of each size attribute (None with fewer than 3 samples or constant values)."""
    from scipy import stats  # scipy.stats takes half a second to import: only when R² is computed

    result: dict[str, float | None] = {}
    for size in SIZE_ATTRIBUTES:
        pairs = [(getattr(s, size), getattr(s, attribute)) for s in samples if getattr(s, attribute) is not None]
        xs = [math.log10(x) for x, _ in pairs if x > 0]
        ys = [y for x, y in pairs if x > 0]
        if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
            result[size] = None
            continue
        result[size] = float(stats.linregress(xs, ys).rvalue ** 2)
    return result
