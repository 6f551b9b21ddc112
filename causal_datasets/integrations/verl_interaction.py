"""ShapeWorld and CausaLab through verl's multi-turn interaction interface (``BaseInteraction``).

verl's tool agent loop (``actor_rollout_ref.rollout.multi_turn.interaction_config_path``) loads the classes an
interaction config names (``interaction: [{name, class_name, config}]``), calls
``start_interaction(request_id, **interaction_kwargs)`` with the row's ``extra_info.interaction_kwargs``, and
after each model turn ``generate_response(request_id, messages)``, whose reply becomes the next user message
until it says to stop. Here that reply is the next prompt of the episode
(:class:`~causal_datasets.integrations.rl_episodes.RLEpisode`, the environment ``eval`` plays), so the model
sees what ``eval`` sends; the turn's score is 0.0 until the episode ends and then the episode's reward (the
benchmark's own scoring), which :meth:`calculate_score` also gives for the episode as it stands.

.. code-block:: yaml

    interaction:
      - name: shapeworld
        class_name: causal_datasets.integrations.verl_interaction.ShapeWorldInteraction
        config: {options: {variant: basic}}   # eval's options; "reward": another item score

The classes follow ``verl.interactions.base.BaseInteraction`` (verl 0.4 to 0.7; verl 0.8 dropped the
interface) without importing verl: its loader only instantiates them with ``config=``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar
from uuid import uuid4

from causal_datasets.integrations.rl_episodes import DIFFICULTY, EPISODE_OVER, Benchmark, EpisodeError, RLEpisode


class EpisodeInteraction:
    """One :class:`RLEpisode` per request of :attr:`benchmark`, played through verl's interaction calls."""

    benchmark: ClassVar[Benchmark]

    def __init__(self, config: dict[str, Any]):
        self.config = config
        self.name: str = config.get("name", self.benchmark)
        self._episodes: dict[str, RLEpisode] = {}

    async def start_interaction(self, instance_id: str | None = None, **kwargs: Any) -> str:
        """Start the episode the row names (``episode`` JSON, or ``seed`` and difficulty); its id."""
        instance_id = instance_id or uuid4().hex
        episode = RLEpisode(self.benchmark, options=self.config.get("options"), reward=self.config.get("reward"))
        difficulty = {name: kwargs[name] for name in DIFFICULTY[self.benchmark] if kwargs.get(name) is not None}
        episode.reset(kwargs.get("episode"), seed=int(kwargs.get("seed") or 0), **difficulty)
        self._episodes[instance_id] = episode
        return instance_id

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        """Step the episode with the model's latest message: (stop, next prompt, turn score, item scores)."""
        episode = self._episode(instance_id)
        replies = [message for message in messages if message.get("role") == "assistant"]
        if not replies:
            raise EpisodeError("no assistant message to step the episode with")
        prompt = None if episode.done else episode.step(str(replies[-1].get("content") or ""))
        if prompt is not None:
            return False, prompt, 0.0, {}
        scores = episode.scores()
        return True, EPISODE_OVER, episode.reward(), scores

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        """The episode's reward as it stands."""
        return self._episode(instance_id).reward()

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        self._episodes.pop(instance_id, None)

    def _episode(self, instance_id: str) -> RLEpisode:
        if instance_id not in self._episodes:
            raise EpisodeError(f"no interaction {instance_id!r}: start_interaction first")
        return self._episodes[instance_id]


class ShapeWorldInteraction(EpisodeInteraction):
    benchmark = "shapeworld"


class CausaLabInteraction(EpisodeInteraction):
    benchmark = "causalab"


def interaction_rows(
    benchmark: Benchmark, seeds: Iterable[int], *, name: str | None = None, **difficulty: Any
) -> list[dict[str, Any]]:
    """verl's dataset rows for the episodes of ``seeds``: ``prompt`` the opening messages, ``extra_info``'s
    ``interaction_kwargs`` the interaction's ``name`` (default: the benchmark), the seed and the difficulty."""
    episode = RLEpisode(benchmark)
    return [
        {
            "data_source": f"causal_datasets/{benchmark}",
            "prompt": episode.reset(seed=seed, **difficulty),
            "ability": "causal-discovery",
            "reward_model": {"style": "interaction", "ground_truth": ""},
            "extra_info": {"interaction_kwargs": {"name": name or benchmark, "seed": seed, **difficulty}},
        }
        for seed in seeds
    ]
