"""Synthetic expression pairs (DoVerifier §4.1): random DAGs, random rule walks, verified negatives.

A positive pair starts from a random interventional term ``P(Y | do(X...), W...)`` on a random DAG
(n ≤ 10 nodes, each forward edge with probability 0.5) and applies 1–4 random valid rewrites
(do-calculus rules and probability rules); the walk is the pair's proof. A negative pair keeps
the start and replaces the end by a realistic mistake (a dropped intervention, an action read as
an observation, a dropped or added observation); it is kept only when the semantic check finds
a counterexample; there are as many negatives as positives. Everything is drawn from one ``random.Random(seed)``
(one per shard for a sharded set, :func:`shard_random`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

from causal_datasets.docalc.atoms import Atom, Value
from causal_datasets.docalc.decide import Counterexample, semantic_check
from causal_datasets.docalc.expr import Expr, Prob, children, rebuild
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.rules import RuleContext, do_calculus_rule, neighbours
from causal_datasets.docalc.search import Proof, ProofStep
from causal_datasets.docalc.verdict import UnsoundProof

#: rules a generating walk may use
WALK_RULES = frozenset(
    {
        "rule 1: delete observation",
        "rule 1: insert observation",
        "rule 2: action to observation",
        "rule 2: observation to action",
        "rule 3: delete action",
        "rule 3: insert action",
        "law of total probability",
        "marginalization",
        "product rule",
        "definition of conditional probability",
    }
)
NEGATIVE_KINDS = (
    "dropped_action",
    "action_as_observation",
    "observation_as_action",
    "dropped_observation",
    "added_observation",
)


@dataclass(frozen=True)
class SyntheticPair:
    graph: DoGraph
    a: Expr
    b: Expr
    equivalent: bool
    proof: Proof | None  # the generating walk (positives)
    negative_kind: str | None = None
    counterexample: Counterexample | None = None


def shard_random(seed: int, shard: int) -> random.Random:
    """The generator of one shard: seeded by a string naming the seed and the shard (SHA-512, never ``hash()``)."""
    return random.Random(f"docalc-synthetic/{seed}/{shard}")


def random_dag(
    rng: random.Random, max_nodes: int = 10, edge_probability: float = 0.5, *, min_nodes: int = 3, latents: int = 0
) -> DoGraph:
    """Nodes V1..Vn (n in min_nodes..max_nodes) in a random causal order; each forward edge with the given
    probability; ``latents`` unobserved common causes U1..Uk, each of a random pair of nodes (drawn last, so a
    graph without them is the one drawn before they existed)."""
    n = rng.randint(min_nodes, max_nodes)
    order = [f"V{i}" for i in range(1, n + 1)]
    rng.shuffle(order)
    edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < edge_probability]
    observed = sorted(order, key=lambda name: int(name[1:]))
    hidden = [f"U{i}" for i in range(1, latents + 1)]
    for latent in hidden:
        edges += [(latent, child) for child in sorted(rng.sample(observed, 2), key=lambda name: int(name[1:]))]
    return DoGraph.from_edges(edges, nodes=observed + hidden, latent=hidden)


def observed_nodes(graph: DoGraph) -> list[str]:
    """The graph's nodes a probability term may name (the latent ones left out)."""
    return [node for node in graph.nodes if node not in graph.latent]


def random_start(rng: random.Random, graph: DoGraph) -> Prob:
    """``P(Y | do(X...), W...)`` with 1–2 actions and 0–2 observations on distinct nodes."""
    nodes = observed_nodes(graph)
    rng.shuffle(nodes)
    outcome, rest = nodes[0], nodes[1:]
    n_do = rng.randint(1, min(2, len(rest)))
    n_given = rng.randint(0, min(2, len(rest) - n_do))
    do = tuple((v, v) for v in rest[:n_do])
    given = tuple(Atom(v, v) for v in rest[n_do : n_do + n_given])
    return Prob((Atom(outcome, outcome),), do, given)


def random_walk(rng: random.Random, start: Expr, graph: DoGraph, steps: int) -> tuple[Expr, Proof] | None:
    """Apply ``steps`` random valid rewrites (never revisiting an expression): (end, proof), or None if stuck.

    Visited expressions are compared as objects, which is comparing their canonical text here (every
    value is a symbol, never a number), without printing every option."""
    ctx = RuleContext(graph, tuple((n, n) for n in observed_nodes(graph)))
    seen = [start]
    current = start
    proof_steps = []
    for _ in range(steps):
        options = [
            (new, rw, sub) for new, rw, sub in neighbours(current, ctx) if rw.rule in WALK_RULES and new not in seen
        ]
        if not options:
            return None
        new, rewrite, sub = options[rng.randrange(len(options))]
        proof_steps.append(ProofStep(rewrite.rule, rewrite.condition, sub.text, rewrite.result.text, new.text))
        seen.append(new)
        current = new
    return current, Proof(start.text, tuple(proof_steps))


#: the do-calculus rewrite each kind of mistake is where the rule's condition holds (it is then no mistake)
MISTAKE_RULES = {
    "dropped_action": "rule 3: delete action",
    "action_as_observation": "rule 2: action to observation",
    "observation_as_action": "rule 2: observation to action",
    "dropped_observation": "rule 1: delete observation",
    "added_observation": "rule 1: insert observation",
}


class Mistake(NamedTuple):
    """One realistic mistake: its kind, the probability term it changes and the variable it moves, and a
    function that builds the whole mistaken expression (built only when tried). A tuple: thousands are
    listed per shard and few are tried."""

    kind: str
    term: Prob
    var: str
    value: Value | None
    make: Callable[[], Expr]

    def is_valid_rewrite(self, graph: DoGraph) -> bool:
        """True when the change is the do-calculus rule of its kind with its condition holding in ``graph``:
        a proof that the "mistake" is equal to the expression it changes, so no model can refute it."""
        if self.value is None:  # a bare variable: no rule moves it
            return False
        rule = MISTAKE_RULES[self.kind]
        return do_calculus_rule(self.term, rule, self.var, self.value, RuleContext(graph, ())) is not None


def mistake_makers(e: Expr, graph: DoGraph) -> list[Mistake]:
    """Every single realistic mistake in one probability term of ``e``. A negative is usually found
    among the first few tried, so the rest are never built."""
    makers: list[Mistake] = []
    if isinstance(e, Prob) and e.is_interventional:
        used = {a.var for a in e.event + e.given} | {v for v, _ in e.do}
        for var, value in e.do:
            other_actions = tuple(a for a in e.do if a[0] != var)
            makers.append(Mistake("dropped_action", e, var, value, partial(Prob, e.event, other_actions, e.given)))
            as_observation = partial(Prob, e.event, other_actions, e.given + (Atom(var, value),))
            makers.append(Mistake("action_as_observation", e, var, value, as_observation))
        for atom in e.given:
            other_observations = tuple(a for a in e.given if a != atom)
            if atom.value is not None:  # a bare variable (inside E[...]) has no value to set
                as_action = partial(Prob, e.event, e.do + ((atom.var, atom.value),), other_observations)
                makers.append(Mistake("observation_as_action", e, atom.var, atom.value, as_action))
            dropped = partial(Prob, e.event, e.do, other_observations)
            makers.append(Mistake("dropped_observation", e, atom.var, atom.value, dropped))
        for var in observed_nodes(graph):
            if var not in used:
                added = partial(Prob, e.event, e.do, e.given + (Atom(var, var),))
                makers.append(Mistake("added_observation", e, var, var, added))
    kids = children(e)
    for i, child in enumerate(kids):
        makers.extend(
            Mistake(m.kind, m.term, m.var, m.value, partial(_replace_child, e, kids, i, m.make))
            for m in mistake_makers(child, graph)
        )
    return makers


def _replace_child(e: Expr, kids: tuple[Expr, ...], i: int, make: Callable[[], Expr]) -> Expr:
    return rebuild(e, kids[:i] + (make(),) + kids[i + 1 :])


def positive_pair(
    rng: random.Random,
    max_nodes: int = 10,
    seed: int = 0,
    models: int = 1,
    *,
    min_nodes: int = 3,
    steps: int | None = None,
    latents: int = 0,
) -> SyntheticPair:
    """A verified equivalent pair from ``steps`` random rule applications (1–4 drawn when None; retries until a
    walk succeeds), on a graph of :func:`random_dag` (``min_nodes``..``max_nodes`` nodes, ``latents`` latent ones).

    The walk is a proof by construction (each rewrite applied by the rule engine, its graph condition
    checked), which decides the label. Its conclusion is still re-checked on ``models`` random models, as a
    guard against rule bugs: in floats with rigorous error bounds (``refute_only``), where a difference beyond
    the bounds is a real one and raises :class:`UnsoundProof`. A wrong rewrite changes the value as a rational
    function of the model's parameters, so on a random model it differs by far more than the rounding
    bounds (about 1e-15) save with probability about zero; the exact confirmation of equality adds nothing
    to a label the proof decides, and cost a third of the build."""
    while True:
        graph = random_dag(rng, max_nodes, min_nodes=min_nodes, latents=latents)
        start = random_start(rng, graph)
        walk = random_walk(rng, start, graph, rng.randint(1, 4) if steps is None else steps)
        if walk is None:
            continue
        end, proof = walk
        result = semantic_check(start, end, graph, seed=seed, models=models, refute_only=True)
        if result.equal is False:
            raise UnsoundProof(f"generated walk {proof.lines()} fails the semantic check: {result}")
        return SyntheticPair(graph, start, end, True, proof)


def negative_pair(rng: random.Random, positive: SyntheticPair, seed: int = 0) -> SyntheticPair | None:
    """A mistake in the positive's end expression that the semantic check refutes, or None.

    One model suffices: float values that differ by more than their rigorous error bounds are a
    counterexample (the label rests on it). A mistake that is a valid rewrite of its term
    (:meth:`Mistake.is_valid_rewrite`) is passed over unchecked, as is one floats cannot tell apart:
    neither is ever confirmed in exact arithmetic (on these pairs such a mistake is an equal expression)."""
    options = mistake_makers(positive.b, positive.graph)
    rng.shuffle(options)
    for mistake in options:
        if mistake.is_valid_rewrite(positive.graph):
            continue
        wrong = mistake.make()
        result = semantic_check(positive.a, wrong, positive.graph, seed=seed, models=1, refute_only=True)
        if result.equal is False:
            return SyntheticPair(positive.graph, positive.a, wrong, False, None, mistake.kind, result.counterexample)
    return None


def generate_pairs(seed: int, count: int, max_nodes: int = 10, shard: int | None = None) -> list[SyntheticPair]:
    """``count`` positives followed by ``count`` verified negatives: one per positive, and for
    positives without a refutable mistake, one from an extra walk (not itself listed).

    Drawn from ``random.Random(seed)``, or with ``shard`` from :func:`shard_random` (one shard of a sharded set)."""
    rng = random.Random(seed) if shard is None else shard_random(seed, shard)
    positives = [positive_pair(rng, max_nodes, seed) for _ in range(count)]
    negatives: list[SyntheticPair] = []
    sources = iter(positives)
    while len(negatives) < count:
        source = next(sources, None) or positive_pair(rng, max_nodes, seed)
        negative = negative_pair(rng, source, seed)
        if negative is not None:
            negatives.append(negative)
    return positives + negatives
