"""Assemble a :class:`RecastSample` from its primary fields, computing every derived field once."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from causal_datasets.graph import CausalGraph
from causal_datasets.recast.journals import journal_from_url
from causal_datasets.recast.records import UNLABELED, RecastEdge, RecastNode, RecastSample

#: simple cycles are counted up to this many; beyond it ``num_cycles_capped`` is set
CYCLE_COUNT_LIMIT = 100_000


def make_sample(
    *,
    id: int,
    title: str,
    source: str,
    url: str,
    publication_date: datetime.date | None,
    domains: Sequence[str],
    nodes: Sequence[tuple[str, str]],
    edges: Sequence[tuple[str, str]],
    input_text: str,
    abstract: str,
    explicitness: float | None = None,
) -> RecastSample:
    """A validated sample; ``nodes`` are ``(name, explicitness)``, ``edges`` ``(source, target)``.

    The journal comes from the URL (:func:`journal_from_url`). ``explicitness`` is the share of
    explicit nodes as a source stores it (kept as given); None computes it over the nodes. The
    degrees of confounding are the paper's: over all nodes, a node without a label counting as not
    explicit (lenient) and not absent (strict).

    Every edge end must be a declared node (a :class:`ValueError` names the first that is not).
    """
    names = [name for name, _ in nodes]
    known = set(names)
    for source_name, target in edges:
        for end in (source_name, target):
            if end not in known:
                raise ValueError(f"sample {id}: edge {source_name!r} -> {target!r} uses undeclared node {end!r}")
    graph = CausalGraph.from_edges(edges, nodes=names)
    levels = [level for _, level in nodes]
    labeled = [level for level in levels if level != UNLABELED]
    issn, journal = journal_from_url(url)
    cycles = graph.num_cycles(limit=CYCLE_COUNT_LIMIT)
    return RecastSample(
        id=id,
        title=title,
        source=source,
        journal=journal,
        journal_issn=issn,
        url=url,
        publication_date=publication_date,
        domains=list(dict.fromkeys(domains)),
        nodes=[RecastNode(name=name, explicitness=level) for name, level in nodes],
        edges=[RecastEdge(source=s, target=t) for s, t in edges],
        input_text=input_text,
        abstract=abstract,
        text_length=len(input_text),
        num_nodes=len(names),
        num_edges=len(edges),
        num_duplicate_edges=len(edges) - len(set(edges)),
        num_unlabeled_nodes=len(levels) - len(labeled),
        explicitness=_share(levels, {"explicit"}) if explicitness is None else float(explicitness),
        confounding_lenient=_share(levels, {"implicit", "absent", UNLABELED}),
        confounding_strict=_share(levels, {"absent"}),
        is_acyclic=graph.is_acyclic(),
        num_cycles=cycles,
        num_cycles_capped=cycles >= CYCLE_COUNT_LIMIT,
    )


def _share(levels: Sequence[str], counted: set[str]) -> float | None:
    return sum(level in counted for level in levels) / len(levels) if levels else None
