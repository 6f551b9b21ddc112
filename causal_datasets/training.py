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
import importlib.resources
from types import ModuleType
from typing import Any

from causal_datasets.errors import MissingExtra

#: padding, end of turn (also end of text), then one marker per role
SPECIAL_TOKENS = ("<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>")
CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


#: the special tokens of Qwen3's chat template (padding, end of turn, start of turn, then the tool and thinking tags)
TOOL_SPECIAL_TOKENS = (
    "<|endoftext|>", "<|im_end|>", "<|im_start|>", "<tool_call>", "</tool_call>", "<tool_response>",
    "</tool_response>", "<think>", "</think>",
)  # fmt: skip


def tiny_random_model(seed: int = 0) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a one-layer Llama (hidden size 16) with random weights from ``seed`` and
    its byte-level chat tokenizer, for ``GRPOTrainer(model=model, processing_class=tokenizer, ...)``."""
    return _tiny_model(seed, SPECIAL_TOKENS, CHAT_TEMPLATE)


def tiny_tool_model(seed: int = 0) -> tuple[Any, Any]:
    """The same tiny model with Qwen3's chat template (the copy TRL ships, ``trl/chat_templates/qwen3.jinja``),
    whose tool calls TRL knows how to parse: for ``GRPOTrainer``'s environment mode, where the model's
    messages reach an environment as tool calls."""
    template = importlib.resources.files("trl").joinpath("chat_templates", "qwen3.jinja").read_text()
    return _tiny_model(seed, TOOL_SPECIAL_TOKENS, template)


def one_step_config(output_dir: str, batch_size: int, max_completion_length: int, num_generations: int = 2) -> Any:
    """A ``GRPOConfig`` for one optimisation step on the CPU (seeded, nothing saved or reported): a dry run."""
    trl = _optional("trl")
    return trl.GRPOConfig(
        output_dir=output_dir,
        max_steps=1,
        per_device_train_batch_size=batch_size,
        num_generations=num_generations,
        max_completion_length=max_completion_length,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        seed=0,
        disable_tqdm=True,
    )


def _tiny_model(seed: int, special_tokens: tuple[str, ...], chat_template: str) -> tuple[Any, Any]:
    """The model and its tokenizer: the first special token pads, the second ends a turn and the text."""
    transformers, torch = _optional("transformers"), _optional("torch")
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=_byte_tokenizer(special_tokens),
        pad_token=special_tokens[0],
        eos_token=special_tokens[1],
        chat_template=chat_template,
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


def _byte_tokenizer(special_tokens: tuple[str, ...]) -> Any:
    """A BPE tokenizer without merges over the 256 byte symbols: any text encodes, nothing needs training."""
    tokenizers = _optional("tokenizers")
    alphabet = sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    vocab = {token: index for index, token in enumerate([*special_tokens, *alphabet])}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=vocab, merges=[]))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = tokenizers.decoders.ByteLevel()
    tokenizer.add_special_tokens(list(special_tokens))
    return tokenizer


def _optional(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtra("a dry-run training model", "train", module) from error
