"""CoBe edit criteria: an LLM judge checks each counterfactual rewrite against the row's criteria.

Thin adapter over :mod:`causal_datasets.cobe` (prompts, judge, scoring).
"""

import datasets
import evaluate

# the module, not the class: evaluate.load takes the first Metric class it finds
from causal_datasets import metric_base
from causal_datasets.cobe.judge import DEFAULT_ATTEMPTS
from causal_datasets.cobe.metric import read_references
from causal_datasets.cobe.metric import score_responses
from causal_datasets.llm.options import judge_client

_CITATION = """\
@misc{raghavan2026cobe,
  title  = {{CoBe}: Counterfactual Benchmark for Text Editing},
  author = {Raghavan, Arvind and Hwang, Inwoo and Havaldar, Shreyas and Lee, Kai-Zhan and Maiti, Aurghya and Pan, Yushu and Wu, Jeffrey and Li, Mingxuan and Bareinboim, Elias},
  year   = {2026},
  note   = {Causal Artificial Intelligence Lab, Columbia University. Under review}
}
"""  # noqa: E501 (the card's BibTeX, byte for byte)

_DESCRIPTION = """
For each response, one judge call per criterion type the reference has: E1 should-not-change facts
kept, E2 should-change facts changed, E3 causal connectors correct (every row), E4 numerical
direction, E5 latent factors kept. Prompts are the CoBe paper's appendix C.2 prompts; answers must be a
single T or F (re-asked when not). A response is correct iff every criterion passes.
A missing, non-text or empty response is wrong without a judge call and counted in `unparsable`;
a reference without a criterion list, a label outside its set, an empty batch or an option out of
range is a ValueError naming the argument and the item.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: the model's rewrites (strings; anything else, or empty, is wrong).
    references: one dict per prediction with lists `should_not_change`, `should_change`,
        `numerical_change`, `latent_factors` (required; [] when the row has none) and labels
        `domain`, `graph_type`, `phrasing` (names or class-label integers; absent, None or "" when
        not known) — rows of the `queries` config of the cobe dataset as they load (other columns
        are ignored).
    judge_model: the judge's model name (required).
    judge_base_url: OpenAI-compatible endpoint (default https://api.openai.com/v1).
    judge_api_key_env: environment variable holding the key (default OPENAI_API_KEY).
    judge_max_tokens, judge_temperature, judge_seed: sampling of the judge (default 16, 0.0, 0).
    judge_config: further settings of the judge, as `causal-datasets eval --judge-model-config` reads them
        (e.g. {"reasoning_effort": "high", "max_completion_tokens": 4096}); its keys win over the judge_* arguments.
    max_attempts: asks per criterion until a valid T/F answer (default 3, at least 1).
    concurrency: responses judged at once (default 4, at least 1).
    cache_path: optional SQLite response cache of the judge.
    reference_verdicts: optional list of "correct"/"wrong"/"unknown" (e.g. published or human
        verdicts); adds `agreement` (accuracy, precision, recall, F1, Cohen's kappa).
    rater_verdicts: optional list of two or more raters' verdict lists (one verdict per prediction
        each); adds `raters`: their Fleiss' kappa, pairwise Cohen's kappa, unanimous share, and the
        judge's agreement with their strict majority and kappa with each (the paper's App. C.3).
Returns:
    accuracy, n, correct, wrong, unknown, unparsable (missing or empty responses, wrong), failure_rate {E1..E5}, \
criteria {E1..E5: counts},
    by_domain, by_graph_type, by_phrasing, items (per-response verdict and criterion verdicts),
    judge_usage, agreement when reference_verdicts is given and raters when rater_verdicts is.
"""

_LIST = datasets.Sequence(datasets.Value("string"))


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CobeEditCriteria(metric_base.BatchMetric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": {
                        "should_not_change": _LIST,
                        "should_change": _LIST,
                        "numerical_change": _LIST,
                        "latent_factors": _LIST,
                        "domain": datasets.Value("string"),
                        "graph_type": datasets.Value("string"),
                        "phrasing": datasets.Value("string"),
                    },
                }
            ),
        )

    def _compute(
        self,
        predictions,
        references,
        judge_model=None,
        judge_base_url="https://api.openai.com/v1",
        judge_api_key_env="OPENAI_API_KEY",
        judge_max_tokens=16,
        judge_temperature=0.0,
        judge_seed=0,
        judge_config=None,
        max_attempts=DEFAULT_ATTEMPTS,
        concurrency=4,
        cache_path=None,
        reference_verdicts=None,
        rater_verdicts=None,
    ):
        rows = read_references(predictions, references, max_attempts=max_attempts, concurrency=concurrency)
        client = judge_client(
            "cobe_edit_criteria",
            judge_model,
            judge_base_url,
            cache_path=cache_path,
            api_key_env=judge_api_key_env,
            max_tokens=judge_max_tokens,
            temperature=judge_temperature,
            seed=judge_seed,
            settings=judge_config,
        )
        with client:
            result = score_responses(
                client,
                predictions,
                rows,
                max_attempts=max_attempts,
                concurrency=concurrency,
                reference_verdicts=reference_verdicts,
                rater_verdicts=rater_verdicts,
            )
            result["judge_usage"] = client.usage_summary()
        return result
