"""Do-calculus equivalence: is a predicted causal expression equal to the reference under the DAG?

Thin adapter over :func:`causal_datasets.docalc.scoring.score_pairs`.
"""

import datasets
import evaluate

# the module, not the class: evaluate.load takes the first Metric class it finds
from causal_datasets import metric_base
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
"""  # noqa: E501 (the card's BibTeX, byte for byte)

_DESCRIPTION = """
Decides, for each pair, whether the predicted expression equals the reference in every causal
model of the given DAG (do-calculus proof search plus an exact check on random structural
models: "equivalent" is never returned for a false identity, "not equivalent" always has a
counterexample). Observed variables have two values unless `values` says otherwise; latent
common causes (`A<->B`) have any number. Where the DAG is unknown, independence statements "X ⊥ Y | Z" \
stand in for it and
only what they imply is decided. Reports the share of equivalent predictions beside the surface
baselines: normalized string match, BLEU and token F1.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: expressions, e.g. "\\sum_{Z} P(Y | X, Z) * P(Z)".
    references: reference expressions, e.g. "P(Y | do(X))".
    graphs: one edge list per pair, e.g. "X->Y,Z->X,Z->Y" (None for a pair judged by its independences).
    latents: optional unobserved nodes per pair (list of names or comma-separated string).
    independences: optional, per pair whose graph is None: statements "X ⊥ Y | Z; W ⊥ Y" (or a list).
    complete_independences: the statements are every independence of the DAG (default False: some).
    values: optional numbers of values of observed variables (default 2 each): one mapping for all
        pairs, e.g. {"Z": 3}, or one per pair (a mapping, "Z=3,W=4" or None).
    seed: seed of the random models (default 0).
    prove: also search a proof for equivalent pairs (slower; the verdicts are the same).
    time_limit: optional seconds per pair (default None: no limit, verdicts independent of the machine);
        a pair not decided in time is undecided, scored wrong like every undecided pair.
    scoring: "equivalence" (default, DoVerifier's rule: equal to the reference in every model of the
        graph; do(), counterfactual terms and unobserved variables allowed) or "identification" (also
        a formula in observed probabilities only: no do(), no counterfactual, no unobserved variable).
Returns:
    accuracy (share right under `scoring`; undecidable pairs count as wrong), scoring,
    equivalence_accuracy and identification_accuracy (both rules), string_match, bleu, token_f1
    (means; per pair in bleu_scores, token_f1_scores), verdicts (equivalence: True/False/None per
    pair), identified (identification: True/False/None per pair), methods ("identical", "proof",
    "semantic", "independences", "error"), errors (reason per pair or None), method_counts, undecided, unparsable
    (predictions that are not text or do not parse: wrong).
Example:
    >>> metric = evaluate.load(causal_datasets.paths.metric_path("do_calculus_equivalence"))
    >>> metric.compute(predictions=["P(Y | X)"], references=["P(Y | do(X))"], graphs=["X->Y"])["accuracy"]
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DoCalculusEquivalence(metric_base.BatchMetric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(
        self,
        predictions,
        references,
        graphs=None,
        latents=None,
        independences=None,
        complete_independences=False,
        seed=0,
        prove=False,
        scoring="equivalence",
        values=None,
        time_limit=None,
    ):
        if graphs is None and independences is None:
            raise ValueError("graphs is required: one edge list per pair (or independences per pair)")
        return score_pairs(
            predictions,
            references,
            graphs,
            latents,
            independences=independences,
            complete=complete_independences,
            seed=seed,
            prove=prove,
            scoring=scoring,
            values=values,
            time_limit=time_limit,
        )
