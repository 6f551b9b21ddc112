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

import math
import re
from collections import Counter
from collections.abc import Sequence

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
    return _bleu(tokens(prediction), tokens(reference))


def _bleu(hyp: list[str], ref: list[str]) -> float:
    if not hyp or not ref:
        return 0.0
    correct, total = [], []
    for n in range(1, MAX_ORDER + 1):
        hyp_grams = Counter(zip(*(hyp[i:] for i in range(n))))  # the n-grams
        ref_grams = Counter(zip(*(ref[i:] for i in range(n))))
        correct.append(sum((hyp_grams & ref_grams).values()))  # clipped matches
        total.append(max(len(hyp) - n + 1, 0))
    if not any(correct):
        return 0.0
    logs, halving = [], 1.0
    for right, count in zip(correct, total):
        if count == 0:  # the prediction is shorter than n: this order and the higher ones are left out
            break
        if right == 0:
            halving *= 2
            logs.append(math.log(1 / (halving * count)))
        else:
            logs.append(math.log(right / count))
    brevity = 1.0 if len(hyp) >= len(ref) else math.exp(1 - len(ref) / len(hyp))
    return brevity * math.exp(sum(logs) / len(logs))


def token_f1(prediction: str, reference: str) -> float:
    """F1 of the token multisets of the two expressions."""
    return _token_f1(tokens(prediction), tokens(reference))


def _token_f1(hyp_tokens: list[str], ref_tokens: list[str]) -> float:
    hyp, ref = Counter(hyp_tokens), Counter(ref_tokens)
    if not hyp or not ref:
        return float(not hyp and not ref)
    common = sum((hyp & ref).values())
    if common == 0:
        return 0.0
    precision, recall = common / sum(hyp.values()), common / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


def surface_scores(prediction: str | None, reference: str) -> dict[str, float | bool]:
    """``string_match``, ``bleu`` and ``token_f1`` of one answer (no answer: all zero)."""
    if prediction is None:
        return {"string_match": False, "bleu": 0.0, "token_f1": 0.0}
    hyp, ref = tokens(prediction), tokens(reference)  # once for both scores
    return {"string_match": string_match(prediction, reference), "bleu": _bleu(hyp, ref), "token_f1": _token_f1(hyp, ref)}


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
