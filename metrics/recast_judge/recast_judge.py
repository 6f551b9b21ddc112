"""ReCAST judge: the paper's LLM-as-a-judge scores of predicted causal graphs, or name-based scores.

Thin adapter over :mod:`causal_datasets.recast.metric` (judge prompts, validation, scoring).
"""

from pathlib import Path

import datasets
import evaluate

# the module, not the class: evaluate.load takes the first Metric class it finds
from causal_datasets import metric_base
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.llm.options import judge_client
from causal_datasets.paths import DEFAULT_HUB_DIR
from causal_datasets.recast.metric import check_options
from causal_datasets.recast.metric import resolve_references
from causal_datasets.recast.metric import score_predictions

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
Four separate judge evaluations per predicted graph (node precision, node recall, edge precision,
edge recall), each answered in YAML with the ReCAST paper's label sets, validated (every item
numbered, every label from its set, Not-Applicable rules) and re-asked when invalid. Labels map to
scores through one table; precision items take the better of the graph and text composites (0 if
neither matches), recall is importance-weighted, overall precision/recall are micro-averaged over
nodes and edges. mode="deterministic" skips the judge and reports exact- and normalized-name
precision, recall, F1 and SHD (the paper's name-assisted evaluation); these are always included.
A prediction that cannot be read scores the worst (every judge rate 0, without a judge call; the
name-based SHD is the maximal n(n-1) over the reference's n nodes), stays in every mean and is
counted in `unparsable`. An unknown sample id, a malformed reference, an empty batch or an option
out of range is a ValueError naming it.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: predicted graphs as text, one `source -> target` per line, or a model answer holding
        `{"relationships": [{"source": ..., "sink": ...}]}` JSON. Anything unreadable scores the worst.
    references: ReCAST sample ids (int), `recast` dataset rows as they load (dicts), or samples as
        JSON strings (`RecastSample.model_dump_json()`).
    mode: "judge" (default) or "deterministic".
    judge_model: the judge's model name (required in judge mode).
    judge_base_url: OpenAI-compatible endpoint (default https://api.openai.com/v1).
    judge_api_key_env: environment variable holding the key (default OPENAI_API_KEY).
    judge_max_tokens, judge_temperature, judge_seed, judge_timeout: judge sampling (default 8192, 0.0, 0, 600).
    judge_config: further settings of the judge, as `causal-datasets eval --judge-model-config` reads them
        (e.g. {"reasoning_effort": "high", "extra_body": {...}}); its keys win over the judge_* arguments.
    max_attempts: judge asks per evaluation until a valid answer (default 3, at least 1).
    reversal_cost: SHD cost of a reversed edge, within 1..2 (default 1; 2 reproduces the paper's SHD convention).
    dataset, revision: the Hub dataset (ORG/NAME) and revision that id references come from.
    hub_dir: or the root of local builds that id references come from (built there if missing).
    concurrency: predictions scored at once (default 4, at least 1).
    cache_path: optional SQLite response cache of the judge.
Returns:
    judge (mean, population SD and count of node/edge/overall precision, recall, F1), deterministic
    (per matching mode: means of node/edge P/R/F1, shd, normalized_shd), errors (counts by
    category), unparsable (predictions that could not be read), n, items (per prediction: judge
    labels per item and scores, name-based scores), judge_usage.
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RecastJudge(metric_base.BatchMetric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("int64")}),
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        mode="judge",
        judge_model=None,
        judge_base_url="https://api.openai.com/v1",
        judge_api_key_env="OPENAI_API_KEY",
        judge_max_tokens=8192,
        judge_temperature=0.0,
        judge_seed=0,
        judge_timeout=600.0,
        judge_config=None,
        max_attempts=3,
        reversal_cost=1,
        dataset=None,
        revision=None,
        hub_dir=None,
        concurrency=4,
        cache_path=None,
    ):
        check_options(mode, reversal_cost, max_attempts, concurrency)
        location = None
        if dataset or hub_dir:
            location = DatasetLocation(hub_dir=Path(hub_dir or DEFAULT_HUB_DIR), repo_id=dataset, revision=revision)
        samples = resolve_references(references, location)
        if mode == "deterministic":
            return score_predictions(
                predictions, samples, mode=mode, reversal_cost=reversal_cost, concurrency=concurrency
            )
        client = judge_client(
            "recast_judge",
            judge_model,
            judge_base_url,
            cache_path=cache_path,
            api_key_env=judge_api_key_env,
            max_tokens=judge_max_tokens,
            temperature=judge_temperature,
            seed=judge_seed,
            timeout=judge_timeout,
            settings=judge_config,
        )
        with client:
            result = score_predictions(
                predictions,
                samples,
                mode=mode,
                judge=client,
                reversal_cost=reversal_cost,
                max_attempts=max_attempts,
                concurrency=concurrency,
            )
            result["judge_usage"] = client.usage_summary()
        return result
