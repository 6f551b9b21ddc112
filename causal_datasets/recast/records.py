"""Row models of the ReCAST dataset: an economics paper's text and its causal loop diagram, and the
request of its ``prompts`` config."""

from __future__ import annotations

import datetime
from typing import Literal, get_args

from pydantic import Field

from causal_datasets.graph import CausalGraph
from causal_datasets.records.base import Record
from causal_datasets.records.prompts import PromptRow

#: the paper's six domain categories (every sample carries "Economics & Public Policy")
Domain = Literal[
    "Agriculture & Food Systems",
    "Economics & Public Policy",
    "Education",
    "Engineering & Technology",
    "Environmental & Earth Sciences",
    "Medicine",
]
DOMAINS: tuple[str, ...] = get_args(Domain)

#: how visible a ground-truth node is in the text (release codes 1, 2, 3); "unlabeled" when the
#: release has no code for the node (a null inside a list of structs does not survive ``datasets``
#: encoding when it comes first, so the gap is a label of its own)
Explicitness = Literal["explicit", "implicit", "absent", "unlabeled"]
EXPLICITNESS_LEVELS: tuple[str, ...] = get_args(Explicitness)[:3]
UNLABELED = "unlabeled"

Publisher = Literal["MDPI", "PLOS"]


class RecastEdge(Record):
    """One directed causal link ``source -> target`` of the ground-truth diagram."""

    source: str = Field(description="Name of the cause (a node `name`).")
    target: str = Field(description="Name of the effect (a node `name`); equal to `source` in a self-loop.")


class RecastNode(Record):
    """One ground-truth variable and how explicitly the text mentions it."""

    name: str = Field(description="The variable as the diagram names it.")
    explicitness: Explicitness = Field(
        description="How the text mentions the variable (release codes 1, 2, 3): `explicit` named in the text, "
        "`implicit` only implied, `absent` not in the text; `unlabeled` when the release gives the node no code."
    )


class RecastSample(Record):
    """One benchmark sample: source text, ground-truth graph, labels and derived statistics.

    ``edges`` are as annotated (a repeated link stays repeated and is counted in
    ``num_duplicate_edges``). Derived fields (``text_length`` … ``num_cycles_capped``, ``explicitness``
    aside) are computed from the other fields when the record is built, so they always agree with
    the graph and the text; the degrees of confounding are the paper's, over all nodes.
    ``explicitness`` is the release's stored share, kept as released.
    """

    id: int = Field(description="Sample id, as in the release.")
    title: str = Field(description="Title of the source paper.")
    source: Publisher = Field(description="Publisher of the paper.")
    journal: str | None = Field(description="Journal name, from the URL (null for an ISSN without a known name).")
    journal_issn: str | None = Field(
        description="ISSN of the journal, read from the URL (MDPI URLs carry it; PLOS DOIs name the journal)."
    )
    url: str = Field(description="Address of the paper.")
    publication_date: datetime.date | None = Field(description="Publication date as released (null when missing).")
    domains: list[Domain] = Field(
        description="Domain categories of the paper; every sample has `Economics & Public Policy`."
    )
    nodes: list[RecastNode] = Field(description="Ground-truth variables of the diagram, in release order.")
    edges: list[RecastEdge] = Field(
        description="Ground-truth causal links as annotated (a repeated link stays repeated)."
    )
    input_text: str = Field(
        description="The paper as Markdown, stripped of references to the diagram: the model's input."
    )
    abstract: str = Field(description="The paper's abstract (empty when the release has none).")
    text_length: int = Field(description="Characters in `input_text`.")
    num_nodes: int = Field(description="Number of `nodes`.")
    num_edges: int = Field(description="Number of `edges`, repeats included.")
    num_duplicate_edges: int = Field(description="Edges that repeat an earlier edge of the same sample.")
    num_unlabeled_nodes: int = Field(description="Nodes whose `explicitness` is `unlabeled` (no code in the release).")
    explicitness: float | None = Field(
        description="Share of explicit nodes as the release stores it, kept as released (its denominator also counts "
        "explicitness codes of names that are not nodes, so in 11 samples it differs from the share among the nodes); "
        "computed over the nodes for samples made by the raw pipeline."
    )
    confounding_lenient: float | None = Field(
        description="Degree of confounding, lenient (the paper's DC): share of all nodes that are not explicit; "
        "an unlabeled node counts as not explicit."
    )
    confounding_strict: float | None = Field(
        description="Degree of confounding, strict (the paper's DC_strict): share of all nodes that are absent."
    )
    is_acyclic: bool = Field(description="Whether the diagram has no directed cycle (self-loops count as cycles).")
    num_cycles: int = Field(description="Number of simple directed cycles, counted up to 100,000.")
    num_cycles_capped: bool = Field(description="Whether counting cycles stopped at the 100,000 cap.")

    def graph(self) -> CausalGraph:
        """The ground-truth diagram (node order as released, cycles and self-loops kept)."""
        return CausalGraph.from_edges(((e.source, e.target) for e in self.edges), nodes=(n.name for n in self.nodes))

    def node_names(self) -> list[str]:
        return [n.name for n in self.nodes]


class RecastPromptRow(PromptRow):
    """A ReCAST paper's generation request in one prompt variant; ``reference`` is the ground-truth
    graph as the JSON code block that variant asks for (node names, or node ids when name-assisted)."""

    sample_id: int = Field(description="The `id` of the sample in the `default` config.")
    variant: Literal["standard", "name_assisted"] = Field(
        description="Prompt variant: `standard` (the model names the variables and is told how many there are) or "
        "`name_assisted` (the model gets the ground-truth node names with integer ids and answers with ids)."
    )
    domains: list[Domain] = Field(description="The sample's domain categories (slice).")
    num_nodes: int = Field(description="Nodes of the ground-truth diagram (slice).")
    num_edges: int = Field(description="Edges of the ground-truth diagram, repeats included (slice).")
    confounding_lenient: float | None = Field(description="The sample's lenient degree of confounding (slice).")
    confounding_strict: float | None = Field(description="The sample's strict degree of confounding (slice).")
