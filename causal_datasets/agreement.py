"""Agreement between raters beyond chance: Cohen's κ for two raters, Fleiss' κ for several.

Both are ``(p_o − p_e) / (1 − p_e)``: observed agreement against the agreement expected by chance
from the raters' label rates. They are undefined (``None``) when chance agreement is already
perfect (``p_e = 1``: every rating is the same label), never reported as 0 or 1 by default.

* :func:`cohen_kappa` — two raters, any labels; p_e from each rater's own rates (Cohen 1960).
  ReCAST's annotator check and CoBe's judge-vs-human agreement use it.
* :func:`cohen_kappa_counts` — the same for a binary confusion table (tp, fp, fn, tn), e.g. the
  directed pairs of two annotated graphs, where the negatives are counted rather than listed.
* :func:`fleiss_kappa` — several raters, each item rated by the same number of raters; p_e from
  the pooled label rates (Fleiss 1971). CoBe's three human raters are summarised by it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def _kappa(observed: float, chance: float) -> float | None:
    return (observed - chance) / (1 - chance) if chance < 1 else None


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two raters' labels for the same items (in the same order)."""
    if len(first) != len(second):
        raise ValueError(f"{len(first)} labels from the first rater but {len(second)} from the second")
    if not first:
        return None
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / n
    rates_a, rates_b = Counter(first), Counter(second)
    chance = sum(rates_a[label] * rates_b[label] for label in rates_a) / n**2
    return _kappa(observed, chance)


def cohen_kappa_counts(tp: int, fp: int, fn: int, tn: int) -> float | None:
    """Cohen's κ from a 2×2 table: ``tp`` both positive, ``fp`` only the first, ``fn`` only the second, ``tn`` neither."""
    n = tp + fp + fn + tn
    if n == 0:
        return None
    observed = (tp + tn) / n
    chance = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2
    return _kappa(observed, chance)


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' κ of ``ratings[item] = [label of rater 1, label of rater 2, ...]``.

    Every item needs the same number of ratings, at least two (a ``ValueError`` otherwise); which
    rater gave which label does not matter.
    """
    if not ratings:
        return None
    raters = len(ratings[0])
    if raters < 2 or any(len(item) != raters for item in ratings):
        raise ValueError("Fleiss' kappa needs the same number (at least 2) of ratings for every item")
    items = len(ratings)
    per_item = [Counter(item) for item in ratings]
    observed = sum(
        (sum(count * count for count in counts.values()) - raters) / (raters * (raters - 1)) for counts in per_item
    ) / items
    pooled = sum(per_item, Counter())
    chance = sum((count / (items * raters)) ** 2 for count in pooled.values())
    return _kappa(observed, chance)
