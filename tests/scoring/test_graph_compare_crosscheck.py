"""compare_graphs against independent implementations and the 292 ReCAST reference graphs.

- gadjid's ``shd`` (Rust; reversal counted once) on thousands of random DAG pairs;
- brute-force dense adjacency-matrix definitions written here (cdt-style |A − B| for reversal
  cost 2, the unordered-pair count for cost 1, counts of TP/FP/FN/reversed) on random directed
  graphs with cycles, 2-cycles and self-loops;
- the ReCAST release (``../shared/data/recast/test.parquet``): each graph against itself, against
  perturbed copies with known counts, and through every node-matching mode.
"""

from __future__ import annotations

import random
import re

import gadjid
import numpy as np
import pyarrow.parquet as pq
import pytest

from causal_datasets import compare_graph_batch, compare_graphs
from causal_datasets.scoring.node_matching import normalize_name
from tests.support.data import SHARED_DATA_DIR

RECAST = SHARED_DATA_DIR / "recast" / "test.parquet"


def random_dag_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two DAGs over 2–12 nodes with overlapping skeletons, each oriented by its own node order."""
    n = int(rng.integers(2, 13))
    upper = np.triu(rng.random((n, n)) < rng.uniform(0.1, 0.6), 1)
    kept = upper & (rng.random((n, n)) < 0.75)
    added = np.triu(rng.random((n, n)) < 0.1, 1)

    def orient(skeleton: np.ndarray, order: np.ndarray) -> np.ndarray:
        rank = np.empty(n, dtype=int)
        rank[order] = np.arange(n)
        matrix = np.zeros((n, n), dtype=np.int8)
        for i, j in zip(*np.nonzero(skeleton), strict=True):
            source, target = (i, j) if rank[i] < rank[j] else (j, i)
            matrix[source, target] = 1
        return matrix

    order = rng.permutation(n)
    other = order.copy() if rng.random() < 0.3 else rng.permutation(n)
    return orient(kept | added, other), orient(upper, order)


def test_matches_gadjid_on_thousands_of_random_dag_pairs():
    rng = np.random.default_rng(20240601)
    reversals = 0
    for _ in range(3000):
        prediction, reference = random_dag_pair(rng)
        normalized, mistakes = gadjid.shd(reference, prediction)
        ours = compare_graphs(prediction, reference)
        as_pairs = compare_graphs(
            list(zip(*np.nonzero(prediction), strict=True)),
            list(zip(*np.nonzero(reference), strict=True)),
            prediction_nodes=range(len(prediction)),
            reference_nodes=range(len(reference)),
        )
        assert ours.shd == mistakes == as_pairs.shd
        # gadjid divides by the n(n-1)/2 unordered pairs, "node_pairs" by the n(n-1) ordered ones
        assert 2 * ours.normalized_shd == pytest.approx(normalized)
        assert ours.to_dict() == as_pairs.to_dict() | {"node_mapping": ours.node_mapping}
        reversals += ours.reversed
    assert reversals > 1000  # the pairs really exercise reversals


def brute_force(prediction: np.ndarray, reference: np.ndarray) -> dict[str, int]:
    """Counts and both SHDs from dense 0/1 matrices, straight from the definitions."""
    P, R = prediction.astype(int), reference.astype(int)
    n = len(P)
    tp = int((P & R).sum())
    fp = int((P & (1 - R)).sum())
    fn = int((R & (1 - P)).sum())
    n_reversed = 0
    for i in range(n):
        for j in range(n):
            if i != j and P[j, i] and not R[j, i] and R[i, j] and not P[i, j]:
                n_reversed += 1
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "reversed": n_reversed,
        "shd_1": fp + fn - n_reversed,
        "shd_2": int(np.abs(P - R).sum()),  # cdt: every differing matrix entry
    }


def pair_level_shd(prediction: np.ndarray, reference: np.ndarray) -> int:
    """pcalg/gadjid style: one mistake per unordered pair whose connection differs, plus self-loop differences."""
    n = len(prediction)
    diagonal = int((np.diag(prediction) != np.diag(reference)).sum())
    return diagonal + sum(
        (prediction[i, j], prediction[j, i]) != (reference[i, j], reference[j, i])
        for i in range(n)
        for j in range(i + 1, n)
    )


def test_matches_brute_force_on_cyclic_graphs_with_two_cycles_and_self_loops():
    rng = np.random.default_rng(7)
    seen_two_cycles = 0
    for _ in range(2000):
        n = int(rng.integers(1, 9))
        reference = (rng.random((n, n)) < rng.uniform(0.05, 0.5)).astype(np.int8)
        flip = rng.random((n, n)) < 0.25
        prediction = np.where(flip, 1 - reference, reference).astype(np.int8)
        prediction = np.where(rng.random((n, n)) < 0.3, reference.T, prediction).astype(np.int8)
        expected = brute_force(prediction, reference)
        one = compare_graphs(prediction, reference)
        two = compare_graphs([tuple(e) for e in np.argwhere(prediction).tolist()], reference, reversal_cost=2)
        assert (one.true_positives, one.false_positives, one.false_negatives, one.reversed) == (
            expected["tp"],
            expected["fp"],
            expected["fn"],
            expected["reversed"],
        )
        assert one.shd == expected["shd_1"]
        assert two.shd == expected["shd_2"]
        has_two_cycle = bool(((prediction & prediction.T) | (reference & reference.T)).any())
        seen_two_cycles += has_two_cycle
        if not has_two_cycle:
            assert one.shd == pair_level_shd(prediction, reference)
    assert seen_two_cycles > 300


# ---------------------------------------------------------------- ReCAST reference graphs


@pytest.fixture(scope="module")
def recast() -> list[dict]:
    rows = pq.read_table(RECAST, columns=["id", "nodes", "edges"]).to_pylist()
    assert len(rows) == 292
    return rows


def unique_pairs(row: dict) -> list[tuple[str, str]]:
    return list(dict.fromkeys((" ".join(e["source"].split()), " ".join(e["target"].split())) for e in row["edges"]))


def test_recast_graphs_against_themselves(recast):
    batch = compare_graph_batch([row["edges"] for row in recast], [row["edges"] for row in recast])
    assert batch.errors == []
    assert all(item.edge_f1 == 1.0 and item.node_f1 == 1.0 and item.shd == 0 for item in batch.items)
    assert batch.micro["true_positives"] == sum(len(unique_pairs(row)) for row in recast)
    # the release repeats some edges (num_edges counts them); each repetition is reported
    assert sum(bool(item.warnings) for item in batch.items) > 0


def perturb(row: dict, rng: random.Random) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """Delete k1 edges, reverse k2 (whose reverse is absent), add k3 new non-adjacent pairs."""
    edges = unique_pairs(row)
    present = set(edges)
    reversible = [(a, b) for a, b in edges if a != b and (b, a) not in present]
    flipped = rng.sample(reversible, min(len(reversible), rng.randint(0, 4)))
    others = [e for e in edges if e not in set(flipped)]
    deleted = rng.sample(others, min(len(others), rng.randint(0, 4)))
    nodes = sorted({n for e in edges for n in e})
    free = [(a, b) for a in nodes for b in nodes if a != b and (a, b) not in present and (b, a) not in present]
    added = rng.sample(free, min(len(free), rng.randint(0, 4)))
    gone = set(flipped) | set(deleted)
    prediction = [e for e in edges if e not in gone] + [(b, a) for a, b in flipped] + added
    rng.shuffle(prediction)
    k1, k2, k3 = len(deleted), len(flipped), len(added)
    return prediction, {
        "true_positives": len(edges) - k1 - k2,
        "false_positives": k2 + k3,
        "false_negatives": k1 + k2,
        "reversed": k2,
        "missing": k1,
        "extra": k3,
        "shd_1": k1 + k2 + k3,
        "shd_2": k1 + 2 * k2 + k3,
    }


def test_recast_perturbed_copies_give_the_expected_counts(recast):
    rng = random.Random(4)
    total_reversed = 0
    for row in recast:
        prediction, expected = perturb(row, rng)
        one = compare_graphs(prediction, row["edges"], prediction_nodes=row["nodes"])
        two = compare_graphs(prediction, row["edges"], prediction_nodes=row["nodes"], reversal_cost=2)
        counts = {
            k: getattr(one, k)
            for k in ("true_positives", "false_positives", "false_negatives", "reversed", "missing", "extra")
        }
        assert counts | {"shd_1": one.shd, "shd_2": two.shd} == expected, row["id"]
        assert one.node_f1 == 1.0
        total_reversed += one.reversed
    assert total_reversed > 200


def restyle(name: str) -> str:
    """Upper case, hyphens for spaces, a plural ``s`` on a last word of 3+ letters ending in a plain consonant."""
    styled = name.upper().replace(" ", "-")
    plural = styled[-1] in "BCDFGKLMNPRT" and len(re.split(r"[\W_]+", styled)[-1]) >= 3
    return styled + "S" if plural else styled


def test_recast_through_normalized_fuzzy_and_ids_matching(recast):
    checked = 0
    for row in recast:
        edges = unique_pairs(row)
        names = list(dict.fromkeys(n for e in edges for n in e))
        if len({normalize_name(n) for n in names}) < len(names):
            continue  # two reference names normalize alike: normalized matching may merge them
        checked += 1
        shouted = [(restyle(a), f"  {restyle(b)} ") for a, b in edges]
        normalized = compare_graphs(shouted, row["edges"], node_matching="normalized")
        assert normalized.edge_f1 == 1.0 and normalized.shd == 0, row["id"]
        assert compare_graphs(edges, row["edges"], node_matching="fuzzy").node_mapping == dict(
            zip(names, names, strict=True)
        )
        ids = {index + 1: name for index, name in enumerate(names)}
        by_id = {name: index for index, name in ids.items()}
        answer = [{"source": by_id[a], "target": by_id[b]} for a, b in edges]
        assert compare_graphs(answer, row["edges"], node_matching="ids", node_ids=ids).edge_f1 == 1.0
    assert checked > 250


def test_fuzzy_matching_recovers_misspelled_recast_names(recast):
    """One character deleted from every name of 8+ characters: ≥ 99% of nodes map back, one-to-one."""
    rng = random.Random(11)
    recovered = wrong = total = 0
    for row in recast:
        names = list(dict.fromkeys(n for e in unique_pairs(row) for n in e))
        misspelled = {}
        for name in names:
            cut = rng.randrange(2, len(name) - 2) if len(name) >= 8 else None
            misspelled[name] = name if cut is None else " ".join((name[:cut] + name[cut + 1 :]).split())
        if len(set(misspelled.values())) < len(names):
            continue
        prediction = [(misspelled[a], misspelled[b]) for a, b in unique_pairs(row)]
        mapping = compare_graphs(prediction, row["edges"], node_matching="fuzzy").node_mapping
        assert len(set(mapping.values())) == len(mapping)
        original = {typo: name for name, typo in misspelled.items()}
        recovered += sum(original[typo] == name for typo, name in mapping.items())
        wrong += sum(original[typo] != name for typo, name in mapping.items())
        total += len(names)
    assert total > 7000
    assert recovered / total >= 0.99
    assert wrong / total <= 0.002
