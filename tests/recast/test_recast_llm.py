"""ReCAST with a real local model (SmolLM2-135M via llama.cpp): the runner on the two shortest samples
and the judge on a tiny hand-made sample.

The tiny model cannot do the task; the point is that the whole run — generation, parsing and
correction, name-based scores, the judge with its validation — completes on a real endpoint and
that every failure is classified.
"""

from __future__ import annotations

import pytest

from causal_datasets.graph import CausalGraph
from causal_datasets.recast.generation import GENERATION_ERRORS
from causal_datasets.recast.judge.evaluate import judge_graph
from causal_datasets.recast.samples import make_sample
from causal_datasets.runners.results import read_results, read_summary
from tests.data.recast.helpers import run_recast_eval
from tests.support.data import SHARED_DATA_DIR

SHORTEST = ("91", "98")  # 684 and 790 characters of text


@pytest.mark.llm
def test_local_model_run_completes_and_classifies_every_failure(local_llm, tmp_path):
    out = tmp_path / "run"
    argv = [
        "--model",
        local_llm.model,
        "--base-url",
        local_llm.base_url,
        "--judge-model",
        local_llm.model,
        "--judge-base-url",
        local_llm.base_url,
        "--max-tokens",
        "64",
        "--judge-max-tokens",
        "64",
        "--max-attempts",
        "1",
        "--no-cache",
        "--judge-no-cache",
        "--hub-dir",
        str(tmp_path / "hub"),
        "--source",
        str(SHARED_DATA_DIR / "recast" / "test.parquet"),
        "--ids",
        *SHORTEST,
        "--out",
        str(out),
        "--concurrency",
        "1",
    ]
    run_recast_eval(argv)
    results = {r["id"]: r for r in read_results(out)}
    assert set(results) == set(SHORTEST)
    for result in results.values():
        if result["status"] == "failed":  # the server could not answer: a call failed, nothing scored
            assert result["failure"]["role"] in ("model", "judge") and result["scores"] is None
            continue
        generation, scores = result["generation"], result["scores"]
        assert generation["raw_answer"] is not None
        assert generation["error"] in (None, *GENERATION_ERRORS)
        assert (generation["error"] is None) == (generation["error_detail"] is None)
        if scores["deterministic"] is None:
            assert generation["error"] == "format_error"
            continue
        for evaluation in scores["judge"]["evaluations"].values():
            # each evaluation either produced a rate or says why not
            assert (evaluation["rate"] is None) != (evaluation["error"] is None)
        assert scores["error"] == (generation["error"] or scores["judge"]["error"])
    summary = read_summary(out)
    assert summary["metrics"]["count"] + summary["items"]["failed"] == 2
    assert sum(summary["metrics"]["generation"].values()) == summary["metrics"]["count"]
    assert summary["usage"]["model"]["calls"] >= 2 and summary["models"]["model"] == local_llm.model


@pytest.mark.llm
def test_local_model_as_judge_gives_a_rate_or_a_reason_per_evaluation(local_llm):
    sample = make_sample(
        id=1,
        title="t",
        source="PLOS",
        url="https://doi.org/10.1371/journal.pone.1",
        publication_date=None,
        domains=["Economics & Public Policy"],
        nodes=[("Price", "explicit"), ("Demand", "explicit")],
        edges=[("Price", "Demand")],
        input_text="A higher price lowers demand.",
        abstract="",
    )
    judge = local_llm.client(max_tokens=64)
    judgement = judge_graph(judge, sample, CausalGraph.from_edges([("Price", "Demand")]), max_attempts=1)
    assert set(judgement.evaluations) == {"node_precision", "node_recall", "edge_precision", "edge_recall"}
    for evaluation in judgement.evaluations.values():
        assert evaluation.attempts == 1 and len(evaluation.raw) == 1
        assert (evaluation.rate is None) != (evaluation.error is None)
    failed = [e.kind for e in judgement.evaluations.values() if e.error]
    assert judgement.error == (f"judge_invalid: {', '.join(failed)}" if failed else None)
    assert judge.usage_summary()["calls"] == 4
