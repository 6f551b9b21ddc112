"""Chat completions from a GGUF model on the CPU, with ``transformers`` and ``torch`` (wheels only, no compiler).

``transformers`` reads the GGUF file (dequantized to float32 by the ``gguf`` package) and its tokenizer and chat
template. A request is answered as llama-cpp-python's server answered it, for the bundled model's replies to
stay what they were: the model's chat template with the generation prompt, the prompt tokenized with its
special tokens and no BOS added, generation until an end-of-generation token or a stop string (the
end-of-sequence text, or one the request gives), and llama-cpp-python's sampling: a repeat penalty of 1.1 over
the last 64 generated tokens, then greedy at temperature 0, else top-k 40, top-p 0.95, min-p 0.05, the
temperature and a seeded draw.

**A reply is a function of the request alone.** The KV cache keeps the tokens of the previous request; a
new prompt reuses only whole batches of the prefix it shares with them (:func:`reusable_prefix`) and is
evaluated from there in the batches a fresh evaluation makes, on a fixed number of threads, so its logits are
the same bits as when it is asked first, while a long system prompt that requests share is not evaluated
again each time (a 900-token prompt takes 10-30 s on one busy core).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: llama-cpp-python's sampling defaults, kept so the bundled model answers as it did behind its server
REPEAT_PENALTY = 1.1
REPEAT_LAST_N = 64
TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05
#: prompt tokens per forward pass: the unit of the KV cache's reuse between requests
BATCH = 128
#: token texts that end a generation (llama.cpp's end-of-generation tokens), where the vocabulary has them
END_OF_GENERATION = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "<end_of_turn>")


class ContextOverflow(ValueError):
    """The prompt does not fit the model's context window (the server's 400)."""


def reusable_prefix(cached: Sequence[int], prompt: Sequence[int], batch: int) -> int:
    """How many leading tokens of ``prompt`` may come from the KV cache of ``cached`` (the tokens evaluated
    before): the shared prefix cut down to whole batches of ``batch`` tokens, and never the whole prompt.
    Evaluated from there in batches of ``batch``, the prompt goes through exactly the batches a fresh
    evaluation makes, so the logits are the same bits."""
    shared = 0
    for before, now in zip(cached, prompt, strict=False):
        if before != now:
            break
        shared += 1
    keep = shared // batch * batch
    return keep - batch if keep >= len(prompt) else keep


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (end of generation or a stop string) or "length"


def penalize_repeats(logits: Any, generated: Sequence[int]) -> Any:
    """llama.cpp's repeat penalty: each token among the last :data:`REPEAT_LAST_N` generated ones has its
    logit divided by :data:`REPEAT_PENALTY` when positive, multiplied by it otherwise."""
    recent = sorted(set(generated[-REPEAT_LAST_N:]))
    if not recent:
        return logits
    import torch

    logits = logits.clone()
    values = logits[recent]
    logits[recent] = torch.where(values > 0, values / REPEAT_PENALTY, values * REPEAT_PENALTY)
    return logits


def sample(logits: Any, temperature: float, generator: Any) -> int:
    """Greedy at temperature 0; else top-k, top-p and min-p on the probabilities, then a draw at
    ``temperature`` with ``generator``."""
    import torch

    if temperature <= 0:
        return int(torch.argmax(logits))
    top, ids = torch.topk(logits, min(TOP_K, logits.numel()))
    probs = torch.softmax(top, dim=-1)
    before = torch.cumsum(probs, dim=-1) - probs  # kept while the mass before a token is under top-p
    keep = (before < TOP_P) & (probs >= MIN_P * probs[0])
    keep[0] = True
    weights = torch.softmax(top[keep] / temperature, dim=-1)
    return int(ids[keep][torch.multinomial(weights, 1, generator=generator)])


class GGUFChat:
    """One GGUF model; :meth:`complete` answers one request at a time (a lock)."""

    def __init__(self, path: Path, *, n_ctx: int = 4096, threads: int = 1, batch: int = BATCH):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging

        logging.disable_progress_bar()
        torch.set_num_threads(threads)
        self.n_ctx, self.batch = n_ctx, batch
        self._lock = threading.Lock()
        self._cache: Any = None  # a transformers DynamicCache of the tokens in self._cached
        self._cached: list[int] = []
        self.tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        self.model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name).eval()
        vocab = self.tokenizer.get_vocab()
        self.eos_token = self.tokenizer.eos_token or ""
        self.end_ids = {vocab[text] for text in END_OF_GENERATION if text in vocab}
        if self.tokenizer.eos_token_id is not None:
            self.end_ids.add(self.tokenizer.eos_token_id)

    def prompt(self, messages: list[dict[str, Any]]) -> str:
        """The messages through the model's chat template, ready for the assistant's reply."""
        return str(self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False))

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text``, its special-token texts as those tokens, no BOS added."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int | None,
        temperature: float = 0.0,
        seed: int = 0,
        stop: Sequence[str] = (),
    ) -> Completion:
        prompt = self.tokenize(self.prompt(messages))
        if len(prompt) >= self.n_ctx:
            raise ContextOverflow(f"Requested tokens ({len(prompt)}) exceed context window of {self.n_ctx}")
        room = self.n_ctx - len(prompt)
        limit = room if max_tokens is None or max_tokens <= 0 else min(max_tokens, room)
        stops = [text for text in (self.eos_token, *stop) if text]
        with self._lock:
            text, count, finish = self._generate(prompt, limit, stops, temperature, seed)
        return Completion(text, len(prompt), count, finish)

    def _generate(
        self, prompt: list[int], limit: int, stops: list[str], temperature: float, seed: int
    ) -> tuple[str, int, str]:
        """Up to ``limit`` tokens after ``prompt``: the text (cut at the first stop string), how many tokens
        were generated, and the finish reason."""
        import torch

        generator = torch.Generator().manual_seed(seed & 0xFFFFFFFF)
        generated: list[int] = []
        text = ""
        try:
            with torch.inference_mode():
                logits = self._evaluate(prompt)
                for _ in range(limit):
                    token = sample(penalize_repeats(logits, generated), temperature, generator)
                    if token in self.end_ids:
                        return text, len(generated), "stop"
                    generated.append(token)
                    text = str(self.tokenizer.decode(generated))
                    cut = min((text.find(stop) for stop in stops if stop in text), default=-1)
                    if cut >= 0:
                        return text[:cut], len(generated), "stop"
                    logits = self._forward([token])
        except BaseException:
            self._cache, self._cached = None, []  # the cache may hold part of a step: start afresh next time
            raise
        return text, len(generated), "length"

    def _evaluate(self, prompt: list[int]) -> Any:
        """The next-token logits after ``prompt``: whole batches of the prefix it shares with the cache kept, the
        rest evaluated in the batches a fresh evaluation makes."""
        from transformers import DynamicCache

        keep = reusable_prefix(self._cached, prompt, self.batch)
        if keep == 0:
            self._cache = DynamicCache()
        else:
            self._cache.crop(keep - len(self._cached))
        self._cached = prompt[:keep]
        for start in range(keep, len(prompt), self.batch):
            logits = self._forward(prompt[start : start + self.batch])
        return logits

    def _forward(self, tokens: list[int]) -> Any:
        """Evaluate ``tokens`` after the cached ones; the logits of the next token."""
        import torch

        output = self.model(input_ids=torch.tensor([tokens]), past_key_values=self._cache, use_cache=True)
        self._cached.extend(tokens)
        return output.logits[0, -1].float()
