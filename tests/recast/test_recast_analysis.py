"""The ReCAST paper's analyses: each statistic on a case computed by hand, then on the released samples.

Hand cases: balanced bins, mean ± population SD, the Mann–Whitney U test, R² on log scale, the
Table 4 quartile difference and Cohen's κ of two annotations. On the release: the bins each hold
about a quarter of the samples (fixed 0.25-wide bins leave the top ones nearly empty) and R²
agrees with an independent least-squares fit.
"""

from __future__ import annotations

import datetime
import math
from itertools import pairwise

import numpy as np
import pytest

from causal_datasets.recast import analysis
from causal_datasets.recast.analysis import Scored, balanced_bins, bin_of
from causal_datasets.recast.raw.agreement import compare, pooled_edges, summary
from causal_datasets.recast.release import read_release
from causal_datasets.recast.samples import make_sample
from tests.support.data import SHARED_DATA_DIR

RELEASE = SHARED_DATA_DIR / "recast" / "test.parquet"


@pytest.fixture(scope="module")
def released():
    return read_release(RELEASE).samples


def sample(id: int, *, text: str = "x", nodes: int = 2, explicit: int = 2, absent: int = 0, date=None, domains=()):
    """A small sample: ``nodes`` nodes in a chain, the first ``explicit`` explicit, the last ``absent`` absent."""
    names = [f"n{i}" for i in range(nodes)]
    levels = ["explicit" if i < explicit else "absent" if i >= nodes - absent else "implicit" for i in range(nodes)]
    return make_sample(
        id=id,
        title="t",
        source="MDPI",
        url="https://www.mdpi.com/2071-1050/1/1/1",
        publication_date=date,
        domains=["Economics & Public Policy", *domains],
        nodes=list(zip(names, levels, strict=True)),
        edges=list(pairwise(names)),
        input_text=text,
        abstract="",
    )


def scored(s, f1=None, edge_f1=0.0):
    return Scored(s, {"judge_f1": f1, "edge_f1_normalized": edge_f1})


# --- hand-computed cases --------------------------------------------------------------------------


def test_balanced_bins_keep_ties_together_and_split_the_rest_evenly():
    values = [0, 0, 0, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    bins = balanced_bins(values, 3)
    # four zeros ≥ 10/3: the zero bin closes; the six others split 3 + 3
    assert [(b.low, b.high, b.size) for b in bins] == [(0, 0, 4), (0.1, 0.3, 3), (0.4, 0.6, 3)]
    assert bins[1].label == "0.100–0.300" and bin_of(0.25, bins) is bins[1] and bin_of(0.65, bins) is bins[2]
    assert [b.size for b in balanced_bins([0.5] * 7, 4)] == [7]  # one value: one bin, never an empty one


def test_mean_and_population_sd_per_group():
    rows = [scored(sample(1), 0.2, 0.1), scored(sample(2), 0.6, 0.3), scored(sample(3), None, 0.5)]
    table = analysis.score_summary(rows)
    assert table["n"] == 3 and table["judge_f1_n"] == 2 and table["judge_f1"] == pytest.approx(0.4)
    assert table["judge_f1_sd"] == pytest.approx(0.2)  # population SD of 0.2, 0.6
    assert table["edge_f1_normalized"] == pytest.approx(0.3) and table["edge_f1_normalized_sd"] == pytest.approx(
        math.sqrt(0.08 / 3)
    )


def test_knowledge_cutoff_mann_whitney_u_by_hand():
    recent = [scored(sample(i, date=datetime.date(2024, 3, 1)), f1) for i, f1 in ((1, 0.9), (2, 0.8))]
    older = [scored(sample(i, date=datetime.date(2019, 1, 1)), f1) for i, f1 in ((3, 0.1), (4, 0.2), (5, 0.3))]
    undated = [scored(sample(6), 0.5)]
    test = analysis.cutoff_test(recent + older + undated, analysis.DEFAULT_CUTOFF)
    # every recent score beats every older one: U = 2 × 3 = 6, the most extreme of C(5, 2) = 10 equally
    # likely rank sets, so the exact two-sided p is 2 / 10
    assert (test["recent_n"], test["older_n"], test["judge_f1_u"]) == (2, 3, 6.0)
    assert test["judge_f1_p"] == pytest.approx(0.2)
    groups = analysis.by_cutoff(recent + older + undated, analysis.DEFAULT_CUTOFF)
    assert groups == {
        "before 2024-01-01": analysis.score_summary(older),
        "2024-01-01 and later": analysis.score_summary(recent),
    }


def test_r2_of_confounding_on_log_size_by_hand():
    # log10 text length 1, 2, 3 against confounding 0.1, 0.3, 0.2: r = 0.1 / √(2 × 0.02) = 0.5, R² = 0.25
    samples = [
        sample(1, text="x" * 10, nodes=10, explicit=9),
        sample(2, text="x" * 100, nodes=10, explicit=7),
        sample(3, text="x" * 1000, nodes=10, explicit=8),
    ]
    assert [s.confounding_lenient for s in samples] == pytest.approx([0.1, 0.3, 0.2])
    r2 = analysis.size_confounding_r2(samples)
    assert r2["text_length"] == pytest.approx(0.25)
    assert r2["num_nodes"] is None  # every sample has 10 nodes: no fit


def test_size_quartiles_difference_and_its_sd_by_hand():
    dataset = [sample(i, text="x" * (100 * i)) for i in range(1, 9)]  # text lengths 100 … 800
    rows = [scored(s, f1) for s, f1 in zip(dataset, (0.1, 0.3, 0.5, 0.5, 0.5, 0.5, 0.6, 1.0), strict=True)]
    table = analysis.by_size_quartile(rows, dataset)["text_length"]
    # quartiles of 100…800: 275 and 625 → bottom {100, 200} (0.1, 0.3), top {700, 800} (0.6, 1.0)
    assert (table["bottom_max"], table["top_min"], table["bottom_n"], table["top_n"]) == (275.0, 625.0, 2, 2)
    assert table["judge_f1_difference"] == pytest.approx(0.8 - 0.2)
    assert table["judge_f1_difference_sd"] == pytest.approx(math.hypot(0.2, 0.1))


def test_domains_and_number_of_domains():
    rows = [
        scored(sample(1, domains=("Education",)), 0.2),
        scored(sample(2, domains=("Education", "Medicine")), 0.4),
        scored(sample(3, domains=("Education", "Medicine", "Engineering & Technology")), 0.9),
    ]
    by_domain = analysis.by_domain(rows, ["Economics & Public Policy", "Education", "Medicine"])
    assert "Economics & Public Policy" not in by_domain  # every sample has it: the paper leaves it out
    assert by_domain["Education"]["n"] == 3 and by_domain["Medicine"]["judge_f1"] == pytest.approx(0.65)
    assert by_domain["Engineering & Technology"]["n"] == 1
    counts = analysis.by_domain_count(rows)
    assert list(counts) == ["0–1", "2", "3+"] and [counts[k]["n"] for k in counts] == [1, 1, 1]


def test_annotator_agreement_with_edge_kappa_by_hand():
    gold = [("A", "B"), ("B", "C"), ("C", "D")]
    second = [("A", "B"), ("B", "C"), ("C", "E")]
    graph = compare("1", gold, second)
    # names A–E: 5 × 4 = 20 ordered pairs; tp 2, fp 1, fn 1, tn 16: p_o = 0.9, p_e = (3·3 + 17·17)/400
    expected = (0.9 - 298 / 400) / (1 - 298 / 400)
    assert graph.edge_kappa == pytest.approx(expected)
    assert graph.scores("edges")["shd"] == 2 and graph.scores("edges")["normalized_shd"] == pytest.approx(2 / 3)
    assert graph.scores("nodes") == {
        "precision": 0.75,
        "recall": 0.75,
        "f1": 0.75,
        "shd": 2,
        "normalized_shd": 0.5,
        "kappa": None,
    }
    same = compare("2", [("X", "Y")], [("X", "Y")])
    table = summary([graph, same])
    assert table["edges"]["kappa"]["mean"] == pytest.approx((expected + 1) / 2)
    assert table["edges"]["kappa"]["sd"] == pytest.approx((1 - expected) / 2)
    pooled = pooled_edges([graph, same])
    assert (pooled["tp"], pooled["fp"], pooled["fn"]) == (3, 1, 1)
    assert pooled["kappa"] == pytest.approx((20 / 22 - 340 / 484) / (1 - 340 / 484))  # 22 pairs, 17 + 1 negatives


def test_annotator_agreement_command(tmp_path, capsys):
    from causal_datasets.recast.raw.agreement import main

    (tmp_path / "gold").mkdir()
    (tmp_path / "second").mkdir()
    (tmp_path / "gold" / "630.txt").write_text("A -> B\nB -> C\n")
    (tmp_path / "second" / "630.txt").write_text("A -> B\n")
    (tmp_path / "gold" / "645.txt").write_text("X -> Y\n")
    assert main([str(tmp_path / "gold"), str(tmp_path / "second"), "--json", str(tmp_path / "out.json")]) == 0
    printed = capsys.readouterr().out
    assert "| 630 | 3 | 2 | 0 | 1 | 0 | 1 |" in printed and "only in one folder (not compared): 645.txt" in printed
    assert '"pooled_edges"' in (tmp_path / "out.json").read_text()
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "gold"), str(tmp_path / "missing")])
    assert stopped.value.code == 2


# --- on the released samples ----------------------------------------------------------------------


def test_confounding_bins_on_the_release_each_hold_about_a_quarter(released):
    lenient = [s.confounding_lenient for s in released]
    fixed = np.histogram(lenient, [0, 0.25, 0.5, 0.75, 1.0001])[0]
    assert fixed[-1] < 30 < fixed[0]  # what equal-width bins do: the top bin nearly empty
    bins = balanced_bins(lenient, 4)
    # 292 / 4 = 73 per bin; ties and the sample order allow a few more or fewer
    assert len(bins) == 4 and sum(b.size for b in bins) == 292 and min(b.size for b in bins) >= 66
    assert all(a.high < b.low for a, b in pairwise(bins))  # consecutive, never overlapping
    strict = balanced_bins([s.confounding_strict for s in released], 5)
    zero = sum(s.confounding_strict == 0 for s in released)
    assert (strict[0].low, strict[0].high, strict[0].size) == (0, 0, zero)  # samples with no absent node
    assert all(b.size >= 40 for b in strict[1:])


def test_r2_on_the_release_equals_an_independent_least_squares_fit(released):
    r2 = analysis.size_confounding_r2(released)
    y = np.array([s.confounding_lenient for s in released])
    for attribute in analysis.SIZE_ATTRIBUTES:
        x = np.log10([getattr(s, attribute) for s in released])
        slope, intercept = np.polyfit(x, y, 1)
        residual = y - (slope * x + intercept)
        assert r2[attribute] == pytest.approx(1 - residual @ residual / ((y - y.mean()) @ (y - y.mean())))
        if attribute == "text_length":
            assert slope < 0  # longer texts, fewer unmentioned nodes (the paper's "negative correlation")
    # the paper: 0.187 (text length), 0.002 (nodes), 0.006 (edges). Over all nodes (its definition) the release
    # gives 0.144, 0.023 and 0.006: text length dominates, and the edges' figure is the paper's App. Fig. 7 one
    assert r2["text_length"] > 5 * max(r2["num_edges"], r2["num_nodes"])
    assert round(r2["num_edges"], 3) == 0.006


def test_recent_papers_on_the_release(released):
    recent = [s for s in released if s.publication_date >= analysis.DEFAULT_CUTOFF]
    assert len(recent) == 36  # the paper counts 35 samples published in 2024 or later
