"""BERTScore (Zhang et al., 2020) with any encoder ``transformers`` can load, as the ``bert-score`` package
defines it.

Each sentence is encoded as bert-score does (stripped; the tokenizer's special tokens added; an empty
sentence is the special tokens alone; byte-level BPE tokenizers with a leading space) and embedded by
the encoder's layer ``num_layers`` (its hidden state after that many layers; None: the last). Each
candidate token is matched to its most similar reference token by cosine similarity (precision), each
reference token to its most similar candidate token (recall), every token taking part in the matching
but the special tokens weighing nothing; the weights are 1, or with ``idf`` the inverse document
frequencies over the references, ``log((M + 1) / (m_w + 1))`` for a token in ``m_w`` of the ``M``
references (``log(M + 1)`` for one in none). F1 is their harmonic mean (0 when both are 0); a
candidate (reference) with no token has precision (recall) 0. ``baseline`` rescales each score ``s``
to ``(s - b) / (1 - b)`` with the baseline ``b`` of precision, recall and F1 (bert-score's
``rescale_with_baseline``, whose baselines are per model and layer).

One difference, on purpose: the maximum runs over the sentence's tokens only, where bert-score's batches
let a padded position (similarity 0) win when every similarity of a token is negative; on a batch of one
pair, or when similarities are positive as with trained encoders, the numbers are bert-score's.
(``tests/scoring/test_bertscore.py`` compares both on a random BERT.)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from causal_datasets.errors import CausalDatasetsError, MissingExtra

#: sentences embedded per forward pass
BATCH = 32


class BertScoreModelError(CausalDatasetsError):
    """The encoder named for BERTScore cannot be loaded, or has no layer ``num_layers``."""


@dataclass(frozen=True)
class BertScores:
    """Precision, recall and F1 of each candidate against its reference, in order."""

    precision: list[float]
    recall: list[float]
    f1: list[float]


@dataclass(frozen=True)
class _Encoder:
    tokenizer: Any
    model: Any
    layers: int
    #: tokens a sentence keeps (the tokenizer's limit, or the model's positions when the tokenizer has none)
    max_tokens: int


def score(
    candidates: Sequence[str],
    references: Sequence[str],
    model: str,
    num_layers: int | None = None,
    idf: bool = False,
    baseline: tuple[float, float, float] | None = None,
) -> BertScores:
    """BERTScore of each candidate against the reference at the same position (see the module); ``model``: a
    folder or a Hugging Face model id."""
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates for {len(references)} references")
    encoder = load_encoder(model)
    layer = check_layer(model, num_layers)
    special = {encoder.tokenizer.cls_token_id, encoder.tokenizer.sep_token_id} - {None}
    weights = _idf(encoder, references) if idf else None
    ids = {text: _encode(encoder, text) for text in dict.fromkeys([*candidates, *references])}
    embedded = _embed(encoder, list(ids.values()), layer)
    vectors = dict(zip(ids, embedded, strict=True))
    precision, recall, f1 = [], [], []
    for candidate, reference in zip(candidates, references, strict=True):
        p, r, f = _pair(vectors[candidate], ids[candidate], vectors[reference], ids[reference], weights, special)
        if baseline is not None:
            p, r, f = ((s - b) / (1 - b) for s, b in zip((p, r, f), baseline, strict=True))
        precision.append(p)
        recall.append(r)
        f1.append(f)
    return BertScores(precision, recall, f1)


def check_layer(model: str, num_layers: int | None) -> int:
    """The layer BERTScore reads from ``model`` (None: its last), once the encoder loads; else
    :class:`BertScoreModelError`."""
    layers = load_encoder(model).layers
    if num_layers is not None and not 0 <= num_layers <= layers:
        raise BertScoreModelError(f"{model} has layers 0 to {layers}, not {num_layers}")
    return layers if num_layers is None else num_layers


@lru_cache(maxsize=2)
def load_encoder(model: str) -> _Encoder:
    """The tokenizer and encoder of ``model``, loaded once per process."""
    try:
        import torch  # noqa: F401  (transformers' models need it)
        from transformers import AutoModel, AutoTokenizer
    except ImportError as missing:
        raise MissingExtra("BERTScore", "local", missing.name or "transformers") from None
    try:
        tokenizer = AutoTokenizer.from_pretrained(model)
        encoder = AutoModel.from_pretrained(model).eval()
    except (OSError, ValueError) as problem:
        raise BertScoreModelError(f"cannot load {model!r} for BERTScore: {problem}".splitlines()[0]) from None
    positions = getattr(encoder.config, "max_position_embeddings", None) or tokenizer.model_max_length
    return _Encoder(
        tokenizer, encoder, int(encoder.config.num_hidden_layers), min(tokenizer.model_max_length, positions)
    )


def _encode(encoder: _Encoder, text: str) -> list[int]:
    """bert-score's ``sent_encode``: the token ids of the stripped sentence, special tokens included."""
    tokenizer, text = encoder.tokenizer, text.strip()
    if not text:
        return list(tokenizer.build_inputs_with_special_tokens([]))
    byte_level = any(c.__name__.startswith(("GPT2Tokenizer", "RobertaTokenizer")) for c in type(tokenizer).__mro__)
    extra = {"add_prefix_space": True} if byte_level else {}
    return list(
        tokenizer.encode(text, add_special_tokens=True, max_length=encoder.max_tokens, truncation=True, **extra)
    )


def _embed(encoder: _Encoder, sentences: list[list[int]], layer: int) -> list[Any]:
    """Each sentence's unit-length token vectors at ``layer`` (a tensor of tokens × dimensions)."""
    import torch

    pad = encoder.tokenizer.pad_token_id or 0
    out = []
    with torch.inference_mode():
        for start in range(0, len(sentences), BATCH):
            batch = sentences[start : start + BATCH]
            width = max(len(ids) for ids in batch)
            ids = torch.tensor([s + [pad] * (width - len(s)) for s in batch])
            mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in batch])
            states = encoder.model(ids, attention_mask=mask, output_hidden_states=True).hidden_states[layer]
            for row, s in zip(states, batch, strict=True):
                vectors = row[: len(s)].double()
                out.append(vectors / vectors.norm(dim=-1, keepdim=True))
    return out


class _Weights(dict[int, float]):
    """Weights by token id, ``unseen`` for a token not among them."""

    def __init__(self, unseen: float, known: dict[int, float]):
        super().__init__(known)
        self.unseen = unseen

    def __missing__(self, token: int) -> float:
        return self.unseen


def _idf(encoder: _Encoder, references: Sequence[str]) -> _Weights:
    """bert-score's idf weights of the references' tokens (a token in none: ``log(M + 1)``)."""
    counts: Counter[int] = Counter()
    for reference in references:
        counts.update(set(_encode(encoder, reference)))
    documents = len(references)
    return _Weights(
        math.log(documents + 1), {token: math.log((documents + 1) / (n + 1)) for token, n in counts.items()}
    )


def _pair(
    cand: Any, cand_ids: list[int], ref: Any, ref_ids: list[int], weights: dict[int, float] | None, special: set[int]
) -> tuple[float, float, float]:
    """Greedy-matching precision, recall and F1 of one candidate against one reference."""
    similarity = cand @ ref.T
    p = _weighted(similarity.max(dim=1).values.tolist(), cand_ids, weights, special)
    r = _weighted(similarity.max(dim=0).values.tolist(), ref_ids, weights, special)
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def _weighted(best: list[float], ids: list[int], weights: dict[int, float] | None, special: set[int]) -> float:
    scale = [0.0 if token in special else (weights[token] if weights is not None else 1.0) for token in ids]
    total = sum(scale)
    return sum(b * w for b, w in zip(best, scale, strict=True)) / total if total else 0.0
