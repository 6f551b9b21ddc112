"""Reference agents: policies that answer the same turns a chat model answers, in the same JSON.

* :class:`OracleAgent` reads the hidden graph to plan the shortest version of the textbook
  experiment — hold the moving sources upstream of the cause or the effect, move the cause — and
  answers from what it then *observes*, so its score tests the simulator, the loop and the cap.
* :class:`StrategyAgent` sees only observations and follows a fixed experiment design (below).
* :class:`RandomAgent` picks shapes, actions, continue/answer and yes/no at random (seeded).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from causal_datasets.shapeworld.entities import DEFAULT_THEME, Theme
from causal_datasets.shapeworld.episode import Policy, Turn
from causal_datasets.shapeworld.generate import world_of
from causal_datasets.shapeworld.records import ShapeWorldTask
from causal_datasets.shapeworld.world import ACTIONS

CONTINUE = json.dumps({"next": "continue interaction"})
ANSWER = json.dumps({"next": "answer the question"})


def action_reply(turn: Turn, shape: str, action: str) -> str:
    """An action in the JSON the turn asks for (its key is the theme's noun: ``shape`` by default)."""
    return json.dumps({turn.noun: shape, "action": action})


def answer_reply(answer: str) -> str:
    return json.dumps({"answer": answer})


class OracleAgent:
    """Plans with the hidden graph; answers "yes" iff the effect is moving after the plan.

    When the cause moves and the effect stands still, the effect cannot be downstream (the moving
    set is closed under descendants): one harmless ``move cause`` satisfies the mandatory first
    action. Otherwise it holds every moving source (a moving shape without a moving parent) whose
    descendants include the cause or the effect — which leaves both static — then moves the cause.
    """

    def __init__(self, task: ShapeWorldTask, theme: Theme = DEFAULT_THEME):
        world = world_of(task, theme)
        moving = frozenset(task.initially_moving)
        cause, effect = task.cause, task.effect
        holds = []
        if not (cause in moving and effect not in moving):
            sources = [v for v in sorted(moving) if not world.parents[v] & moving]
            holds = [v for v in sources if {cause, effect} & world.closures[v]]
        self.plan = [(world.shapes[v], "hold") for v in holds] + [(world.shapes[cause], "move")]

    def respond(self, turn: Turn) -> str:
        if turn.phase == "action":
            return action_reply(turn, *self.plan.pop(0))
        if turn.phase == "choice":
            return CONTINUE if self.plan else ANSWER
        return answer_reply("yes" if turn.moving(turn.effect) else "no")


class StrategyAgent:
    """Experiment design from observations only (no graph):

    1. If the cause moves and the effect is static, answer "no" (movement spreads downstream).
    2. If both are static, move the cause: the effect starts moving iff it is downstream.
    3. Otherwise hold moving shapes — the effect first, then the cause, then the others in the
       listed order, each tried once — until both are static. If holding the cause stops the effect
       with it, the effect was downstream: answer "yes".

    A hold that changes nothing means the shape still has a moving cause; such a shape can only
    stop when its causes do, so it is never tried again. Each moving source is held at most once,
    so the agent needs at most n holds and one move, within the 2n cap.
    """

    def __init__(self) -> None:
        self.tried: set[str] = set()
        self.before: dict[str, bool] | None = None
        self.last: tuple[str, str] | None = None
        self.conclusion: str | None = None

    def respond(self, turn: Turn) -> str:
        now = dict(turn.observation)
        if turn.phase == "action":
            self.before, self.last = now, self._next_action(turn, now)
            return action_reply(turn, *self.last)
        if turn.phase == "choice":
            self.conclusion = self._conclude(turn, now)
            return CONTINUE if self.conclusion is None else ANSWER
        return answer_reply(self.conclusion or "no")

    def _next_action(self, turn: Turn, now: dict[str, bool]) -> tuple[str, str]:
        if not now[turn.effect]:
            return turn.cause, "move"
        order = [turn.effect, turn.cause, *(s for s in turn.shapes if s not in (turn.cause, turn.effect))]
        shape = next(s for s in order if now[s] and s not in self.tried)
        self.tried.add(shape)
        return shape, "hold"

    def _conclude(self, turn: Turn, now: dict[str, bool]) -> str | None:
        assert self.before is not None and self.last is not None
        if now[turn.cause] and not now[turn.effect]:
            return "no"
        if self.last == (turn.cause, "move") and not self.before[turn.cause] and not self.before[turn.effect]:
            return "yes" if now[turn.effect] else "no"
        stopped_together = self.before[turn.cause] and self.before[turn.effect] and not now[turn.effect]
        if self.last == (turn.cause, "hold") and not now[turn.cause] and stopped_together:
            return "yes"
        return None


class RandomAgent:
    """Uniformly random valid shape/action; continues with probability 1/2; random yes/no."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def respond(self, turn: Turn) -> str:
        if turn.phase == "action":
            return action_reply(turn, self.rng.choice(turn.shapes), self.rng.choice(ACTIONS))
        if turn.phase == "choice":
            return CONTINUE if self.rng.random() < 0.5 else ANSWER
        return answer_reply(self.rng.choice(("yes", "no")))


#: each agent for one episode, given its task, the agent seed and the theme naming the shapes
AGENTS: dict[str, Callable[..., Policy]] = {
    "oracle": lambda task, seed, theme=DEFAULT_THEME: OracleAgent(task, theme),
    "strategy": lambda task, seed, theme=DEFAULT_THEME: StrategyAgent(),
    "random": lambda task, seed, theme=DEFAULT_THEME: RandomAgent(
        random.Random(f"shapeworld-random-agent/{seed}/{task.id}")
    ),
}
