"""Surface baselines for causal expressions (DoVerifier App. I): string match, BLEU and token F1.

They compare the text of two expressions, not their meaning: the verifier's point is how far they
are from it. All three see the same tokens: :func:`tokens` splits an expression into names,
numbers, LaTeX commands and single symbols, after :func:`normalize_string`'s spelling fixes.

* string match: equal after normalization (whitespace, one minus sign, round brackets);
* BLEU: sentence BLEU-4 over those tokens, uniform weights, brevity penalty, the "exp"
  smoothing of Chen & Cherry (2014, method 3) and orders beyond the prediction's length left out
  (sacrebleu's ``sentence_bleu`` on space-joined tokens gives the same number, on a 0–100 scale);
* token F1: F1 of the two token multisets (SQuAD style: 1 when both are empty, 0 when one is).
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

_SPACE = re.compile(r"\s+")
_SAME = str.maketrans({"−": "-", "–": "-", "[": "(", "]": ")", "×": "*", "·": "*", "Σ": "∑"})
_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z_][A-Za-z0-9_']*|\d+(?:\.\d+)?|\S")
MAX_ORDER = 4


def normalize_string(text: str) -> str:
    """The string-match baseline's normal form: no whitespace, one minus sign, round brackets."""
    return _SPACE.sub("", str(text).translate(_SAME))


def string_match(prediction: str, reference: str) -> bool:
    return normalize_string(prediction) == normalize_string(reference)


def tokens(text: str) -> list[str]:
    """``P(Y=1|do(X=0))`` → ``P ( Y = 1 | do ( X = 0 ) )``; ``\\sum_{V1}`` keeps ``\\sum`` whole."""
    return _TOKEN.findall(str(text).translate(_SAME))


def bleu(prediction: str, reference: str) -> float:
    """Sentence BLEU-4 of ``prediction`` against ``reference`` in [0, 1] (see the module)."""
    hyp, ref = _profile(prediction), _profile(reference)
    return _bleu(hyp, ref, _matches(hyp, ref))


def token_f1(prediction: str, reference: str) -> float:
    """F1 of the token multisets of the two expressions."""
    hyp, ref = _profile(prediction), _profile(reference)
    return _token_f1(hyp, ref, _matches(hyp, ref))


def surface_scores(prediction: str | None, reference: str) -> dict[str, float | bool]:
    """``string_match``, ``bleu`` and ``token_f1`` of one answer (no answer: all zero)."""
    if prediction is None:
        return {"string_match": False, "bleu": 0.0, "token_f1": 0.0}
    hyp, ref = _profile(prediction), _profile(reference)
    matches = _matches(hyp, ref)
    return {
        "string_match": string_match(prediction, reference),
        "bleu": _bleu(hyp, ref, matches),
        "token_f1": _token_f1(hyp, ref, matches),
    }


@dataclass(frozen=True)
class _Profile:
    """What the scores need of one text: its number of tokens and the counts of its 1- to 4-grams
    (the 1-grams are its token multiset)."""

    length: int
    grams: Counter[tuple[str, ...]]


@functools.lru_cache(maxsize=4096)
def _profile(text: str) -> _Profile:
    """Cached: a card scores a pair's start expression against both its proved and its mistaken end."""
    toks = tokens(text)
    grams = Counter(
        chain.from_iterable(zip(*(toks[i:] for i in range(n)), strict=False) for n in range(1, MAX_ORDER + 1))
    )
    return _Profile(len(toks), grams)


def _matches(hyp: _Profile, ref: _Profile) -> list[int]:
    """Clipped matches of the prediction's n-grams in the reference, for n = 1 .. MAX_ORDER."""
    matches = [0] * MAX_ORDER
    mine, theirs = hyp.grams, ref.grams
    for gram in mine.keys() & theirs.keys():
        matches[len(gram) - 1] += min(mine[gram], theirs[gram])
    return matches


def _bleu(hyp: _Profile, ref: _Profile, matches: list[int]) -> float:
    if not hyp.length or not ref.length or not matches[0]:  # no token in common: no n-gram either
        return 0.0
    logs, halving = [], 1.0
    for n, right in enumerate(matches, start=1):
        count = hyp.length - n + 1
        if count <= 0:  # the prediction is shorter than n: this order and the higher ones are left out
            break
        if right == 0:
            halving *= 2
            logs.append(math.log(1 / (halving * count)))
        else:
            logs.append(math.log(right / count))
    brevity = 1.0 if hyp.length >= ref.length else math.exp(1 - ref.length / hyp.length)
    return brevity * math.exp(sum(logs) / len(logs))


def _token_f1(hyp: _Profile, ref: _Profile, matches: list[int]) -> float:
    if not hyp.length or not ref.length:
        return float(not hyp.length and not ref.length)
    common = matches[0]  # clipped unigram matches: the size of the multisets' intersection
    if common == 0:
        return 0.0
    precision, recall = common / hyp.length, common / ref.length
    return 2 * precision * recall / (precision + recall)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
