"""The episode loop, reply parsing, prompts and the reference agents."""

import functools
import re
from collections import Counter, defaultdict

import pytest

from causal_datasets.shapeworld.agents import AGENTS, OracleAgent
from causal_datasets.shapeworld.episode import PolicyFailure, Turn, run_episode
from causal_datasets.shapeworld.generate import advanced_tasks, core_tasks, world_of
from causal_datasets.shapeworld.parsing import parse_action, parse_answer, parse_choice
from causal_datasets.shapeworld.prompts import VARIANTS, build_messages, system_prompt

CORE = core_tasks(0)
ADVANCED = advanced_tasks(0)


def task(task_id: str):
    return next(t for t in CORE + ADVANCED if t.id == task_id)


class Scripted:
    """Replies from a list, one per turn; records the turns it saw."""

    def __init__(self, *replies: str):
        self.replies, self.turns = list(replies), []

    def respond(self, turn: Turn) -> str:
        self.turns.append(turn)
        return self.replies.pop(0)


ACT = '{{"shape": "{}", "action": "{}"}}'
GO_ON, ANSWER = '{"next": "continue interaction"}', '{"next": "answer the question"}'


def answer(value: str) -> str:
    return f'{{"answer": "{value}"}}'


# -- parsing ---------------------------------------------------------------------------------------
def test_parsing_takes_the_last_filled_object_from_free_text():
    reply = 'Template: {"shape":"","action":""}\nI will move it.\n```json\n{"shape": " Circle ", "action": "MOVE"}\n```'
    assert parse_action(reply).value == ("circle", "move")
    assert parse_choice('Thinking... {"next": "Answer the question."}').value == "answer"
    assert parse_answer('<think>{"answer": "yes"}</think> {"answer": "No"}').value == "no"


@pytest.mark.parametrize(
    "parser, reply, error",
    [
        (parse_action, "move the circle", "invalid_format"),
        (parse_action, '{"shape": "circle"}', "invalid_format"),
        (parse_choice, '{"next": "keep going"}', "invalid_format"),
        (parse_choice, '{"next": ["continue interaction"]}', "invalid_format"),
        (parse_answer, '{"answer": "maybe"}', "invalid_answer"),
        (parse_answer, '{"answer": true}', "invalid_answer"),
        (parse_answer, "yes", "invalid_format"),
    ],
)
def test_unreadable_replies_are_classified(parser, reply, error):
    assert parser(reply).error == error


# -- the loop --------------------------------------------------------------------------------------
def test_a_scripted_episode_follows_the_four_phases():
    t = task("core-mediation-s3-12")  # all moving, does node 1 cause node 2?
    cause, effect, root = t.shapes[1], t.shapes[2], t.shapes[0]
    policy = Scripted(ACT.format(root, "hold"), GO_ON, ACT.format(cause, "move"), ANSWER, answer("yes"))
    result = run_episode(t, policy, "basic", "scripted")
    assert [turn.phase for turn in policy.turns] == ["action", "choice", "action", "choice", "answer"]
    assert result.correct and result.prediction == "yes" and result.error is None
    assert result.steps == 2 and [a.moving_after for a in result.actions] == [
        [],
        sorted([cause, effect], key=world_of(t).listed_shapes.index),
    ]
    roles = [m["role"] for m in result.transcript]
    assert roles == ["system", "user"] + ["assistant", "user"] * 4 + ["assistant"]
    assert result.transcript[-2]["content"].startswith("You are ready to answer the question: " + t.question)
    assert all(f"{s} is static" in result.transcript[3]["content"] for s in t.shapes)


def test_invalid_actions_count_as_steps_and_the_cap_ends_the_episode():
    t = task("core-direct-s0-01")  # 2 shapes, cap 4
    replies = [ACT.format("star", "move")] + [GO_ON, ACT.format("circle", "spin")] * 3 + [GO_ON]
    result = run_episode(t, Scripted(*replies), "basic", "scripted")
    assert result.steps == 4 == t.step_limit and result.invalid_actions == 4
    assert result.error == "too_many_attempts" and result.prediction is None and not result.correct
    assert "Your last action was invalid (unknown shape 'star'" in result.transcript[3]["content"]


def test_format_and_answer_errors_end_the_episode():
    t = task("core-direct-s0-01")
    first = run_episode(t, Scripted("I would like to move the circle."), "basic", "s")
    assert (first.error, first.steps, len(first.transcript)) == ("invalid_format", 0, 3)
    second = run_episode(t, Scripted(ACT.format(t.shapes[0], "move"), ANSWER, answer("probably")), "basic", "s")
    assert second.error == "invalid_answer" and second.steps == 1 and second.prediction is None


def test_a_policy_failure_is_kept_as_llm_error():
    class Broken:
        def respond(self, turn):
            raise PolicyFailure("connection refused")

    result = run_episode(task("core-direct-s0-01"), Broken(), "basic", "broken")
    assert result.error == "llm_error" and "connection refused" in result.error_detail


def test_transcript_replay_gives_the_same_states():
    """Re-applying the recorded actions to the stored task reproduces every recorded state and observation text."""
    for t in CORE + ADVANCED[::25]:
        result = run_episode(t, AGENTS["random"](t, 3), "basic", "random")
        world, state = world_of(t), frozenset(t.initially_moving)
        after_actions = [
            m["content"] for m in result.transcript if m["role"] == "user" and '{"next": ""}' in m["content"]
        ]
        assert len(after_actions) == len(result.actions)
        for action, prompt in zip(result.actions, after_actions, strict=True):
            state = world.apply(state, action.shape, action.action).state
            assert [s for s, m in world.observe(state) if m] == action.moving_after
            shown = dict(re.findall(r"^(\w+) is (moving|static)$", prompt, flags=re.M))
            assert shown == {s: "moving" if m else "static" for s, m in world.observe(state)}


# -- prompts ---------------------------------------------------------------------------------------
def test_prompt_variants_differ_as_the_paper_describes():
    t = task("core-confounder-s4-02")
    texts = {v: build_messages(t, v) for v in VARIANTS}
    assert "as few steps" not in system_prompt("basic")
    assert all("as few steps" in system_prompt(v) for v in VARIANTS if v != "basic")
    assert "Make both shapes static" in system_prompt("instructed_cot") and "Make both" not in system_prompt(
        "cot_step_limit"
    )
    assert "Think step by step" in texts["cot_step_limit"][1]["content"]
    assert "Think step by step" not in texts["step_limit"][1]["content"]
    assert build_messages(t, "basic") == texts["basic"]  # pure
    initial = texts["basic"][1]["content"]
    assert t.question in initial and '{"shape": "", "action": ""}' in initial
    assert "circle, square, triangle" in initial or ", ".join(world_of(t).listed_shapes) in initial


# -- agents ----------------------------------------------------------------------------------------
def play(agent: str):
    return [run_episode(t, AGENTS[agent](t, 0), "basic", agent) for t in CORE + ADVANCED]


play_all = functools.cache(play)  # results are read, never changed


def test_oracle_answers_all_1284_episodes_within_the_cap():
    results = play_all("oracle")
    assert len(results) == 1284
    assert all(r.correct and r.error is None and r.invalid_actions == 0 for r in results)
    assert all(1 <= r.steps <= r.step_limit for r in results)


def test_oracle_plans_the_shortest_textbook_experiment():
    # all moving, confounder with edge (1 -> 0, 1 -> 2, 0 -> 2): hold the root, then move the cause
    plan = OracleAgent(task("core-confounder_with_edge-s3-02")).plan
    shapes = task("core-confounder_with_edge-s3-02").shapes
    assert plan == [(shapes[1], "hold"), (shapes[0], "move")]
    # cause moving and effect static: one harmless move, then "no"
    assert OracleAgent(task("core-direct-s2-10")).plan != [] and task("core-direct-s2-10").answer == "no"


def test_strategy_agent_sees_only_observations_and_is_reported():
    results = play_all("strategy")
    assert all(r.error is None and r.steps <= r.step_limit for r in results)
    by_group = defaultdict(list)
    for r in results:
        by_group[(r.structure, r.num_variables)].append(r)
    accuracy = {k: sum(r.correct for r in v) / len(v) for k, v in by_group.items()}
    assert min(accuracy.values()) == 1.0
    oracle_steps = sum(r.steps for r in play_all("oracle"))
    assert sum(r.steps for r in results) >= oracle_steps  # never shorter than the shortest experiment


def test_random_agent_is_seeded_and_near_chance():
    results = play_all("random")
    again = play("random")
    assert [r.model_dump() for r in results] == [r.model_dump() for r in again]
    accuracy = sum(r.correct for r in results) / len(results)
    assert 0.4 < accuracy < 0.6
    assert Counter(r.error for r in results)[None] > 1200


def test_an_action_given_at_the_choice_turn_continues_with_it():
    t = task("core-direct-s0-01")
    cause, effect = t.shapes[0], t.shapes[1]
    policy = Scripted(
        ACT.format(effect, "move"), ACT.format(effect, "hold"), ACT.format(cause, "move"), ANSWER, answer("yes")
    )
    result = run_episode(t, policy, "basic", "scripted")
    assert [turn.phase for turn in policy.turns] == ["action", "choice", "choice", "choice", "answer"]
    assert result.steps == 3 and result.correct and result.error is None
    capped = run_episode(t, Scripted(*[ACT.format(cause, "move")] * 5), "basic", "scripted")
    assert capped.steps == 4 and capped.error == "too_many_attempts"


def test_rules_can_travel_in_the_first_user_message():
    t = task("core-direct-s0-01")
    merged = build_messages(t, "step_limit", system_role=False)
    separate = build_messages(t, "step_limit")
    assert [m["role"] for m in merged] == ["user"]
    assert merged[0]["content"] == separate[0]["content"] + "\n\n" + separate[1]["content"]
    result = run_episode(t, AGENTS["oracle"](t, 0), "step_limit", "oracle", system_role=False)
    assert result.correct and result.transcript[0]["role"] == "user"


# -- the paper's failure patterns (section 5.3, Table 2), replayed as scripted episodes -------------
def custom_task(shapes, edges, cause, effect):
    from causal_datasets.shapeworld.generate import question_text
    from causal_datasets.shapeworld.records import NodeEdge, ShapeWorldTask
    from causal_datasets.shapeworld.world import World

    world = World(tuple(shapes), tuple(edges))
    return ShapeWorldTask(
        id="custom",
        structure="random",
        num_variables=len(shapes),
        graph_id="custom",
        shapes=list(shapes),
        edges=[NodeEdge(source=s, target=t) for s, t in edges],
        initially_moving=list(range(len(shapes))),
        cause=cause,
        effect=effect,
        question=question_text(shapes[cause], shapes[effect]),
        answer="yes" if world.causes(cause, effect) else "no",
        step_limit=2 * len(shapes),
        seed=0,
    )


def scripted(t, actions, final):
    replies = []
    for shape, action in actions:
        replies += [ACT.format(shape, action), GO_ON]
    return run_episode(t, Scripted(*replies[:-1], ANSWER, answer(final)), "basic", "scripted")


@pytest.mark.parametrize(
    "shapes, edges, cause, effect, actions, final, pattern",
    [
        # root cause bias: does the square cause the circle? hold square (nothing), hold triangle (all stop): "no"
        (
            ("triangle", "square", "circle"),
            ((0, 1), (1, 2)),
            1,
            2,
            [("square", "hold"), ("triangle", "hold")],
            "no",
            "root_cause",
        ),
        # illusive confounder bias: does the triangle cause the circle? hold triangle stops everything: "no"
        (("triangle", "square", "circle"), ((0, 1), (1, 2)), 0, 2, [("triangle", "hold")], "no", "illusive_confounder"),
        # correlation bias: does the octagon cause the triangle? holds change nothing until the triangle: "yes"
        (
            ("triangle", "octagon", "rectangle", "circle"),
            ((0, 1), (0, 2), (0, 3)),
            1,
            0,
            [("octagon", "hold"), ("rectangle", "hold"), ("circle", "hold"), ("triangle", "hold")],
            "yes",
            "correlation",
        ),
        # reverse collider bias: does the square cause the hexagon? hold square, hexagon keeps moving: "no"
        (
            ("square", "ellipse", "hexagon", "circle"),
            ((0, 2), (1, 2), (1, 3)),
            0,
            2,
            [("square", "hold")],
            "no",
            "reverse_collider",
        ),
    ],
)
def test_the_papers_failure_examples_get_their_pattern(shapes, edges, cause, effect, actions, final, pattern):
    result = scripted(custom_task(shapes, edges, cause, effect), actions, final)
    assert not result.correct and result.failure_pattern == pattern


def test_correct_answers_and_errors_have_no_failure_pattern():
    assert all(r.failure_pattern is None for r in play_all("oracle")[:84])
    wrong = [r for r in play_all("random") if r.prediction is not None and not r.correct]
    assert wrong and all(r.failure_pattern is not None for r in wrong)
