"""A tiny randomly initialised chat model, for a dry run of a training recipe on the CPU, with no download.

:func:`tiny_random_model` returns a ``transformers`` Llama model of a few thousand parameters and a
byte-level tokenizer (each UTF-8 byte one token, plus the chat template's role markers), both made in
code: no file is read or downloaded. Its completions are noise and earn the lowest rewards; what a
dry run shows is that a trainer, a ``prompts`` config and a reward function fit together (the chat
template renders the ``prompt`` column, every other column reaches the reward function, an
optimisation step runs) before a real model spends hours on it. Needs the ``train`` extra (TRL,
which brings ``transformers``) and a ``torch`` build.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from causal_datasets.errors import MissingExtra

#: padding, end of turn (also end of text), then one marker per role
SPECIAL_TOKENS = ("<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>")
CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def tiny_random_model(seed: int = 0) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a one-layer Llama (hidden size 16) with random weights from ``seed`` and
    its byte-level chat tokenizer, for ``GRPOTrainer(model=model, processing_class=tokenizer, ...)``."""
    transformers, torch = _optional("transformers"), _optional("torch")
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=_byte_tokenizer(),
        pad_token="<|pad|>",
        eos_token="<|end|>",
        chat_template=CHAT_TEMPLATE,
    )
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=1 << 17,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    with torch.random.fork_rng(devices=[]):  # the caller's random state stays as it was
        torch.manual_seed(seed)
        model = transformers.LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer


def _byte_tokenizer() -> Any:
    """A BPE tokenizer without merges over the 256 byte symbols: any text encodes, nothing needs training."""
    tokenizers = _optional("tokenizers")
    alphabet = sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    vocab = {token: index for index, token in enumerate([*SPECIAL_TOKENS, *alphabet])}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=vocab, merges=[]))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = tokenizers.decoders.ByteLevel()
    tokenizer.add_special_tokens(list(SPECIAL_TOKENS))
    return tokenizer


def _optional(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtra("a dry-run training model", "train", module) from error
