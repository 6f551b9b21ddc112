"""ShapeWorld and CausaLab as RL environments (TRL's environment mode, verl's interactions): the prompts they
return are the ones ``eval`` sends, byte for byte, and their rewards are ``eval``'s scores of the same
transcripts — replayed through ``eval``'s own model adapters (``ChatPolicy``, ``ChatAgent``) and scored by the
task's ``score``; one real ``GRPOTrainer`` step per benchmark (scripts/grpo_env_step.py) on the CPU."""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest
from transformers.utils import get_json_schema
from trl.chat_template_utils import add_response_schema, parse_response

from causal_datasets.causalab.episode import run_episode
from causal_datasets.causalab.experimenter import ExperimenterAgent
from causal_datasets.causalab.llm_agent import ChatAgent
from causal_datasets.causalab.play import CausaLabGeneration
from causal_datasets.causalab.random_agent import RandomAgent as LabRandomAgent
from causal_datasets.integrations.rl_episodes import EPISODE_OVER, EpisodeError, RLEpisode, draw_episode
from causal_datasets.integrations.trl_env import CausaLabEnvironment, ShapeWorldEnvironment, episode_rows
from causal_datasets.integrations.verl_interaction import CausaLabInteraction, ShapeWorldInteraction, interaction_rows
from causal_datasets.llm import LLMTimeout
from causal_datasets.runners.task import Item, Transcript
from causal_datasets.shapeworld.agents import OracleAgent, RandomAgent
from causal_datasets.shapeworld.chat import ChatPolicy
from causal_datasets.shapeworld.episode import play_episode
from causal_datasets.training import tiny_tool_model

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENTS = {"shapeworld": ShapeWorldEnvironment, "causalab": CausaLabEnvironment}


@dataclass
class ScriptedClient:
    """A model that replies from a list; when the list runs out it stops answering (an endpoint timeout)."""

    replies: list[str]
    config: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(model="scripted"))
    sent: list[list[dict[str, str]]] = field(default_factory=list)

    def chat(self, messages):
        self.sent.append([dict(m) for m in messages])
        if not self.replies:
            raise LLMTimeout("no more replies", kind="timeout")
        return SimpleNamespace(text=self.replies.pop(0))


def eval_play(benchmark: str, row, replies: list[str]):
    """``eval``'s episode of ``row`` with a model that sends ``replies``: the generation, its item scores and
    the user messages the model was sent after the opening."""
    client = ScriptedClient(list(replies))
    episode = RLEpisode(benchmark)  # only for the task, its options and its scoring context
    if benchmark == "shapeworld":
        generation = play_episode(row, ChatPolicy(client), "basic", "model:scripted")
    else:
        generation = CausaLabGeneration.of(ChatAgent(client, row).play(), "model:scripted")
    scores = episode.task.score(Item(row.id, benchmark, row), Transcript((), generation), episode.context)
    prompts = [sent[-1]["content"] for sent in client.sent[1:]]
    return generation, episode.task.item_scores(scores), prompts


def agent_replies(benchmark: str, row, agent: str, seed: int) -> list[str]:
    """The replies a reference agent gives in ``eval``'s episode of ``row``."""
    replies: list[str] = []
    if benchmark == "shapeworld":
        policy = OracleAgent(row) if agent == "oracle" else RandomAgent(random.Random(seed))

        class Recorded:
            def respond(self, turn):
                replies.append(policy.respond(turn))
                return replies[-1]

        play_episode(row, Recorded(), "basic", "agent")
    else:
        lab_agent = ExperimenterAgent() if agent == "oracle" else LabRandomAgent(seed=seed)

        class RecordedLab:
            name = "agent"

            def act(self, view):
                step = lab_agent.act(view)
                replies.append(step.raw)
                return step

        run_episode(row, RecordedLab())
    return replies


CASES = [
    ("shapeworld", {"num_variables": 3}),
    ("shapeworld", {"num_variables": 5}),
    ("causalab", {"nodes": 3}),
    ("causalab", {"nodes": 4, "hidden": 1}),
]


@pytest.mark.parametrize("benchmark, difficulty", CASES)
@pytest.mark.parametrize("agent", ["oracle", "random"])
def test_the_trl_environment_sends_evals_prompts_and_rewards_evals_scores(benchmark, difficulty, agent):
    rewards = []
    for seed in range(4):
        row = draw_episode(benchmark, seed, **difficulty)
        replies = agent_replies(benchmark, row, agent, seed)
        _, scores, prompts = eval_play(benchmark, row, replies)
        env = ENVIRONMENTS[benchmark]()
        rows = episode_rows(benchmark, [seed], **difficulty)
        assert env.reset(**rows[0]) is None  # the row's prompt is the episode's opening
        observations = [env.send(reply) for reply in replies]
        assert observations[:-1] == prompts and observations[-1] == EPISODE_OVER
        assert env.send("anything") == EPISODE_OVER
        headline = "accuracy" if benchmark == "shapeworld" else "task_accuracy"
        assert env.get_reward() == scores[headline]
        rewards.append(env.get_reward())
    if agent == "oracle":
        assert rewards == [1.0] * 4  # the reference agents solve every episode


@pytest.mark.parametrize("benchmark, difficulty", CASES[::2])
def test_an_episode_cut_short_is_scored_as_eval_scores_a_model_that_stopped(benchmark, difficulty):
    row = draw_episode(benchmark, 1, **difficulty)
    replies = agent_replies(benchmark, row, "oracle", 1)[:2]
    generation, scores, _ = eval_play(benchmark, row, replies)
    episode = RLEpisode(benchmark)
    episode.reset(row)
    for reply in replies:
        episode.step(reply)
    assert not episode.done and episode.scores() == scores and episode.reward() == 0.0


def test_the_environments_expose_one_tool_that_trl_can_describe_and_call():
    for environment in ENVIRONMENTS.values():
        tools = [
            name
            for name, _ in inspect.getmembers(environment, inspect.isfunction)
            if not name.startswith("_") and name not in ("reset", "get_reward")
        ]
        assert tools == ["send"]
        schema = get_json_schema(environment().send)
        assert schema["function"]["name"] == "send"
        assert schema["function"]["parameters"]["required"] == ["message"]


def test_a_tool_call_parsed_by_trl_steps_the_episode_like_the_reply_itself():
    _, tokenizer = tiny_tool_model()
    add_response_schema(tokenizer)
    row = draw_episode("shapeworld", 2)
    replies = agent_replies("shapeworld", row, "oracle", 2)
    direct, through_trl = ShapeWorldEnvironment(), ShapeWorldEnvironment()
    direct.reset(seed=2)
    through_trl.reset(seed=2)
    prefix = tokenizer.apply_chat_template(
        [{"role": "user", "content": "go"}], add_generation_prompt=True, tokenize=True, return_dict=False
    )
    for reply in replies:
        call = json.dumps({"name": "send", "arguments": {"message": reply}})
        ids = tokenizer(f"<tool_call>\n{call}\n</tool_call><|im_end|>")["input_ids"]
        parsed = parse_response(tokenizer, ids, prefix=list(prefix))
        (tool_call,) = parsed["tool_calls"]
        function = tool_call["function"]
        assert getattr(through_trl, function["name"])(**function["arguments"]) == direct.send(reply)
    assert through_trl.get_reward() == direct.get_reward() == 1.0


def test_episodes_are_drawn_by_seed_and_difficulty_and_bad_ones_are_refused():
    assert draw_episode("shapeworld", 3, num_variables=6) == draw_episode("shapeworld", 3, num_variables=6)
    assert draw_episode("shapeworld", 3, num_variables=6).num_variables == 6
    assert draw_episode("causalab", 3, nodes=5, hidden=2) == draw_episode("causalab", 3, nodes=5, hidden=2)
    assert len(draw_episode("causalab", 3, nodes=9, hidden=8).nodes) == 9
    observed = draw_episode("causalab", 3, nodes=5, regime="observation-only")
    assert observed.budget == 0 and len(observed.observation_crystals) == 12
    assert draw_episode("causalab", 3, nodes=5) != draw_episode("causalab", 4, nodes=5)
    for benchmark, difficulty in [
        ("shapeworld", {"num_variables": 2}),
        ("shapeworld", {"structure": "spiral"}),
        ("shapeworld", {"size": 4}),
        ("causalab", {"nodes": 2}),
        ("causalab", {"nodes": 10}),
        ("causalab", {"nodes": 4, "hidden": 4}),
        ("causalab", {"regime": "dreaming"}),
        ("cladder", {}),
    ]:
        with pytest.raises(EpisodeError):
            draw_episode(benchmark, 0, **difficulty)
    with pytest.raises(EpisodeError, match="reset first"):
        RLEpisode("causalab").step("hello")
    episode = RLEpisode("causalab", reward="no_such_score")
    episode.reset(seed=0)
    with pytest.raises(EpisodeError, match="no_such_score"):
        episode.reward()


def test_a_shaped_reward_is_another_item_score_of_the_same_scoring():
    row = draw_episode("causalab", 0, nodes=4)
    replies = agent_replies("causalab", row, "random", 0)
    _, scores, _ = eval_play("causalab", row, replies)
    episode = RLEpisode("causalab", reward="edge_f1")
    episode.reset(row)
    for reply in replies:
        episode.step(reply)
    assert episode.done and episode.reward() == scores["edge_f1"]


@pytest.mark.parametrize("benchmark", ["shapeworld", "causalab"])
def test_one_grpo_step_in_environment_mode(benchmark, tmp_path):
    out = tmp_path / "rollouts.json"
    script = ROOT / "scripts" / "grpo_env_step.py"
    done = subprocess.run(
        [sys.executable, str(script), "--env", benchmark, "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    rollouts = report["rollouts"]
    assert len(rollouts) == 4 and sorted(r["seed"] for r in rollouts) == [0, 0, 1, 1]
    headline = "accuracy" if benchmark == "shapeworld" else "task_accuracy"
    for rollout in rollouts:
        _, scores, _ = eval_play(benchmark, draw_episode(benchmark, rollout["seed"]), rollout["sent"])
        assert rollout["reward"] == scores[headline]
    assert report["logged_mean_reward"] == pytest.approx(sum(r["reward"] for r in rollouts) / 4)


def test_the_verl_interactions_send_evals_prompts_and_reward_evals_scores():
    """The calls verl's tool agent loop makes (verl <= 0.7: ``start_interaction`` with the row's
    ``interaction_kwargs``, ``generate_response`` after each model turn), made here directly: verl 0.7.1, the
    last release with ``verl.interactions``, needs numpy < 2 and cannot join the test environment."""
    interactions = {
        "shapeworld": ShapeWorldInteraction(config={"name": "shapeworld"}),
        "causalab": CausaLabInteraction(config={"name": "causalab", "reward": "task_accuracy"}),
    }
    for benchmark, agent in [("shapeworld", "oracle"), ("shapeworld", "random"), ("causalab", "random")]:
        (row,) = interaction_rows(benchmark, [5])
        kwargs = row["extra_info"]["interaction_kwargs"]
        interaction = interactions[kwargs["name"]]
        episode = draw_episode(benchmark, 5)
        replies = agent_replies(benchmark, episode, agent, 5)
        _, scores, prompts = eval_play(benchmark, episode, replies)

        async def play(interaction=interaction, row=row, kwargs=kwargs, replies=replies):
            instance = await interaction.start_interaction("request-1", **kwargs)
            messages, turns = list(row["prompt"]), []
            for reply in replies:
                messages.append({"role": "assistant", "content": reply})
                turn = await interaction.generate_response(instance, messages, **kwargs)
                messages.append({"role": "user", "content": turn[1]})
                turns.append(turn)
            final = await interaction.calculate_score(instance)
            await interaction.finalize_interaction(instance)
            return turns, final

        turns, final = asyncio.run(play())
        assert [turn[1] for turn in turns[:-1]] == prompts
        assert [turn[0] for turn in turns] == [False] * (len(turns) - 1) + [True]
        headline = "accuracy" if benchmark == "shapeworld" else "task_accuracy"
        assert turns[-1][2] == final == scores[headline] and turns[-1][3] == scores
    with pytest.raises(EpisodeError, match="start_interaction first"):
        asyncio.run(interactions["shapeworld"].calculate_score("never-started"))
    started = asyncio.run(interactions["causalab"].start_interaction(None, seed=1, nodes=3))
    with pytest.raises(EpisodeError, match="no assistant message"):
        asyncio.run(interactions["causalab"].generate_response(started, [{"role": "user", "content": "hi"}]))
