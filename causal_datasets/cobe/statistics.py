"""Text statistics of CoBe scenarios, as the paper's Table 2: words, sentences and clauses per scenario.

Words are runs of letters, digits and apostrophes; sentences end at ``.``, ``!`` or ``?`` before
white space (:func:`causal_datasets.cobe.quality.sentences`); clauses are the stretches between
punctuation and the connectors that join clauses (and, but, because, so, while, when, which,
after, before, although, though) that hold a content word (:func:`causal_datasets.cobe.quality.clauses`).
The clause count is a heuristic, not a parse: it reads "bread and butter" as two clauses and a
clause joined without a connector as one, so compare it with the paper's figure as a rough check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from statistics import fmean

from causal_datasets.cobe.quality import clauses, sentences

_WORD = re.compile(r"[\w’']+")


def text_statistics(texts: Sequence[str]) -> dict[str, float | int | None]:
    """Scenarios, and mean words, sentences and clauses per scenario and clauses per sentence."""
    if not texts:
        return {
            "scenarios": 0,
            "words_per_scenario": None,
            "sentences_per_scenario": None,
            "clauses_per_scenario": None,
            "clauses_per_sentence": None,
        }
    words = [len(_WORD.findall(text)) for text in texts]
    sentence_counts = [len(sentences(text)) for text in texts]
    clause_counts = [len(clauses(text)) for text in texts]
    return {
        "scenarios": len(texts),
        "words_per_scenario": fmean(words),
        "sentences_per_scenario": fmean(sentence_counts),
        "clauses_per_scenario": fmean(clause_counts),
        "clauses_per_sentence": sum(clause_counts) / sum(sentence_counts) if sum(sentence_counts) else None,
    }
