"""Prompts of the ReCAST graph-generation task, as pure functions of a sample.

Two variants, as in the paper: *standard* (the model names the variables itself and is told how
many nodes the graph has) and *name-assisted* (the model receives the ground-truth node names
with integer ids and answers with ids). Each has a formatting-correction prompt that turns a
malformed answer into the expected JSON without changing its content.
"""

from __future__ import annotations

import json

from causal_datasets.recast.records import RecastPromptRow, RecastSample
from causal_datasets.records.prompts import chat_messages

Messages = list[dict[str, str]]

_ANSWER_FORMAT = """```json
{
  "relationships": [
    {"source": SOURCE, "sink": SINK},
    {"source": SOURCE, "sink": SINK}
  ]
}
```"""
NAME_FORMAT = _ANSWER_FORMAT.replace("SOURCE", '"cause variable"').replace("SINK", '"effect variable"')
ID_FORMAT = _ANSWER_FORMAT.replace("SOURCE", "<id of the cause node>").replace("SINK", "<id of the effect node>")

GENERATION_INSTRUCTIONS = """You are an economist who reasons carefully about cause and effect.
The user will send you an economics paper in Markdown. Build the causal graph that the paper
describes: every relationship in which one variable drives another.

Think it through at length inside <think> and </think> first. Then give the graph as a single
JSON code block and nothing else after it, in exactly this shape (one object per relationship):

ANSWER_FORMAT

The graph must contain exactly NUM_NODES distinct nodes. Put no explanation or commentary in
the final answer, only the JSON code block."""

NAME_ASSISTED_INSTRUCTIONS = """You are an economist who reasons carefully about cause and effect.
The user will send you an economics paper in Markdown together with the nodes of its causal
graph, each with an integer id. Build the causal graph the paper describes over these nodes:
every relationship in which one node drives another. Every node must take part in at least one
relationship.

Think it through at length inside <think> and </think> first. Then give the graph as a single
JSON code block and nothing else after it, in exactly this shape (one object per relationship):

ANSWER_FORMAT

Refer to nodes only by their integer id, never by their name: if the nodes were
{"nodes": [{"name": "supply", "id": 1}, {"name": "demand", "id": 2}]} then "demand"
would be written as 2. Put no explanation or commentary in the final answer, only the JSON code
block.

The nodes of this graph:

```json
NODE_JSON
```"""

CORRECTION_INSTRUCTIONS = """A model was asked for a causal graph of an economics paper and its
answer is not in the required JSON format. Rewrite its final answer into that format. Keep the
content exactly as the model gave it: same variables, same spelling (typos included), same
directions; change only the formatting, which may mean writing the JSON from scratch. Use the
answer the model arrived at last; earlier drafts and reasoning are only context. If the text
contains nothing that looks like a causal graph, return an empty list of relationships.

Required format:

ANSWER_FORMAT
ID_RULE
Reply with the JSON code block only: no reasoning, no commentary."""

_ID_RULE = """
The model was given these nodes with integer ids; write every node as its id, whether the model
used the id or the name:

```json
NODE_JSON
```
"""

#: a malformed answer is shown to the corrector in full up to this size, else its head and tail
CORRECTION_SNIPPET_CHARS = 12_000


def node_ids(sample: RecastSample) -> dict[int, str]:
    """The name-assisted id of each ground-truth node: 1, 2, … in the release's node order."""
    return {index: name for index, name in enumerate(sample.node_names(), start=1)}


def node_json(sample: RecastSample) -> str:
    return json.dumps(
        {"nodes": [{"name": name, "id": i} for i, name in node_ids(sample).items()]}, ensure_ascii=False, indent=1
    )


def build_messages(sample: RecastSample, *, name_assisted: bool = False) -> Messages:
    """The chat messages of the generation task for one sample."""
    if name_assisted:
        system = NAME_ASSISTED_INSTRUCTIONS.replace("ANSWER_FORMAT", ID_FORMAT).replace("NODE_JSON", node_json(sample))
    else:
        system = GENERATION_INSTRUCTIONS.replace("ANSWER_FORMAT", NAME_FORMAT).replace(
            "NUM_NODES", str(sample.num_nodes)
        )
    return [{"role": "system", "content": system}, {"role": "user", "content": sample.input_text}]


def reference_answer(sample: RecastSample, *, name_assisted: bool = False) -> str:
    """The ground-truth graph as the answer the prompt asks for: one JSON code block with each
    distinct relationship once, in the release's edge order (node ids when name-assisted)."""
    ids = {name: i for i, name in node_ids(sample).items()}
    ends = (lambda name: ids[name]) if name_assisted else (lambda name: name)
    edges = dict.fromkeys((e.source, e.target) for e in sample.edges)
    lines = ",\n".join(
        f"    {json.dumps({'source': ends(source), 'sink': ends(target)}, ensure_ascii=False)}"
        for source, target in edges
    )
    return f'```json\n{{\n  "relationships": [\n{lines}\n  ]\n}}\n```'


def prompt_rows(samples: list[RecastSample]) -> list[RecastPromptRow]:
    """The ``prompts`` config: per sample, the standard then the name-assisted request with its reference."""
    rows = []
    for sample in samples:
        for variant, name_assisted in (("standard", False), ("name_assisted", True)):
            rows.append(
                RecastPromptRow(
                    id=f"{sample.id}-{variant}",
                    prompt=chat_messages(build_messages(sample, name_assisted=name_assisted)),
                    reference=reference_answer(sample, name_assisted=name_assisted),
                    sample_id=sample.id,
                    variant=variant,
                    domains=sample.domains,
                    num_nodes=sample.num_nodes,
                    num_edges=sample.num_edges,
                    confounding_lenient=sample.confounding_lenient,
                    confounding_strict=sample.confounding_strict,
                )
            )
    return rows


def correction_messages(sample: RecastSample, answer: str, *, name_assisted: bool = False) -> Messages:
    """Messages asking a model to reformat a malformed ``answer`` (the paper's fallback step)."""
    id_rule = _ID_RULE.replace("NODE_JSON", node_json(sample)) if name_assisted else ""
    system = CORRECTION_INSTRUCTIONS.replace("ANSWER_FORMAT", ID_FORMAT if name_assisted else NAME_FORMAT)
    system = system.replace("ID_RULE", id_rule)
    return [{"role": "system", "content": system}, {"role": "user", "content": answer_snippet(answer)}]


def answer_snippet(answer: str, limit: int = CORRECTION_SNIPPET_CHARS) -> str:
    """``answer`` itself, or its head and (larger) tail joined by a marker when it is too long."""
    if len(answer) <= limit:
        return answer
    head = limit // 4
    return f"{answer[:head]}\n[... {len(answer) - limit} characters omitted ...]\n{answer[-(limit - head) :]}"
