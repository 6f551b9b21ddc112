"""The seeded families of random models of a graph that :mod:`.decide` compares expressions on.

A family is drawn once per graph, seed, size and kind (table models, or response models when a
counterfactual occurs: :mod:`.semantics`) and kept on the graph, so every pair checked under one graph
shares it and its cached distributions.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.semantics import Model, ResponseModel, TableModel


def random_models(graph: DoGraph, seed: int, members: int, counterfactual: bool) -> Model:
    """The seeded family of ``members`` random models of ``graph`` (response models when
    counterfactuals occur).

    Families are kept on the graph object, so pairs checked under one graph share them (and their
    cached interventional distributions)."""
    key = ("models", seed, members, counterfactual)
    model: Model | None = graph._cache.get(key)
    if model is None:
        rng = np.random.Generator(np.random.PCG64(_seed_sequence(seed, members)))
        model = ResponseModel(graph, rng, members) if counterfactual else TableModel.random(graph, rng, members)
        graph._cache[key] = model
    return model


@lru_cache(maxsize=64)
def _seed_sequence(seed: int, members: int) -> np.random.SeedSequence:
    """The entropy of a model family's stream, hashed once (a fresh generator per family stays cheap)."""
    return np.random.SeedSequence([seed, members])
