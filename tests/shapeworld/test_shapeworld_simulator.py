"""The ShapeWorld simulator: move/hold semantics, the paper's failure examples, bad names, invariants."""

import random

import networkx as nx
import pytest

from causal_datasets.shapeworld.generate import advanced_tasks, initial_setups, world_of
from causal_datasets.shapeworld.world import SHAPES, World, WorldError


def moving(world: World, state) -> list[str]:
    return sorted(world.shapes[v] for v in state)


def play(world: World, state, *actions: tuple[str, str]):
    for shape, action in actions:
        transition = world.apply(state, shape, action)
        assert transition.valid, transition.invalid
        state = transition.state
    return state


MEDIATION = World(("triangle", "square", "circle"), ((0, 1), (1, 2)))


def test_move_starts_the_shape_and_everything_downstream():
    assert moving(MEDIATION, play(MEDIATION, frozenset(), ("square", "move"))) == ["circle", "square"]
    assert moving(MEDIATION, play(MEDIATION, frozenset({2}), ("triangle", "move"))) == ["circle", "square", "triangle"]


def test_hold_is_refused_while_a_parent_moves_and_ignored_on_static_shapes():
    everything = frozenset({0, 1, 2})
    assert play(MEDIATION, everything, ("square", "hold")) == everything
    assert play(MEDIATION, frozenset({1, 2}), ("triangle", "hold")) == frozenset({1, 2})


def test_hold_stops_children_left_without_a_moving_cause():
    # collider: triangle -> circle <- square; the circle keeps moving while one cause moves
    collider = World(("triangle", "square", "circle"), ((0, 2), (1, 2)))
    state = play(collider, frozenset({0, 1, 2}), ("triangle", "hold"))
    assert moving(collider, state) == ["circle", "square"]
    assert moving(collider, play(collider, state, ("square", "hold"))) == []


# The paper's failure examples (section 5.3): the observed states must come out of the simulator.
def test_root_cause_bias_example():
    # "Does the square moving cause the circle to move?"  triangle -> square -> circle, all moving
    state = frozenset({0, 1, 2})
    state = play(MEDIATION, state, ("square", "hold"))
    assert moving(MEDIATION, state) == ["circle", "square", "triangle"]
    state = play(MEDIATION, state, ("triangle", "hold"))
    assert moving(MEDIATION, state) == []
    assert MEDIATION.causes(1, 2)  # the model answered "no"; the truth is "yes"


def test_correlation_bias_example_with_a_single_root():
    # "Does the octagon moving cause the triangle to move?" holding octagon, rectangle, circle changes
    # nothing, holding triangle stops everything: the triangle is the only root
    world = World(("triangle", "octagon", "rectangle", "circle"), ((0, 1), (0, 2), (2, 3), (1, 3)))
    state = frozenset(range(4))
    for shape in ("octagon", "rectangle", "circle"):
        state = play(world, state, (shape, "hold"))
        assert state == frozenset(range(4))
    assert play(world, state, ("triangle", "hold")) == frozenset()
    assert not world.causes(1, 0)  # the model answered "yes"


def test_correlation_bias_example_with_a_moving_effect():
    # "Does the circle moving cause the triangle to move?" confounder square -> circle, square -> triangle
    world = World(("circle", "square", "triangle"), ((1, 0), (1, 2)))
    state = play(world, frozenset({2}), ("circle", "move"))
    assert world.observe(state) == [("circle", True), ("square", False), ("triangle", True)]
    assert not world.causes(0, 2)  # the model answered "yes"


def test_reverse_collider_bias_example():
    # "Does the square moving cause the hexagon to move?" square -> hexagon <- ellipse -> circle
    world = World(("square", "ellipse", "hexagon", "circle"), ((0, 2), (1, 2), (1, 3)))
    state = play(world, frozenset(range(4)), ("square", "hold"))
    assert moving(world, state) == ["circle", "ellipse", "hexagon"]
    assert world.causes(0, 2)  # the model answered "no"


def test_invalid_names_are_reported_not_raised():
    state = frozenset({0})
    for shape, action, fragment in [
        ("star", "move", "unknown shape 'star'"),
        ("circle", "push", "unknown action 'push'"),
        ("hexagon", "move", "unknown shape 'hexagon'"),  # a real shape, but not in this world
        (3, None, "unknown shape 3"),
    ]:
        transition = MEDIATION.apply(state, shape, action)
        assert not transition.valid and fragment in transition.invalid
        assert transition.state == state
    both = MEDIATION.apply(state, "star", "push").invalid
    assert "unknown shape" in both and "unknown action" in both


def test_impossible_worlds_are_rejected():
    with pytest.raises(WorldError, match="acyclic"):
        World(("circle", "square"), ((0, 1), (1, 0)))
    with pytest.raises(WorldError, match="distinct"):
        World(("circle", "circle"), ())
    with pytest.raises(WorldError, match="between distinct nodes"):
        World(("circle", "square"), ((0, 2),))


def test_the_graph_walks_agree_with_networkx_on_random_graphs():
    """Parents, children, closures (descendants) and the cycle check, against networkx on random directed
    graphs of up to eight nodes, cyclic ones and repeated edges included."""
    rng = random.Random(7)
    cyclic = 0
    for _ in range(2000):
        n = rng.randint(1, 8)
        edges = tuple((a, b) for a in range(n) for b in range(n) if a != b and rng.random() < 0.25)
        edges += edges[: rng.randint(0, 2)]  # a repeated edge is one edge
        graph = nx.DiGraph(edges)
        graph.add_nodes_from(range(n))
        shapes = tuple(rng.sample(SHAPES, n))
        if not nx.is_directed_acyclic_graph(graph):
            cyclic += 1
            with pytest.raises(WorldError, match="acyclic"):
                World(shapes, edges)
            continue
        world = World(shapes, edges)
        assert world.parents == tuple(frozenset(graph.predecessors(v)) for v in range(n))
        assert world.children == tuple(tuple(sorted(graph.successors(v))) for v in range(n))
        assert world.closures == tuple(frozenset(nx.descendants(graph, v)) | {v} for v in range(n))
    assert 0 < cyclic < 2000


def test_hold_matches_an_independent_characterization_on_random_worlds():
    """Holding a moving source leaves exactly the closures of the other sources moving; any other hold is a no-op."""
    rng = random.Random(11)
    for task in advanced_tasks(0)[::6]:
        world = world_of(task)
        graph = nx.DiGraph([(e.source, e.target) for e in task.edges])
        graph.add_nodes_from(range(world.n))
        for setup in initial_setups(world):
            sources = [v for v in setup if not set(graph.predecessors(v)) & setup]
            for node in range(world.n):
                after = world.hold(setup, node)
                if node in sources:
                    others = [s for s in sources if s != node]
                    assert after == frozenset().union(*({s, *nx.descendants(graph, s)} for s in others))
                else:
                    assert after == setup
        state = frozenset(task.initially_moving)
        for _ in range(30):  # random walks keep the moving set closed under descendants
            state = world.apply(state, rng.choice(world.shapes), rng.choice(("move", "hold"))).state
            assert world.descendant_closed(state)


def test_observations_use_the_canonical_shape_order():
    world = World(("triangle", "circle", "square"), ((0, 1),))
    assert world.listed_shapes == ["circle", "square", "triangle"]
    assert world.observe(frozenset({0, 1})) == [("circle", True), ("square", False), ("triangle", True)]


def test_setups_of_the_core_graphs():
    confounder = World(("circle", "square", "triangle"), ((1, 0), (1, 2)))
    assert [sorted(s) for s in initial_setups(confounder)] == [[], [0], [2], [0, 2], [0, 1, 2]]
