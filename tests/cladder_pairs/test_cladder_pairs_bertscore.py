"""``eval cladder_pairs --bertscore-model``: BERTScore F1 beside BLEU and token F1 (DoVerifier App. I Table 4), from
the command line and by ``rescore``, with a tiny random BERT."""

from __future__ import annotations

from statistics import fmean

import pytest

from causal_datasets.cli import main
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.runners.results import read_summary
from causal_datasets.scoring.bertscore import score
from tests.support.builds import built_once, small_cladder_build
from tests.support.runs import item_fields
from tests.support.stub_flags import stub_flags
from tests.support.tiny_bert import write_tiny_bert

ANSWERS = ["Estimand: P(Y=1|X=1) - P(Y=1|X=0)", "Estimand: P(Y=1)", "no idea", "Estimand: P(Y=1|do(X=1))"]


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    return built_once(tmp_path_factory, "small-cladder", small_cladder_build)


def test_the_bertscore_column_from_eval_and_rescore(dataset_dir, tmp_path_factory, tmp_path):
    bert = write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))
    answers = iter(ANSWERS)
    out = tmp_path / "run"
    with StubServer(lambda request, index: StubReply(body=completion_body(next(answers)))) as server:
        argv = ["eval", "cladder_pairs", "--limit", "4", "--concurrency", "1", "--hub-dir", str(dataset_dir)]
        assert main([*argv, "--out", str(out), *stub_flags(server.base_url)]) == 0
    items = item_fields(out)
    assert all(i["bertscore"] is None for i in items) and read_summary(out)["metrics"]["bertscore"] is None
    assert main(["rescore", str(out), "--out", str(tmp_path / "re"), "--bertscore-model", bert]) == 0
    rescored = item_fields(tmp_path / "re")
    for item in rescored:
        if item["expression"] is None:
            assert item["bertscore"] == 0.0  # no answer scores 0, as BLEU does
        else:
            assert item["bertscore"] == pytest.approx(score([item["expression"]], [item["reference"]], bert).f1[0])
    assert any(i["expression"] is None for i in rescored) and len({i["bertscore"] for i in rescored}) > 2
    metrics = read_summary(tmp_path / "re")["metrics"]
    assert metrics["bertscore"] == pytest.approx(fmean(i["bertscore"] for i in rescored))
    assert [i["bleu"] for i in rescored] == [i["bleu"] for i in items]  # the other columns unchanged
    first_layer = tmp_path / "layer1"
    assert (
        main(["rescore", str(out), "--out", str(first_layer), "--bertscore-model", bert, "--bertscore-layers", "1"])
        == 0
    )
    assert read_summary(first_layer)["metrics"]["bertscore"] != metrics["bertscore"]


def test_an_encoder_that_cannot_load_is_one_line(dataset_dir, tmp_path, capsys):
    with StubServer(lambda request, index: StubReply(body=completion_body("Estimand: P(Y=1)"))) as server:
        code = main(
            ["eval", "cladder_pairs", "--limit", "1", "--hub-dir", str(dataset_dir), "--out", str(tmp_path / "run")]
            + ["--bertscore-model", str(tmp_path / "no-model"), *stub_flags(server.base_url)]
        )
    assert code == 2 and not (tmp_path / "run").exists()  # refused before any item
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: cannot load") and "no-model" in line
