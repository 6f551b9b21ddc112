"""BERTScore against the ``bert-score`` package, on a tiny random BERT written to a temporary folder (no network)."""

from __future__ import annotations

import pytest
from bert_score import score as reference_score

from causal_datasets.scoring.bertscore import BertScoreModelError, score
from tests.support.tiny_bert import write_tiny_bert

CANDIDATES = [
    "P(Y | X)",
    "P(Y | do(X))",
    "the cat sat on the mat",
    "a dog ran",
    "sum_z P(Y | X, Z) P(Z)",
    "P(Y)",
    "cats",
    "the mat",
]
REFERENCES = [
    "P(Y | V1)",
    "P(Y | X)",
    "the cat sat on a mat",
    "the dog ran on the mat",
    "sum_z P(Y | do(X), Z) P(Z)",
    "P(Y | X)",
    "a cat",
    "the mat",
]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def package(folder: str, layers: int, **options) -> list[list[float]]:
    """bert-score's own numbers (one pair per batch: no padding in its greedy matching)."""
    p, r, f = reference_score(CANDIDATES, REFERENCES, model_type=folder, num_layers=layers, batch_size=1, **options)
    return [p.tolist(), r.tolist(), f.tolist()]


@pytest.mark.parametrize("layers", [1, 3])
@pytest.mark.parametrize("idf", [False, True])
def test_scores_match_the_bert_score_package(tiny_bert, layers, idf):
    ours = score(CANDIDATES, REFERENCES, model=tiny_bert, num_layers=layers, idf=idf)
    theirs = package(tiny_bert, layers, idf=idf)
    for mine, expected in zip([ours.precision, ours.recall, ours.f1], theirs, strict=True):
        assert mine == pytest.approx(expected, abs=1e-5)
    assert ours.f1[-1] == pytest.approx(1.0)  # a sentence against itself
    assert len(set(ours.f1)) > 4  # the pairs are told apart


def test_baseline_rescaling_matches_the_package(tiny_bert, tmp_path):
    baseline = (0.2, 0.3, 0.25)
    path = tmp_path / "baseline.tsv"
    rows = ["LAYER,P,R,F", *(f"{layer},{baseline[0]},{baseline[1]},{baseline[2]}" for layer in range(4))]
    path.write_text("\n".join(rows) + "\n")
    ours = score(CANDIDATES, REFERENCES, model=tiny_bert, num_layers=2, baseline=baseline)
    theirs = package(tiny_bert, 2, rescale_with_baseline=True, baseline_path=str(path), lang="en")
    assert [ours.precision, ours.recall, ours.f1] == [pytest.approx(t, abs=1e-5) for t in theirs]


def test_the_last_layer_by_default_and_clear_errors(tiny_bert, tmp_path):
    assert score(CANDIDATES[:2], REFERENCES[:2], model=tiny_bert) == score(
        CANDIDATES[:2], REFERENCES[:2], model=tiny_bert, num_layers=3
    )
    with pytest.raises(BertScoreModelError, match="layers 0 to 3, not 4"):
        score(["a"], ["a"], model=tiny_bert, num_layers=4)
    with pytest.raises(BertScoreModelError, match="cannot load"):
        score(["a"], ["a"], model=str(tmp_path / "no-model"))
    with pytest.raises(ValueError, match="2 candidates for 1 references"):
        score(["a", "b"], ["a"], model=tiny_bert)
