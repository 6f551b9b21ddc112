"""Causal graph metrics: SHD and node/edge precision, recall and F1 between predicted and reference graphs.

Thin adapter over :func:`causal_datasets.scoring.graph_compare.compare_graph_batch`.
"""

import datasets
import evaluate

# the module, not the class: evaluate.load takes the first Metric class it finds
from causal_datasets import metric_base
from causal_datasets.recast.deterministic import FIELDS
from causal_datasets.scoring.graph_compare import compare_graph_batch

_CITATION = """\
@article{saklad2025recast,
  title   = {Can Large Language Models Infer Causal Relationships from Real-World Text?},
  author  = {Saklad, Ryan and Chadha, Aman and Pavlov, Oleg and Moraffah, Raha},
  journal = {arXiv preprint arXiv:2505.18931},
  year    = {2025},
  url     = {https://arxiv.org/abs/2505.18931}
}
"""

_DESCRIPTION = """
Compares each predicted directed graph with its reference graph: directed-edge precision, recall
and F1, node precision, recall and F1, structural Hamming distance (missing + extra +
reversal_cost x reversed; reversal_cost 1 as in pcalg/gadjid, 2 as in cdt and ReCAST's published
numbers) and normalized SHD (by n(n-1) over the union of nodes, "node_pairs", or by the number of
reference edges, "reference_edges"). Node names are matched exactly, after normalization (case,
punctuation, plurals), by fuzzy one-to-one assignment, or through an id table (ReCAST's
name-assisted task). Cycles, 2-cycles, self-loops, empty graphs and duplicate edges are allowed.
A prediction that cannot be read (None, a malformed edge) scores the worst for its item (rates 0,
the maximal SHD n(n-1) over the reference's n nodes) and stays in every average; references that
cannot be read, an empty batch and out-of-range options are a ValueError naming them.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one graph per item, a list of {"source", "target"} edges or of "A -> B" strings
        (integer source/target for node_matching="ids"); None or an unreadable graph scores the worst.
    references: the reference graph of each item, in the same forms (e.g. the `edges` of recast rows).
    reversal_cost: what a reversed edge adds to SHD, within 1..2: 1 (default) or 2.
    node_matching: "exact" (default), "normalized", "fuzzy" or "ids".
    normalization: "node_pairs" (default) or "reference_edges".
    fuzzy_threshold: minimum similarity in [0, 1] for "fuzzy" matching (default 0.8).
    node_ids: for "ids" matching, {id: reference name} for every item or a list with one per item.
Returns:
    node_precision, node_recall, node_f1, edge_precision, edge_recall, edge_f1, shd,
    normalized_shd: means over every item (macro); micro: the rates from pooled counts, shd_total and
    the pooled counts; per_item: each field and the warnings as a list in input order; count (items),
    unparsable (items whose prediction could not be read, scored the worst); errors: [{index,
    message}] for those items; normalization, reversal_cost.
Example:
    >>> metric = evaluate.load(causal_datasets.paths.metric_path("causal_graph_metrics"))
    >>> metric.compute(predictions=[["A -> B", "C -> B"]], references=[["A -> B", "B -> C"]])["shd"]
    1.0
"""

_PER_ITEM = (
    *FIELDS,
    "true_positives",
    "false_positives",
    "false_negatives",
    "reversed",
    "warnings",
)
_EDGE = {"source": datasets.Value("string"), "target": datasets.Value("string")}
_ID_EDGE = {"source": datasets.Value("int64"), "target": datasets.Value("int64")}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CausalGraphMetrics(metric_base.BatchMetric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features({"predictions": datasets.List(_EDGE), "references": datasets.List(_EDGE)}),
                datasets.Features(
                    {
                        "predictions": datasets.List(datasets.Value("string")),
                        "references": datasets.List(datasets.Value("string")),
                    }
                ),
                # ReCAST name-assisted answers: integer node ids, with node_matching="ids"
                datasets.Features({"predictions": datasets.List(_ID_EDGE), "references": datasets.List(_EDGE)}),
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        reversal_cost=1,
        node_matching="exact",
        normalization="node_pairs",
        fuzzy_threshold=0.8,
        node_ids=None,
    ):
        batch = compare_graph_batch(
            predictions,
            references,
            reversal_cost=reversal_cost,
            node_matching=node_matching,
            normalization=normalization,
            fuzzy_threshold=fuzzy_threshold,
            node_ids=node_ids,
        )
        per_item = {name: [getattr(item, name) for item in batch.items] for name in _PER_ITEM}
        return {
            **batch.macro,
            "micro": batch.micro,
            "per_item": per_item,
            "errors": [{"index": error.index, "message": error.message} for error in batch.errors],
            "normalization": normalization,
            "reversal_cost": reversal_cost,
        }
