"""ShapeWorld and CausaLab as environments of TRL's ``GRPOTrainer`` (its ``environment_factory`` mode).

TRL's environment mode (TRL 1.16, experimental) creates one instance per rollout with a zero-argument
factory, calls ``reset(**row)`` with the dataset row before generating, exposes the instance's public
methods as tools the model calls, and, when the class has ``get_reward()``, calls it once per finished
rollout as a reward. So :class:`ShapeWorldEnvironment` and :class:`CausaLabEnvironment` have ``reset``,
``get_reward`` and one tool, :meth:`~EpisodeEnvironment.send`: the model's message, handed to the episode
(:class:`~causal_datasets.integrations.rl_episodes.RLEpisode`, the environment ``eval`` plays), whose next
prompt comes back as the tool's result. The rows of :func:`episode_rows` carry the opening messages as their
``prompt`` (what ``eval`` sends; the chat template adds the tool's description) and the seed and difficulty
of their episode. The rollout ends when the model stops calling ``send``; the reward is the episode's score
as it then stands (:mod:`~causal_datasets.integrations.rl_episodes`).

    from trl import GRPOConfig, GRPOTrainer
    from causal_datasets.integrations.trl_env import ShapeWorldEnvironment, episode_rows

    trainer = GRPOTrainer(model=..., train_dataset=episode_rows("shapeworld", range(1000), num_variables=4),
                          environment_factory=ShapeWorldEnvironment, args=GRPOConfig(...))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from causal_datasets.integrations.rl_episodes import DIFFICULTY, EPISODE_OVER, Benchmark, RLEpisode


class EpisodeEnvironment:
    """A rollout's episode of :attr:`benchmark`, for ``GRPOTrainer(environment_factory=<subclass>)``."""

    benchmark: ClassVar[Benchmark]
    #: ``eval``'s options for every episode, and the item score the reward is (see :class:`RLEpisode`)
    options: ClassVar[dict[str, Any]] = {}
    reward: ClassVar[str | None] = None

    def __init__(self) -> None:
        self._episode = RLEpisode(self.benchmark, options=self.options, reward=self.reward)

    def reset(self, **row: Any) -> str | None:
        """Start the row's episode (its ``episode`` JSON, or its ``seed`` and difficulty columns). Returns None
        when the row's ``prompt`` is the episode's opening; for TRL's placeholder row (no dataset) the opening's
        texts, which TRL appends to its empty user message."""
        difficulty = {name: row[name] for name in DIFFICULTY[self.benchmark] if row.get(name) is not None}
        opening = self._episode.reset(row.get("episode"), seed=int(row.get("seed") or 0), **difficulty)
        prompt = row.get("prompt")
        if prompt == opening:
            return None
        return "\n\n".join(message["content"] for message in opening)

    def send(self, message: str) -> str:
        """Send your reply to the current prompt of the episode, exactly as the prompt asks for it.

        Args:
            message: Your whole reply to the latest prompt (for example the filled-in JSON it asks for).

        Returns:
            The environment's next prompt, or a note that the episode is over.
        """
        if self._episode.done:
            return EPISODE_OVER
        return self._episode.step(message) or EPISODE_OVER

    def get_reward(self) -> float:
        """The episode's reward: its score by the benchmark's own scoring, as the episode stands."""
        return self._episode.reward()


class ShapeWorldEnvironment(EpisodeEnvironment):
    """ShapeWorld episodes: act on the shapes, then answer the causal question (reward: the answer is right)."""

    benchmark = "shapeworld"


class CausaLabEnvironment(EpisodeEnvironment):
    """CausaLab episodes: experiment on the crystal, submit the reactor frequency (reward: it activated)."""

    benchmark = "causalab"


def episode_rows(
    benchmark: Benchmark, seeds: Iterable[int], *, options: dict[str, Any] | None = None, **difficulty: Any
) -> Any:
    """A ``datasets.Dataset`` of one row per seed: the episode's opening messages under ``options`` (those of
    the environment class) as ``prompt``, its ``seed`` and the difficulty columns, which
    :meth:`EpisodeEnvironment.reset` reads back."""
    import datasets

    episode = RLEpisode(benchmark, options=options)
    rows = [{"prompt": episode.reset(seed=seed, **difficulty), "seed": seed, **difficulty} for seed in seeds]
    return datasets.Dataset.from_list(rows)
