"""ShapeWorld (CausalLink) accuracy: the interactive episode metrics of the CausalLink paper.

Thin adapter over :func:`causal_datasets.shapeworld.scoring.score_episodes`.
"""

import datasets
import evaluate

# the module, not the class: evaluate.load takes the first Metric class it finds
from causal_datasets import metric_base
from causal_datasets.shapeworld.scoring import score_predictions

_CITATION = """\
@inproceedings{feng2025causallink,
  title     = {{CausalLink}: An Interactive Evaluation Framework for Causal Reasoning},
  author    = {Feng, Jinyue and Rudzicz, Frank},
  booktitle = {Findings of the Association for Computational Linguistics: ACL 2025},
  pages     = {22313--22326},
  year      = {2025},
  address   = {Vienna, Austria},
  publisher = {Association for Computational Linguistics},
  url       = {https://aclanthology.org/2025.findings-acl.1147/}
}
"""

_DESCRIPTION = """
Scores ShapeWorld episodes: accuracy overall, on true ("yes") and on false ("no") cases, its
standard error over initial setups, mean steps to a judgment, error counts by mode
(invalid_action, invalid_format, too_many_attempts, invalid_answer, llm_error) and wrong answers by
the paper's failure patterns (counts and shares of the wrong answers), overall, per causal
structure, per number of variables and per number of variables among the episodes that start with
every shape moving. An episode without a valid answer counts as wrong.
A prediction other than "yes"/"no" is wrong and counted in `unparsable`; a gold label outside
yes/no, a bad column value and an empty batch are a ValueError naming the argument and episode.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: "yes", "no", or "" when the episode ended without a valid answer (anything else
        is unparsable: wrong).
    references: the ground truth, "yes" or "no", or the dataset's `answer` class label (0 yes, 1 no).
    structures: optional structure of each episode (dataset column `structure`, names or integers).
    num_variables: optional number of shapes of each episode (dataset column `num_variables`).
    steps: optional number of actions each episode took.
    errors: optional terminal error mode of each episode ("" or None when none).
    invalid_actions: optional number of rejected actions in each episode.
    failure_patterns: optional failure pattern of each episode (results.jsonl `failure_pattern`).
    setups: optional initial setup of each episode (results.jsonl `setup`: graph id and the shapes
        moving at the start); without it `accuracy_se` is None.
    all_moving: optional flag per episode: every shape moves at the start (results.jsonl `all_moving`).
Returns:
    episodes, unparsable, accuracy, accuracy_se, setups, accuracy_true, accuracy_false, true_cases,
    false_cases, answered, predicted_yes, mean_steps, errors {mode: count}, error_total,
    failure_patterns {pattern: count}, failure_pattern_shares {pattern: share of wrong answers},
    and the same per structure (`by_structure`), per number of variables (`by_num_variables`)
    and per number of variables of the all-moving episodes (`by_num_variables_all_moving`).
Example:
    >>> metric = evaluate.load(causal_datasets.paths.metric_path("shapeworld_accuracy"))
    >>> metric.compute(predictions=["yes", "no", ""], references=["yes", "yes", "no"])["accuracy"]
    0.3333
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ShapeworldAccuracy(metric_base.BatchMetric):
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
        structures=None,
        num_variables=None,
        steps=None,
        errors=None,
        invalid_actions=None,
        failure_patterns=None,
        setups=None,
        all_moving=None,
    ):
        return score_predictions(
            predictions,
            references,
            structures=structures,
            num_variables=num_variables,
            steps=steps,
            errors=errors,
            invalid_actions=invalid_actions,
            failure_patterns=failure_patterns,
            setups=setups,
            all_moving=all_moving,
        )
