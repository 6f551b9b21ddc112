"""One real TRL ``GRPOTrainer`` step per reward function, on rows of the built training-ready configs, with
a tiny random model made in code (CPU only, no download): the rows are in the format TRL reads, every
column a reward function needs reaches it, and each row's own reference earns the full reward."""

from __future__ import annotations

import inspect
import json
import sys

import datasets
import pytest
import torch
from trl import GRPOTrainer

from causal_datasets import rewards
from causal_datasets.errors import MissingExtra
from causal_datasets.registry import get_builder
from causal_datasets.training import one_step_config, tiny_random_model
from tests.support.prompt_builds import prompt_builds

ROWS = 4  # two prompts per step, two generations each


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return prompt_builds(tmp_path_factory.mktemp("hub"))


def shortest(rows: datasets.Dataset, n: int) -> datasets.Dataset:
    """The ``n`` rows with the shortest prompts (ReCAST's papers run to 170,000 characters), in their order."""
    length = [sum(len(message["content"]) for message in prompt) for prompt in rows["prompt"]]
    return rows.select(sorted(sorted(range(len(rows)), key=lambda index: length[index])[:n]))


def test_every_reward_function_has_a_config_of_prompts_it_scores():
    functions = {
        function
        for name, function in inspect.getmembers(rewards, inspect.isfunction)
        if name.endswith("_reward") and function.__module__ == rewards.__name__
    }
    assert functions == set(rewards.PROMPTS_CONFIGS)
    for dataset, config in rewards.PROMPTS_CONFIGS.values():
        assert "prompt" in get_builder(dataset).configs[config].features()


def test_the_dry_run_model_is_the_same_for_a_seed_and_reads_any_text():
    (first, tokenizer), (second, _) = tiny_random_model(seed=1), tiny_random_model(seed=1)
    assert all(
        torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values(), strict=True)
    )
    assert not torch.equal(first.lm_head.weight, tiny_random_model(seed=2)[0].lm_head.weight)
    text = "Estimand: \\sum_{V1=v} P(V1=v) → ü"
    assert tokenizer.decode(tokenizer(text)["input_ids"]) == text
    chat = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Is it?"}], tokenize=False, add_generation_prompt=True
    )
    assert chat == "<|user|>Is it?<|end|><|assistant|>"


@pytest.mark.parametrize("reward", list(rewards.PROMPTS_CONFIGS), ids=lambda reward: reward.__name__)
def test_one_grpo_step_on_the_config_the_reward_scores(hub, tmp_path, reward):
    dataset, config = rewards.PROMPTS_CONFIGS[reward]
    rows = shortest(datasets.load_dataset(str(hub / dataset), config, split="test"), ROWS)
    calls = []

    def recorded(prompts, completions, **columns):
        scores = reward(prompts, completions, **columns)
        calls.append((prompts, completions, columns, scores))
        return scores

    recorded.__name__ = reward.__name__  # TRL logs the reward under its function's name
    model, tokenizer = tiny_random_model()
    args = one_step_config(str(tmp_path), batch_size=ROWS, max_completion_length=8)
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=recorded, train_dataset=rows, args=args)
    trainer.train()

    assert trainer.state.global_step == 1
    ((prompts, completions, columns, scores),) = calls
    assert len(prompts) == len(completions) == ROWS
    by_prompt = {json.dumps(row["prompt"]): row for row in rows}
    for index, prompt in enumerate(prompts):
        row = by_prompt[json.dumps(prompt)]  # the row's prompt, as the config holds it
        assert {name: columns[name][index] for name in row if name != "prompt"} == {
            name: value for name, value in row.items() if name != "prompt"
        }
        assert [message["role"] for message in completions[index]] == ["assistant"]  # conversational completions
    references = [[{"role": "assistant", "content": reference}] for reference in columns["reference"]]
    assert reward(prompts, references, **columns) == [1.0] * ROWS  # no row the reward cannot be earned on
    assert trainer.state.log_history[0][f"rewards/{reward.__name__}/mean"] == pytest.approx(sum(scores) / ROWS)


def test_the_dry_run_model_names_its_extra_when_transformers_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # what `import transformers` sees when it is not installed
    with pytest.raises(MissingExtra, match=r"pip install 'causal-datasets\[train\]'"):
        tiny_random_model()
