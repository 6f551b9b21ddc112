"""A tiny random BERT (3 layers of width 32, a 30-token WordPiece vocabulary) saved as a model folder, for
BERTScore tests without a network."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import BertConfig, BertModel, BertTokenizer

WORDS = ["p", "y", "x", "z", "v1", "v2", "do", "sum", "the", "cat", "sat", "on", "mat", "a", "dog", "ran"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "(", ")", "|", "=", ",", "+", "-", *WORDS, "##s", "##1"]
#: 3 layers of width 32: a few thousand parameters
SIZES = {
    "hidden_size": 32,
    "num_hidden_layers": 3,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
}


def write_tiny_bert(folder: Path, seed: int = 46) -> str:
    """The model folder (tokenizer and random weights from ``seed``) written into ``folder``."""
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    BertTokenizer(str(folder / "vocab.txt"), model_max_length=64).save_pretrained(folder)
    torch.manual_seed(seed)
    BertModel(BertConfig(vocab_size=len(VOCAB), **SIZES)).save_pretrained(folder)
    return str(folder)
