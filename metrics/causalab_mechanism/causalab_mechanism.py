"""CausaLab mechanism metrics: how well a stated hypothesis matches the episode's hidden SCM.

Thin adapter over :func:`causal_datasets.causalab.metrics.score_batch`.
"""

import datasets
import evaluate

# the module, not the class: evaluate.load takes the first Metric class it finds
from causal_datasets import metric_base
from causal_datasets.causalab.metrics import score_batch

_CITATION = """\
@misc{yang2026causalab,
  title         = {CausaLab: A Scalable Environment for Interactive Causal Discovery Toward AI Scientists},
  author        = {Yang, Junlin and Zhang, Dylan and Song, Xiangchen and Dai, Qirun and Liu, Xiao and Chen, Yuen and Vashishtha, Aniket and Shi, Jing and Tan, Chenhao and Peng, Hao},
  year          = {2026},
  eprint        = {2605.26029},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2605.26029}
}
"""  # noqa: E501 (the card's BibTeX, byte for byte)

_DESCRIPTION = """
Scores CausaLab hypotheses against the ground-truth SCM of their episodes: directed edge precision,
recall and F1 and SHD (a reversal counts once), frequency-edge F1 (edges into resonanceFreq),
coefficient F1 (the frequency equation's terms, exact to 1e-6; in the quadratic family c_<P>_1
is the P^2 term and c_<P>_2 the P term, as the authors' prompt names them), root-node F1
(parentless ancestors of resonanceFreq), formula hit (the stated equation on the reactor crystal within \
the episode's 5 Hz tolerance) and, when outcomes are given, task accuracy.
A hypothesis that cannot be read scores the worst (every F1 0, no formula hit, the maximal SHD
n(n-1) over the episode's n nodes) and stays in every mean; bad references or successes and an
empty batch are a ValueError naming the item.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: hypotheses as JSON text — a DSL step, a model reply containing one, or a bare
        {"edges", "freq_equation", "coefficients"} object. Anything unreadable scores the worst.
    references: the episodes: `causalab` dataset rows as they load (dicts), or their JSON
        (CausaLabEpisode.model_dump_json()).
    successes: optional task outcome of each episode (True when the reactor was activated).
Returns:
    count, edge_precision, edge_recall, edge_f1, shd, freq_edge_f1, coefficient_f1, root_f1,
    formula_hit (means over every episode), task_accuracy (with successes) and unparsable (the
    hypotheses that could not be read, scored the worst).
Example:
    >>> metric = evaluate.load(causal_datasets.paths.metric_path("causalab_mechanism"))
    >>> metric.compute(predictions=[step_json], references=[episode.model_dump_json()])["edge_f1"]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CausalabMechanism(metric_base.BatchMetric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references, successes=None):
        return score_batch(predictions, references, successes)
