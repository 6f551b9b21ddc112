"""Messages of the judge: a fixed rubric, then the sample, then the graph under review, then the task.

Message layout (for provider prompt caching the long, repeated parts come first):

1. system — the rubric for all four evaluation types and the YAML answer format (identical for
   every call);
2. user — the source text and the numbered ground-truth graph (identical for every call about
   this sample: the text is sent once per sample and is a cacheable prefix), followed by the
   numbered graph under review and the one evaluation to perform.
"""

from __future__ import annotations

from causal_datasets.graph import CausalGraph
from causal_datasets.recast.judge import labels
from causal_datasets.recast.records import RecastSample

Messages = list[dict[str, str]]

_TITLES = {
    "node_precision": "NODE PRECISION: judge every node of the response graph",
    "node_recall": "NODE RECALL: judge every node of the ground-truth graph",
    "edge_precision": "EDGE PRECISION: judge every edge of the response graph",
    "edge_recall": "EDGE RECALL: judge every edge of the ground-truth graph",
}


def _choices(label_set: object) -> str:
    return " | ".join(labels.labels_of(label_set))


RUBRIC = f"""You are an economist grading a causal graph that a model extracted from a paper. You
receive the paper's text, the ground-truth causal graph, the model's graph (the "response") and
ONE evaluation type. Perform only that evaluation; the others are graded in separate requests.

How to work:
- Go through the items one by one, in order, without skipping any, however many there are.
- Before labeling an item, quote the candidate counterparts you considered (nodes, edges or text
  passages). Compare with all plausible counterparts, then give exactly one set of labels.
- When a comparison is impossible because an earlier label rules it out, choose the
  Not-Applicable label explicitly (with PRESENCE_NO_MATCH every other label of that block is its
  *_NA label, and DIRECTION_MISSING in edge recall). Never leave a label out.
- When torn between two labels, pick the harsher one.
- Think step by step inside <think></think>, then give the answer as one YAML code block.

NODE PRECISION — for each response node:
  graph_evaluation (against the ground-truth nodes):
    presence_label: {_choices(labels.Presence)}
      (strong: same concept, trivial differences; weak: related meaning with visible differences;
      no match: no ground-truth node is even close)
    semantic_label: {_choices(labels.SemanticPrecision)}
      (strong: (nearly) the same meaning; moderate: same core, different scope or implication;
      weak: overlapping but substantially different)
    abstraction_label: {_choices(labels.Abstraction)}
      (broader: a more general concept containing the ground-truth node; aligned: same scope;
      narrower: a specific part of it; NA: too different to compare)
  text_evaluation (against the source text; quote every supporting passage):
    presence_label: {_choices(labels.Presence)}
    semantic_label: {_choices(labels.SemanticPrecision)}
      (strong: says what the text says with little interpretation; moderate: some
      interpretation; weak: heavy interpretation, meaning only partly kept)
    abstraction_label: {_choices(labels.Abstraction)}

NODE RECALL — for each ground-truth node, against the response nodes:
    importance_label: {_choices(labels.NodeImportance)}
      (core: central to the causal structure; intermediate: a key link between central concepts;
      peripheral: supplementary context)
    presence_label: {_choices(labels.Presence)}
    semantic_label: {_choices(labels.SemanticRecall)}
      (complete: fully captured, by one or several response nodes; partial: the core is there
      with some loss; minimal: only surface aspects)
    abstraction_label: {_choices(labels.Abstraction)}

EDGE PRECISION — for each response edge:
  graph_evaluation (against the ground-truth edges):
    presence_label: {_choices(labels.Presence)}
      (strong: links closely matching concepts; weak: links somewhat similar concepts)
    directionality_label: {_choices(labels.DirectionPrecision)}
    abstraction_label: {_choices(labels.Abstraction)}
  text_evaluation (against the causal claims of the text; quote them):
    presence_label: {_choices(labels.EvidencePresence)}
      (GRAPH_ONLY whenever the relationship is in the ground-truth graph; otherwise EXPLICIT if
      the text states it, IMPLIED if it can reasonably be inferred, NO_MATCH if nothing supports it)
    inference_label: {_choices(labels.Inference)}
      (direct: the text's explicit claim; derived: follows logically; stretched: possible but
      weakly supported)
    abstraction_label: {_choices(labels.Abstraction)}
      (broader: generalizes several textual relationships; narrower: a subset of one)

EDGE RECALL — for each ground-truth edge, against the response edges:
    importance_label: {_choices(labels.EdgeImportance)}
      (how important the edge is to the ground-truth graph, whether or not the response has it:
      central: drives the main effects; connecting: links major chains; auxiliary: context)
    presence_label: {_choices(labels.Presence)}
    directionality_label: {_choices(labels.DirectionRecall)}
      (missing: the relationship is absent from the response)
    abstraction_label: {_choices(labels.Abstraction)}
      (aligned: a one-to-one match at a similar level of detail)

Answer format — only the section of the requested evaluation, one entry per item, numbered as in
the request:

```yaml
node_precision_evaluations:
  - node_number: 1
    graph_evaluation:
      presence_label: ...
      semantic_label: ...
      abstraction_label: ...
    text_evaluation:
      presence_label: ...
      semantic_label: ...
      abstraction_label: ...
node_recall_evaluations:
  - node_number: 1
    importance_label: ...
    presence_label: ...
    semantic_label: ...
    abstraction_label: ...
edge_precision_evaluations:
  - edge_number: 1
    graph_evaluation:
      presence_label: ...
      directionality_label: ...
      abstraction_label: ...
    text_evaluation:
      presence_label: ...
      inference_label: ...
      abstraction_label: ...
edge_recall_evaluations:
  - edge_number: 1
    importance_label: ...
    presence_label: ...
    directionality_label: ...
    abstraction_label: ...
```"""


def numbered_graph(graph: CausalGraph) -> str:
    """Nodes and edges numbered from 1, the numbering the judge's answer refers to."""
    nodes = "\n".join(f"{i}. {name}" for i, name in enumerate(graph.nodes, start=1)) or "(none)"
    edges = "\n".join(f"{i}. {s} -> {t}" for i, (s, t) in enumerate(graph.edges, start=1)) or "(none)"
    return f"Nodes:\n{nodes}\n\nEdges:\n{edges}"


def sample_prefix(sample: RecastSample) -> str:
    """The per-sample part shared by every judge call on this sample (text, then ground truth)."""
    return (
        f"<source_text>\n{sample.input_text}\n</source_text>\n\n"
        f"<ground_truth_graph>\n{numbered_graph(sample.graph())}\n</ground_truth_graph>\n\n"
    )


def judge_messages(sample: RecastSample, response: CausalGraph, kind: str) -> Messages:
    """The messages of one evaluation ``kind`` of ``response`` on ``sample``."""
    task = (
        f"<response_graph>\n{numbered_graph(response)}\n</response_graph>\n\n"
        f"Evaluation to perform: {_TITLES[kind]}. Answer with the {kind}_evaluations section only."
    )
    return [{"role": "system", "content": RUBRIC}, {"role": "user", "content": sample_prefix(sample) + task}]
