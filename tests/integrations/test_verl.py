"""``export-rl --format verl`` rows scored by ``compute_score`` as verl's own reward loader loads it.

verl 0.9.1 pins ``transformers<5.11`` (hence ``huggingface_hub<2``), which this package's stack cannot take, so
``scripts/test.sh`` installs it with ``--no-deps`` (its loader needs only ``omegaconf`` and ``tensordict``, in the
test extra): ``verl.trainer.ppo.reward.get_custom_reward_fn`` reads ``reward.custom_reward_function``'s ``path``
and ``name`` as ``export-rl`` prints them, loads the file and gives the function verl's reward manager calls.
"""

from __future__ import annotations

import pandas as pd
import pytest

from causal_datasets import gym
from causal_datasets.cli import main
from causal_datasets.integrations import verl
from tests.support.prompt_builds import prompt_builds

COLUMNS = ["data_source", "prompt", "ability", "reward_model", "extra_info"]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return prompt_builds(tmp_path_factory.mktemp("hub"))


def load_with_verl(settings: dict[str, str]):
    """The reward function verl's trainer takes from the ``reward.custom_reward_function.*`` settings."""
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    config = OmegaConf.create(
        {
            "reward": {
                "custom_reward_function": {
                    "path": settings["reward.custom_reward_function.path"],
                    "name": settings["reward.custom_reward_function.name"],
                }
            }
        }
    )
    return get_custom_reward_fn(config)


def exported(argv, capsys) -> tuple[pd.DataFrame, object]:
    assert main(["export-rl", *argv]) == 0
    printed = capsys.readouterr().out
    settings = dict(part.split("=", 1) for part in printed.split("verl: ", 1)[1].split())
    assert settings["reward.custom_reward_function.name"] == "compute_score"
    rows = pd.read_parquet(settings["data.train_files"])
    return rows, load_with_verl(settings)


def check_rows(rows: pd.DataFrame, compute_score, data_source: str, limit: int) -> None:
    assert list(rows.columns) == COLUMNS and len(rows) > 0
    for _, row in rows.head(limit).iterrows():
        assert row["data_source"] == data_source and row["ability"] == verl.ABILITY
        assert row["reward_model"]["style"] == "rule"
        assert {m["role"] for m in row["prompt"]} <= {"system", "user", "assistant"} and row["prompt"][-1][
            "role"
        ] == "user"
        truth, info = row["reward_model"]["ground_truth"], dict(row["extra_info"])
        assert compute_score(row["data_source"], truth, truth, info) == 1.0
        assert compute_score(row["data_source"], "", truth, info) == 0.0
        assert (
            compute_score(data_source=row["data_source"], solution_str="no idea", ground_truth=truth, extra_info=info)
            == 0.0
        )


@pytest.mark.parametrize(("dataset", "config"), sorted(verl.REWARDS))
def test_every_scored_prompts_config_exports_and_scores(hub, tmp_path, capsys, dataset, config):
    rows, compute_score = exported(
        [dataset, "--config", config, "--hub-dir", str(hub), "--out", str(tmp_path / "out")], capsys
    )
    check_rows(rows, compute_score, f"causal_datasets/{dataset}/{config}", limit=15)


@pytest.mark.parametrize("name", gym.names())
def test_every_gym_generator_exports_and_scores(tmp_path, capsys, name):
    rows, compute_score = exported(["gym", "--config", name, "--size", "6", "--out", str(tmp_path)], capsys)
    assert len(rows) == 6
    check_rows(rows, compute_score, f"causal_datasets/gym/{name}", limit=6)
    assert rows["extra_info"].iloc[3]["id"] == f"{name}-0-3"


def test_difficulty_and_its_errors(tmp_path, capsys):
    rows, _ = exported(
        ["gym", "--config", "identification", "--size", "2", "--difficulty", "latents=0", "--out", str(tmp_path)],
        capsys,
    )
    assert '"latents": 0' in rows["extra_info"].iloc[0]["columns"]
    assert (
        main(["export-rl", "gym", "--config", "identification", "--difficulty", "latents", "--out", str(tmp_path)]) == 2
    )
    assert (
        main(["export-rl", "gym", "--config", "identification", "--difficulty", "latents=99", "--out", str(tmp_path)])
        == 2
    )
    assert main(["export-rl", "gym", "--config", "nope", "--out", str(tmp_path)]) == 2
    assert "error:" in capsys.readouterr().err


def test_an_unscored_config_or_data_source_is_refused(hub, tmp_path, capsys):
    assert (
        main(["export-rl", "cladder_pairs", "--config", "synthetic", "--hub-dir", str(hub), "--out", str(tmp_path)])
        == 2
    )
    assert "no reward scores cladder_pairs/synthetic" in capsys.readouterr().err
    with pytest.raises(verl.UnknownDataSource):
        verl.compute_score("openai/gsm8k", "42", "42")
