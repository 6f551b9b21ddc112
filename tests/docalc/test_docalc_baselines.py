"""The surface baselines of DoVerifier App. I (string match, BLEU, token F1) beside the verifier."""

import pytest
import sacrebleu

from causal_datasets.cladder_pairs.cladder import read_questions
from causal_datasets.cladder_pairs.rows import question_rows, synthetic_rows
from causal_datasets.cladder_pairs.statistics import baseline_table, surface_baselines
from causal_datasets.docalc.baselines import bleu, string_match, token_f1, tokens
from causal_datasets.docalc.scoring import score_pairs
from causal_datasets.docalc.verdict import check_equivalence
from tests.support.data import SHARED_DATA_DIR


@pytest.fixture(scope="module")
def synthetic():
    return synthetic_rows(seed=3, count=150)  # 150 proven pairs and their 150 refuted mistakes


@pytest.fixture(scope="module")
def cladder_pairs():
    questions = question_rows(read_questions(SHARED_DATA_DIR / "cladder"))
    return sorted({(q.formal_form, q.estimand) for q in questions})


def graph_text(row) -> str:
    """A synthetic row's DAG as edge-list text, lone nodes included (a graph may have no edges)."""
    return ",".join([f"{e.source}->{e.target}" for e in row.edges] + list(row.nodes))


def test_tokens_keep_names_numbers_and_latex_commands_whole():
    assert tokens("\\sum_{V1=v} P(V1=v)*[P(Y=1|V1=v, X=0)]") == [
        "\\sum",
        "_",
        "{",
        "V1",
        "=",
        "v",
        "}",
        "P",
        "(",
        "V1",
        "=",
        "v",
        ")",
        "*",
        "(",
        "P",
        "(",
        "Y",
        "=",
        "1",
        "|",
        "V1",
        "=",
        "v",
        ",",
        "X",
        "=",
        "0",
        ")",
        ")",
    ]
    assert tokens("P(Y=0.25)−P(Y)") == ["P", "(", "Y", "=", "0.25", ")", "-", "P", "(", "Y", ")"]


def test_bleu_is_sacrebleus_sentence_bleu_on_the_same_tokens(cladder_pairs, synthetic):
    """Our BLEU equals sacrebleu's (exp smoothing, effective order) on every distinct CLadder pair and
    the synthetic pairs, both ways round."""
    pairs = cladder_pairs + [(r.expr_a, r.expr_b) for r in synthetic[:100]] + [("P(Y)", "P(Y | X)"), ("P", "P(Y)")]
    assert len(pairs) > 100
    for a, b in pairs:
        for hyp, ref in ((a, b), (b, a)):
            theirs = (
                sacrebleu.sentence_bleu(" ".join(tokens(hyp)), [" ".join(tokens(ref))], tokenize="none").score / 100
            )
            assert bleu(hyp, ref) == pytest.approx(theirs, abs=1e-9), (hyp, ref)
    assert bleu("P(Y|X)", "P(Y|X)") == pytest.approx(1.0) and bleu("", "P(Y)") == 0.0


def test_token_f1_cannot_tell_conditioning_from_its_reverse_the_verifier_can():
    """App. I: a bag of tokens does not see the structure. P(X|Y) has exactly the tokens of P(Y|X)."""
    assert token_f1("P(X|Y)", "P(Y|X)") == 1.0 and not string_match("P(X|Y)", "P(Y|X)")
    assert check_equivalence("P(X|Y)", "P(Y|X)", "X->Y").equivalent is False
    assert token_f1("P(Y|do(X))", "P(Y|X)") == pytest.approx(2 * (6 / 9) * 1 / (6 / 9 + 1))
    assert token_f1("", "") == 1.0 and token_f1("P(Y)", "") == 0.0
    assert string_match("P(Y = 1 | X=0) − P(Y=1)", "P(Y=1|X=0)-P(Y=1)")


def test_synthetic_config_app_i_comparison(synthetic):
    """On the synthetic pairs string match finds none of the equivalent pairs, and BLEU and token F1
    score the refuted mistakes about as high as the proven pairs; the verifier decides every pair."""
    table = surface_baselines(synthetic)
    equal, different = table[True], table[False]
    assert equal["pairs"] == different["pairs"] == 150
    assert equal["string_match"] == 0.0 and different["string_match"] == 0.0
    assert abs(equal["bleu"] - different["bleu"]) < 0.15 and abs(equal["token_f1"] - different["token_f1"]) < 0.15
    assert different["token_f1_max"] > equal["token_f1_min"]  # no threshold on token F1 separates them
    verdicts = score_pairs(
        [r.expr_b for r in synthetic], [r.expr_a for r in synthetic], [graph_text(r) for r in synthetic]
    )
    assert verdicts["verdicts"] == [r.equivalent for r in synthetic]
    assert verdicts["string_match"] == 0.0 and 0 < verdicts["bleu"] < 1 and 0 < verdicts["token_f1"] < 1
    assert verdicts["bleu_scores"][0] == pytest.approx(bleu(synthetic[0].expr_b, synthetic[0].expr_a))
    assert "| equivalent | 150 | 0.0% |" in baseline_table(synthetic)
