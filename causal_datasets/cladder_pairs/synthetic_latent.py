"""Identification queries under latent confounding: the ``synthetic_latent`` config of ``cladder_pairs``.

Each row is a random acyclic directed mixed graph (ADMG) over observed nodes V1..Vn (n from 4 to 8; each
forward edge with probability 0.4, each pair of nodes confounded by a latent common cause, ``A<->B``,
with probability 0.2), and a query ``P(Y | do(X))`` (1–2 treatments, 1–2 outcomes among their
descendants, a quarter of the queries conditioned on one more node). :func:`~causal_datasets.docalc.identify`
(Shpitser & Pearl's ID, IDC for a conditional query, every derivation step checked) gives the estimand or
the hedge that proves there is none. An estimand ID leaves with an index the query lacks (line 3 fixes a
non-ancestor of the outcome at an arbitrary value, so the estimand is the same for every value of it) is
reduced to the minimal estimand (:func:`minimal_estimand`): the index dropped from every conditioning set
where that stays equal, else averaged out over its own distribution, so the reference names no free
variable the query lacks. The request asks for the estimand or "not identifiable";
:func:`causal_datasets.rewards.identify_reward` scores a reply from the query and the graph alone.
Everything is drawn from one ``random.Random`` seeded by a string (SHA-512, never ``hash()``).
"""

from __future__ import annotations

import random

import networkx as nx

from causal_datasets.cladder_pairs.records import ConfoundedPair, Edge, SyntheticLatentRow, rows_of_type
from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.expr import Expr, Mul, Prob, Sum, children, rebuild
from causal_datasets.docalc.identification import identify
from causal_datasets.docalc.verdict import check_equivalence
from causal_datasets.records.prompts import chat_messages
from causal_datasets.sharding import Sharded, chunks, generate_together

#: queries in the config
LATENT_QUERIES = 2_000
#: what a reply says when no estimand exists (on its ``Estimand:`` line)
NOT_IDENTIFIABLE = "not identifiable"

SYSTEM_PROMPT = """You are an expert in causal inference. You will read a causal graph over observed
variables, some pairs of which share an unobserved common cause, and a causal query. Identify the
query: rewrite it as an expression over probabilities of the observed variables only (no do(), no
counterfactual subscripts), equal to the query in every causal model with this graph. Some queries
have no such expression: then the answer is that the query is not identifiable.

Notation: P(Y | X, Z) for a conditional probability, P(Y, Z) for a joint one; a variable's name
stands for its value and a summed variable ranges over its values: \\sum_{Z} P(Y | X, Z) * P(Z);
use + - * / and brackets ( ); the variable names are exactly those of the graph.

Reason briefly, then end your reply with one final line, either
Estimand: <expression>
or
Estimand: not identifiable
and nothing after it."""


def latent_random(seed: int) -> random.Random:
    return random.Random(f"docalc-synthetic-latent/{seed}")


def random_admg(
    rng: random.Random, *, min_nodes: int = 4, max_nodes: int = 8, latents: int | None = None
) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """Nodes V1..Vn (n in min_nodes..max_nodes) in a random causal order, directed edges forward along it,
    confounded pairs: each pair with probability 0.2, or exactly ``latents`` of them drawn among all pairs."""
    n = rng.randint(min_nodes, max_nodes)
    order = [f"V{i}" for i in range(1, n + 1)]
    rng.shuffle(order)
    directed = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.4]
    pairs = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)]
    if latents is None:
        confounded = [_ordered(a, b) for a, b in pairs if rng.random() < 0.2]
    else:
        confounded = [_ordered(a, b) for a, b in rng.sample(pairs, min(latents, len(pairs)))]
    return sorted(order, key=_number), sorted(directed, key=_numbers), sorted(confounded, key=_numbers)


def _number(name: str) -> int:
    return int(name[1:])


def _numbers(pair: tuple[str, str]) -> tuple[int, int]:
    return _number(pair[0]), _number(pair[1])


def _ordered(a: str, b: str) -> tuple[str, str]:
    """The pair with the lower-numbered node first."""
    return (a, b) if _number(a) < _number(b) else (b, a)


def graph_text(nodes: list[str], directed: list[tuple[str, str]], confounded: list[tuple[str, str]]) -> str:
    """The graph as edge text (``V1->V2,V1<->V3,V4``: a node on no edge stands alone), which :func:`identify`,
    ``causal-datasets identify --graph`` and the reward read."""
    touched = {node for pair in directed + confounded for node in pair}
    parts = [f"{a}->{b}" for a, b in directed] + [f"{a}<->{b}" for a, b in confounded]
    return ",".join(parts + [node for node in nodes if node not in touched])


def random_query(
    rng: random.Random, nodes: list[str], directed: list[tuple[str, str]], conditional_share: float = 0.25
) -> str | None:
    """``P(Y... | do(X...))`` with outcomes among the treatments' descendants, one condition with probability
    ``conditional_share``; None when no node has a descendant."""
    dag = nx.DiGraph(directed)
    dag.add_nodes_from(nodes)
    causes = [node for node in nodes if dag.out_degree(node)]
    if not causes:
        return None
    treatments = sorted(rng.sample(causes, rng.randint(1, min(2, len(causes)))), key=_number)
    effects = sorted(set().union(*(nx.descendants(dag, x) for x in treatments)) - set(treatments), key=_number)
    if not effects:
        return None
    outcomes = sorted(rng.sample(effects, rng.randint(1, min(2, len(effects)))), key=_number)
    rest = [node for node in nodes if node not in treatments and node not in outcomes]
    conditions = [rng.choice(rest)] if rest and rng.random() < conditional_share else []
    given = ", ".join([f"do({', '.join(treatments)})", *conditions])
    return f"P({', '.join(outcomes)} | {given})"


def build_messages(graph: str, query: str) -> list[dict[str, str]]:
    """The request: the system prompt, then the graph (directed edges and confounded pairs) and the query."""
    directed = [part for part in graph.split(",") if "->" in part and "<->" not in part]
    confounded = [part for part in graph.split(",") if "<->" in part]
    alone = [part for part in graph.split(",") if "->" not in part]
    lines = [
        f"Directed edges (cause -> effect): {', '.join(directed) or 'none'}",
        f"Pairs with an unobserved common cause: {', '.join(confounded) or 'none'}",
    ]
    if alone:
        lines.append(f"Variables on no edge: {', '.join(alone)}")
    lines.append(f"Query: {query}")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]


#: queries per shard of the config: the shards depend on the number of queries only, never on the workers
SHARD_QUERIES = 100
#: shards per worker of a pool of their own: 2,000 identifications take about 3 CPU s, so alone the default
#: config runs in the calling process; the build runs its shards in the synthetic config's pool
#: (``generate_together``), and on Ray (``build --ray``) each shard is one task
SHARDS_PER_WORKER = 20

#: a drawn query: its graph's nodes, directed edges and confounded pairs, and the query
Drawn = tuple[list[str], list[tuple[str, str]], list[tuple[str, str]], str]


def synthetic_latent_rows(seed: int, count: int = LATENT_QUERIES, num_proc: int = 1) -> list[SyntheticLatentRow]:
    """``count`` queries on random ADMGs with their identification, in drawing order. The graphs and
    queries are drawn here, one generator in order (cheap); identifying them, the costly part, runs in
    shards of :data:`SHARD_QUERIES`, on up to ``num_proc`` workers (one per :data:`SHARDS_PER_WORKER` shards):
    the same rows whatever the number of workers."""
    return rows_of_type(generate_together([synthetic_latent_config(seed, count)], num_proc)[0], SyntheticLatentRow)


def synthetic_latent_config(seed: int, count: int) -> Sharded:
    """The shards of :func:`synthetic_latent_rows` (the queries drawn here), to run beside another config's."""
    drawn = draw_queries(seed, count)
    shards = [(start, drawn[start:stop]) for start, stop in chunks(count, SHARD_QUERIES)]
    return Sharded(identified_shard, shards, SyntheticLatentRow, SHARDS_PER_WORKER)


def draw_queries(seed: int, count: int) -> list[Drawn]:
    """The first ``count`` graphs with a query on them, as :func:`latent_random` draws them (a graph on
    which no query exists is drawn and skipped)."""
    rng = latent_random(seed)
    drawn: list[Drawn] = []
    while len(drawn) < count:
        nodes, directed, confounded = random_admg(rng)
        query = random_query(rng, nodes, directed)
        if query is not None:
            drawn.append((nodes, directed, confounded, query))
    return drawn


def identified_shard(shard: tuple[int, list[Drawn]]) -> list[SyntheticLatentRow]:
    """The rows of the drawn queries of a shard ``(first row number, queries)``: each query identified."""
    first, drawn = shard
    return [identified_row(first + number, *query) for number, query in enumerate(drawn)]


def identified_row(
    number: int, nodes: list[str], directed: list[tuple[str, str]], confounded: list[tuple[str, str]], query: str
) -> SyntheticLatentRow:
    """Row ``number``: the query, its graph and its identification (every derivation step checked)."""
    graph = graph_text(nodes, directed, confounded)
    found = identify(query, graph)
    hedge = found.hedge
    estimand = None if found.estimand is None else minimal_estimand(found.estimand, found.arbitrary, graph)
    return SyntheticLatentRow(
        id=f"synthetic_latent-{number}",
        prompt=chat_messages(build_messages(graph, query)),
        reference=NOT_IDENTIFIABLE if estimand is None else estimand.text,
        num_nodes=len(nodes),
        nodes=nodes,
        edges=[Edge(source=a, target=b) for a, b in directed],
        confounded=[ConfoundedPair(first=a, second=b) for a, b in confounded],
        graph=graph,
        query=query,
        algorithm=found.algorithm,
        identifiable=found.identifiable,
        estimand=None if estimand is None else estimand.text,
        derivation_steps=len(found.derivation),
        hedge_forest=sorted(hedge.forest.nodes, key=_number) if hedge else [],
        hedge_sub_forest=sorted(hedge.sub_forest.nodes, key=_number) if hedge else [],
    )


class UnequalReduction(AssertionError):
    """A reduced estimand differs from ID's on a model of the graph: a bug, never hidden."""


def minimal_estimand(estimand: Expr, arbitrary: tuple[str, ...], graph: str) -> Expr:
    """``estimand`` without the free indices ``arbitrary`` (ID's arbitrary values, which the query lacks):
    each dropped from every conditioning set where it is free when the verifier finds the result equal,
    else averaged out (``\\sum_{V} P(V) * ...``, equal since the estimand is the same for every value of V).
    The result is checked equal to ``estimand`` under ``graph``: each drop was, so a chain of drops is by
    transitivity; an average is checked at the end."""
    reduced = estimand
    averaged = False
    for name in arbitrary:
        dropped = _without_condition(reduced, name)
        if not _equal(dropped, reduced, graph):
            dropped = Sum(name, name, Mul((Prob((Atom(name, name),)), reduced)))
            averaged = True
        reduced = dropped
    if averaged and not _equal(reduced, estimand, graph):
        raise UnequalReduction(f"{reduced.text} is not {estimand.text} under {graph}")
    return reduced


def _equal(a: Expr, b: Expr, graph: str) -> bool:
    """:func:`check_equivalence`'s verdict "equivalent": decided on models without the proof search (which
    changes only the explanation where models decide), with it where they cannot."""
    verdict = check_equivalence(a, b, graph, prove=False)
    if verdict.equivalent is None:
        verdict = check_equivalence(a, b, graph)
    return verdict.equivalent is True


def _without_condition(e: Expr, name: str) -> Expr:
    """``e`` with the free index ``name`` removed from every conditioning set (a sum binding it hides it)."""
    if isinstance(e, Prob):
        return Prob(e.event, e.do, tuple(a for a in e.given if (a.var, a.value) != (name, name)))
    if isinstance(e, Sum) and e.index == name:
        return e
    return rebuild(e, tuple(_without_condition(child, name) for child in children(e)))
