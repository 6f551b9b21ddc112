"""The two generators on the do-calculus verifier: synthetic equivalence pairs and identification queries.

* ``cladder_equivalence``: DoVerifier's synthetic pairs (:mod:`~causal_datasets.cladder_pairs.synthetic`): a
  random DAG of ``nodes`` nodes with ``latents`` unobserved common causes, a start ``P(Y | do(X), W)`` and
  the end of a ``depth``-step walk of valid rewrites (a proof), or, for half the entries, a realistic
  mistake in that end refuted on a model. The question asks whether the two are equal in every model of the
  graph; the answer is yes or no, read and scored as :func:`~causal_datasets.rewards.cladder_answer_reward`
  reads CLadder's answers.
* ``identification``: the ``synthetic_latent`` queries (:mod:`~causal_datasets.cladder_pairs.synthetic_latent`):
  an ADMG of ``nodes`` observed nodes with ``latents`` confounded pairs and a query conditioned on one more
  node with probability ``conditional_share``; the answer is ID/IDC's estimand or "not identifiable", scored
  by :func:`~causal_datasets.rewards.identify_reward` (any correct estimand earns 1.0, however written).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from statistics import fmean

from causal_datasets.cladder_pairs.synthetic import negative_pair, positive_pair
from causal_datasets.cladder_pairs.synthetic_latent import identified_row, random_admg, random_query
from causal_datasets.docalc.expr import Expr, Prob, children
from causal_datasets.gym.base import Difficulty, Entry, Generator, Knob
from causal_datasets.rewards import cladder_answer_reward, identify_reward

EQUIVALENCE_SYSTEM = """You are an expert in causal inference. You will read a causal graph (directed edges, and
pairs of variables that share an unobserved common cause) and two expressions over its variables, in do-calculus
notation: P(Y | do(X), Z) is the probability of Y when X is set by intervention and Z is observed; a summed
variable ranges over its values. Decide whether the two expressions are equal in every causal model with this
graph. Reason briefly, then end your reply with one final line, either
Answer: yes
or
Answer: no"""


def _pair_entry(rng: random.Random, difficulty: Difficulty) -> Entry:
    nodes, latents, depth = difficulty["nodes"], difficulty["latents"], difficulty["depth"]
    equivalent = rng.random() < 0.5
    while True:
        pair = positive_pair(rng, nodes, 0, min_nodes=nodes, steps=depth, latents=latents)
        if not equivalent:
            pair = negative_pair(rng, pair, 0) or pair
        if pair.equivalent == equivalent:
            break
    graph = pair.graph
    directed = [f"{s}->{t}" for s, t in graph.edges if s not in graph.latent]
    confounded = ["<->".join(graph.children(latent)) for latent in sorted(graph.latent, key=lambda name: int(name[1:]))]
    user = "\n".join(
        [
            f"Directed edges (cause -> effect): {', '.join(directed) or 'none'}",
            f"Pairs with an unobserved common cause: {', '.join(confounded) or 'none'}",
            f"Variables: {', '.join(node for node in graph.nodes if node not in graph.latent)}",
            f"Expression A: {pair.a.text}",
            f"Expression B: {pair.b.text}",
            "Is A equal to B in every causal model with this graph?",
        ]
    )
    return {
        "question": f"{EQUIVALENCE_SYSTEM}\n\n{user}",
        "answer": "yes" if pair.equivalent else "no",
        "metadata": {
            "prompt": [{"role": "system", "content": EQUIVALENCE_SYSTEM}, {"role": "user", "content": user}],
            "graph": ",".join(directed + confounded),
            "a": pair.a.text,
            "b": pair.b.text,
            "equivalent": pair.equivalent,
            "negative_kind": pair.negative_kind,
            "edges": len(graph.edges),
            "terms": probability_terms(pair.b),
        },
    }


def probability_terms(expression: Expr) -> int:
    """How many probability terms ``expression`` holds."""
    return int(isinstance(expression, Prob)) + sum(probability_terms(child) for child in children(expression))


def _pair_score(answer: str, entry: Entry) -> float:
    return cladder_answer_reward([None], [answer], answer=[entry["answer"]])[0]


def _pair_measure(entries: Sequence[Entry]) -> dict[str, float]:
    return {
        "edges": fmean(e["metadata"]["edges"] for e in entries),
        "terms": fmean(e["metadata"]["terms"] for e in entries),
        "characters": fmean(len(e["metadata"]["a"]) + len(e["metadata"]["b"]) for e in entries),
    }


EQUIVALENCE = Generator(
    name="cladder_equivalence",
    description="are two do-calculus expressions equal on this graph? (DoVerifier's synthetic pairs; yes/no)",
    knobs={
        "nodes": Knob(5, (3, 4, 5, 6, 7, 8), "observed nodes of the random DAG"),
        "latents": Knob(0, (0, 1, 2, 3), "unobserved common causes, each of a random pair of nodes"),
        "depth": Knob(2, (1, 2, 3, 4, 5), "rewrites of the derivation from A to B (before a mistake, for a no)"),
    },
    build=_pair_entry,
    score=_pair_score,
    measure=_pair_measure,
)


def _identification_entry(rng: random.Random, difficulty: Difficulty) -> Entry:
    nodes = difficulty["nodes"]
    while True:
        names, directed, confounded = random_admg(rng, min_nodes=nodes, max_nodes=nodes, latents=difficulty["latents"])
        query = random_query(rng, names, directed, difficulty["conditional_share"])
        if query is not None:
            break
    row = identified_row(0, names, directed, confounded, query)
    prompt = [{"role": m.role, "content": m.content} for m in row.prompt]
    return {
        "question": "\n\n".join(m["content"] for m in prompt),
        "answer": row.reference,
        "metadata": {
            "prompt": prompt,
            "graph": row.graph,
            "query": row.query,
            "identifiable": row.identifiable,
            "algorithm": row.algorithm,
            "derivation_steps": row.derivation_steps,
        },
    }


def _identification_score(answer: str, entry: Entry) -> float:
    meta = entry["metadata"]
    columns = {"query": [meta["query"]], "graph": [meta["graph"]], "reference": [entry["answer"]]}
    return identify_reward([None], [answer], **columns)[0]


def _identification_measure(entries: Sequence[Entry]) -> dict[str, float]:
    return {
        "not_identifiable": fmean(not e["metadata"]["identifiable"] for e in entries),
        "derivation_steps": fmean(e["metadata"]["derivation_steps"] for e in entries),
        "conditional": fmean(e["metadata"]["algorithm"].startswith("IDC") for e in entries),
    }


IDENTIFICATION = Generator(
    name="identification",
    description="identify P(Y | do(X)[, Z]) on an ADMG: its estimand or 'not identifiable' (ID/IDC)",
    knobs={
        "nodes": Knob(6, (4, 5, 6, 7, 8), "observed nodes of the random ADMG"),
        "latents": Knob(2, (0, 1, 2, 3, 4, 5, 6), "pairs of nodes confounded by a latent common cause"),
        "conditional_share": Knob(0.25, (0.0, 0.25, 0.5, 0.75, 1.0), "share of queries conditioned on a node"),
    },
    build=_identification_entry,
    score=_identification_score,
    measure=_identification_measure,
)
