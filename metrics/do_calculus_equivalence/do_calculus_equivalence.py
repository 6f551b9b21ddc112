"""Do-calculus equivalence: is a predicted causal expression equal to the reference under the DAG?

Thin adapter over :func:`causal_datasets.docalc.scoring.score_pairs`.
"""

import datasets
import evaluate

from causal_datasets.docalc.scoring import score_pairs

_CITATION = """\
@misc{doverifier2025,
  title  = {Uncovering Hidden Correctness in {LLM} Causal Reasoning via Symbolic Verification},
  author = {Anonymous},
  year   = {2025},
  note   = {Anonymous ACL submission (DoVerifier)}
}

@misc{jin2023cladder,
  title         = {{CLadder}: Assessing Causal Reasoning in Language Models},
  author        = {Jin, Zhijing and Chen, Yuen and Leeb, Felix and Gresele, Luigi and Kamal, Ojasv and Lyu, Zhiheng and Blin, Kevin and Gonzalez Adauto, Fernando and Kleiman-Weiner, Max and Sachan, Mrinmaya and Sch{\\"o}lkopf, Bernhard},
  year          = {2023},
  eprint        = {2312.04350},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2312.04350}
}
"""

_DESCRIPTION = """
Decides, for each pair, whether the predicted expression equals the reference in every causal
model of the given DAG (do-calculus proof search plus an exact check on random structural
models: "equivalent" is never returned for a false identity, "not equivalent" always has a
counterexample). Reports the share of equivalent predictions and the normalized string-match
baseline.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: expressions, e.g. "\\sum_{Z} P(Y | X, Z) * P(Z)".
    references: reference expressions, e.g. "P(Y | do(X))".
    graphs: one edge list per pair, e.g. "X->Y,Z->X,Z->Y".
    latents: optional unobserved nodes per pair (list of names or comma-separated string).
    seed: seed of the random models (default 0).
    prove: also search a proof for equivalent pairs (slower; the verdicts are the same).
Returns:
    accuracy (share equivalent; undecidable pairs count as wrong), string_match, verdicts
    (True/False/None per pair), methods ("identical", "proof", "semantic", "error"), errors
    (reason per pair or None), method_counts, undecided.
Example:
    >>> metric = evaluate.load(causal_datasets.paths.metric_path("do_calculus_equivalence"))
    >>> metric.compute(predictions=["P(Y | X)"], references=["P(Y | do(X))"], graphs=["X->Y"])["accuracy"]
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DoCalculusEquivalence(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references, graphs=None, latents=None, seed=0, prove=False):
        if graphs is None:
            raise ValueError("graphs is required: one edge list per pair")
        return score_pairs(predictions, references, graphs, latents, seed=seed, prove=prove)
