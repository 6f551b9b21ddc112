"""The interactive benchmarks as RL episodes: one environment, one scoring, for every trainer.

:class:`RLEpisode` holds the environment ``causal-datasets eval`` plays its episodes through
(:class:`~causal_datasets.shapeworld.env.ShapeWorldEnv`, :class:`~causal_datasets.causalab.env.CausaLabEnv`),
reset to a dataset row, or to an episode drawn by seed at a difficulty (:func:`draw_episode`), and scores the
episode with the task's own ``score`` and ``item_scores``, as ``eval`` and ``rescore`` do. The reward is one
of those item scores: by default the benchmark's headline (ShapeWorld ``accuracy``: the answer is right;
CausaLab ``task_accuracy``: the reactor activated); any other item score (CausaLab's mechanism scores such as
``edge_f1``) may be chosen as a shaped reward. An episode the trainer stops before it ends (the model stopped
replying, or its completion budget ran out) is scored as it stands, as ``eval`` scores an episode whose model
stopped replying: ShapeWorld without an answer earns 0, CausaLab keeps its submissions and its last hypothesis.
"""

from __future__ import annotations

import json
from typing import Any, Literal, get_args

from causal_datasets.causalab.env import CausaLabEnv
from causal_datasets.causalab.generator import generate_episode
from causal_datasets.causalab.play import CausaLabGeneration
from causal_datasets.causalab.properties import PROPERTY_POOL
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.regimes import REGIMES, RegimeName, with_setting
from causal_datasets.causalab.suites import HiddenSpec, SuiteSpec
from causal_datasets.causalab.task import TASK as CAUSALAB
from causal_datasets.errors import CausalDatasetsError
from causal_datasets.runners.task import Item, RunSettings, Task, TaskContext, Transcript
from causal_datasets.shapeworld.entities import THEMES
from causal_datasets.shapeworld.env import ShapeWorldEnv
from causal_datasets.shapeworld.generate import advanced_shard, core_tasks, item_rng
from causal_datasets.shapeworld.records import ShapeWorldTask
from causal_datasets.shapeworld.task import TASK as SHAPEWORLD

Benchmark = Literal["shapeworld", "causalab"]
BENCHMARKS: tuple[Benchmark, ...] = get_args(Benchmark)
Message = dict[str, str]
#: the headline item score of each benchmark, the default reward
HEADLINE: dict[Benchmark, str] = {"shapeworld": "accuracy", "causalab": "task_accuracy"}
#: the difficulty parameters :func:`draw_episode` takes, per benchmark
DIFFICULTY: dict[Benchmark, tuple[str, ...]] = {
    "shapeworld": ("num_variables", "structure"),
    "causalab": ("nodes", "hidden", "regime"),
}
#: the name the played episodes are recorded under
POLICY = "model:trained"
#: what a trainer's model is told once the episode is over (``eval`` sends nothing more)
EPISODE_OVER = "The episode is over."


class EpisodeError(CausalDatasetsError, ValueError):
    """An episode asked for that cannot be made (an unknown benchmark, difficulty or reward)."""


def draw_episode(benchmark: Benchmark, seed: int, **difficulty: Any) -> ShapeWorldTask | CausaLabEpisode:
    """An episode of ``benchmark`` drawn by ``seed`` at a difficulty (the generators' own parameters):
    ShapeWorld ``num_variables`` (3: the core graphs, of one ``structure`` if named; 4 or more: a random
    graph of the advanced set's generator); CausaLab ``nodes``, ``hidden`` (nodes a hidden disturbance
    shifts) and ``regime`` (observation-only, mixed, intervention-only). The same arguments give the same episode."""
    unknown = set(difficulty) - set(DIFFICULTY.get(benchmark, ()))
    if benchmark not in BENCHMARKS or unknown:
        raise EpisodeError(f"no {benchmark} difficulty {sorted(unknown)}; known: {DIFFICULTY.get(benchmark)}")
    if benchmark == "shapeworld":
        return _shapeworld_task(seed, **difficulty)
    return _causalab_episode(seed, **difficulty)


def _shapeworld_task(seed: int, num_variables: int = 3, structure: str | None = None) -> ShapeWorldTask:
    rng = item_rng(seed, "episode", num_variables, structure)
    if num_variables == 3:
        tasks = [task for task in core_tasks(seed) if structure in (None, task.structure)]
    elif num_variables >= 4 and structure in (None, "random"):
        index = rng.randrange(1 << 20)
        tasks = advanced_shard(seed, (num_variables, index, index + 1))
    else:
        tasks = []
    if not tasks:
        raise EpisodeError(f"no ShapeWorld task with {num_variables} variables and structure {structure!r}")
    return rng.choice(tasks)


def _causalab_episode(seed: int, nodes: int = 4, hidden: int = 0, regime: RegimeName | None = None) -> CausaLabEpisode:
    known_regime = regime is None or regime in REGIMES
    if not 3 <= nodes <= len(PROPERTY_POOL) + 1 or not 0 <= hidden < nodes or not known_regime:
        raise EpisodeError(f"no CausaLab episode with {nodes} nodes, {hidden} hidden shifts and regime {regime!r}")
    name = f"{nodes}nodes" + (f"_hidden_n{hidden}" if hidden else "")
    spec = SuiteSpec(name, nodes, hidden=HiddenSpec(hidden) if hidden else None)
    episode = generate_episode(spec, index=seed)
    return with_setting(episode, REGIMES[regime]) if regime else episode


class RLEpisode:
    """One episode of ``benchmark`` at a time, played by a model one message at a time.

    ``options``: the task's options (``eval``'s ``--option`` values: ShapeWorld ``variant``, ``entities``,
    ``system_role``; CausaLab ``verify``, ``reask``, ``max_turns`` and the regime options, applied to every
    episode as ``eval`` applies them); ``reward``: the item score the reward is (default: the headline)."""

    def __init__(self, benchmark: Benchmark, *, options: dict[str, Any] | None = None, reward: str | None = None):
        if benchmark not in BENCHMARKS:
            raise EpisodeError(f"no interactive benchmark {benchmark!r}; known: {', '.join(BENCHMARKS)}")
        self.benchmark = benchmark
        self.task: Task[Any, Any, Any] = SHAPEWORLD if benchmark == "shapeworld" else CAUSALAB
        self.options: Any = self.task.options.model_validate(options or {})  # ShapeWorld's or CausaLab's options
        self.reward_name = reward or HEADLINE[benchmark]
        self.context = TaskContext(self.task, RunSettings(), self.options, (), clients={})
        self.row: ShapeWorldTask | CausaLabEpisode | None = None
        self.env: ShapeWorldEnv | CausaLabEnv | None = None

    def reset(
        self, episode: ShapeWorldTask | CausaLabEpisode | str | None = None, *, seed: int = 0, **difficulty: Any
    ) -> list[Message]:
        """Start ``episode`` (a row of the benchmark's dataset, or its JSON), or else the one :func:`draw_episode`
        draws for ``seed`` and ``difficulty``; the opening messages, exactly as ``eval`` sends them."""
        if isinstance(episode, str):
            episode = self._record(json.loads(episode))
        row = episode if episode is not None else draw_episode(self.benchmark, seed, **difficulty)
        if isinstance(row, CausaLabEpisode):
            options = self.options
            self.row = with_setting(row, options.setting())
            self.env = CausaLabEnv(
                self.row, max_turns=options.max_turns, reask=options.reask, verify=options.verifies()
            )
        else:
            self.row = row
            theme = THEMES[self.options.entities]
            self.env = ShapeWorldEnv(row, self.options.variant, system_role=self.options.system_role, theme=theme)
        return list(self.env.messages)

    def step(self, message: str) -> str | None:
        """The model's ``message``: the next prompt, or None when the episode is over."""
        return self._env().step(message)

    @property
    def done(self) -> bool:
        return self._env().done

    @property
    def messages(self) -> list[Message]:
        """The conversation so far."""
        return list(self._env().messages)

    def generation(self) -> Any:
        """The episode as ``eval`` records it (the item's generation)."""
        env = self._env()
        if isinstance(env, CausaLabEnv):
            return CausaLabGeneration.of(env.result(), POLICY)
        return env.play(POLICY)

    def scores(self) -> dict[str, float]:
        """The episode's item scores by the task's own scoring (``eval``'s, and ``rescore``'s)."""
        assert self.row is not None
        item = Item(self.row.id, self.benchmark, self.row)
        scores = self.task.score(item, Transcript((), self.generation()), self.context)
        return self.task.item_scores(scores)

    def reward(self) -> float:
        """The chosen item score of the episode as it stands."""
        scores = self.scores()
        if self.reward_name not in scores:
            raise EpisodeError(f"no {self.benchmark} item score {self.reward_name!r}; known: {', '.join(scores)}")
        return scores[self.reward_name]

    def _env(self) -> ShapeWorldEnv | CausaLabEnv:
        if self.env is None:
            raise EpisodeError("no episode yet: reset first")
        return self.env

    def _record(self, data: dict[str, Any]) -> ShapeWorldTask | CausaLabEpisode:
        model = ShapeWorldTask if self.benchmark == "shapeworld" else CausaLabEpisode
        return model.model_validate(data)
