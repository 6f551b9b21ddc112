"""ReCAST figures: release import, hub build, name-based scoring, judge loop throughput, PDF extraction.

    .venv/bin/python scripts/bench_recast.py [--judge-samples N]

The judge loop runs against the package's stub endpoint, which answers every evaluation with a
valid all-strong-match YAML answer after a fixed delay: the figures show our prompt building,
YAML validation, scoring and concurrency, not a model.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pymupdf
from checkout import SHARED_DATA_DIR

from causal_datasets.builder import BuildContext
from causal_datasets.graph import CausalGraph
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.markdown import markdown_table
from causal_datasets.recast.deterministic import deterministic_scores
from causal_datasets.recast.metric import score_predictions
from causal_datasets.recast.raw.pdf import pdf_markdown, pdf_text
from causal_datasets.recast.release import read_release
from causal_datasets.registry import get_builder

RELEASE = SHARED_DATA_DIR / "recast" / "test.parquet"
STUB_DELAY = 0.02


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def perturbed(graph: CausalGraph) -> CausalGraph:
    """Every third edge reversed, every fifth dropped, names lower-cased: a plausible wrong answer."""
    edges = []
    for index, (s, t) in enumerate(graph.edges):
        if index % 5 == 4:
            continue
        edges.append((t.lower(), s.lower()) if index % 3 == 2 else (s.lower(), t.lower()))
    return CausalGraph.from_edges(edges)


def perfect_answer(request: dict, index: int) -> StubReply:
    """A valid answer labeling every item a strong match (item count read from the request)."""
    user = request["messages"][1]["content"]
    kind = user.rsplit("Answer with the ", 1)[1].split("_evaluations", 1)[0]
    part = user.split("<response_graph>" if kind.endswith("precision") else "<ground_truth_graph>", 1)[1]
    nodes, edges = part.split("Edges:", 1)
    section = nodes if kind.startswith("node") else edges.split("</", 1)[0]
    count = sum(line[:1].isdigit() for line in section.splitlines())
    number = "node_number" if kind.startswith("node") else "edge_number"
    strong = "presence_label: PRESENCE_STRONG_MATCH, abstraction_label: ABSTRACTION_ALIGNED"
    fields = {
        "node_precision": f"graph_evaluation: {{{strong}, semantic_label: SEMANTIC_STRONG}}, "
        f"text_evaluation: {{{strong}, semantic_label: SEMANTIC_STRONG}}",
        "node_recall": f"importance_label: IMPORTANCE_CORE, {strong}, semantic_label: SEMANTIC_COMPLETE",
        "edge_precision": f"graph_evaluation: {{{strong}, directionality_label: DIRECTION_CORRECT}}, text_evaluation: "
        "{presence_label: PRESENCE_GRAPH_ONLY, inference_label: INFERENCE_DIRECT, "
        "abstraction_label: ABSTRACTION_ALIGNED}",
        "edge_recall": f"importance_label: IMPORTANCE_CENTRAL, {strong}, directionality_label: DIRECTION_CORRECT",
    }[kind]
    items = "\n".join(f"  - {{{number}: {i}, {fields}}}" for i in range(1, count + 1))
    return StubReply(text=f"```yaml\n{kind}_evaluations:\n{items}\n```", delay=STUB_DELAY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judge-samples", type=int, default=40)
    args = parser.parse_args()
    rows = []

    seconds, imported = timed(lambda: read_release(RELEASE))
    samples = imported.samples
    rows.append(["read release + derive fields (292 rows)", f"{seconds:.2f} s"])
    with tempfile.TemporaryDirectory() as folder:
        seconds, _ = timed(
            lambda: build_to_folder(get_builder("recast"), Path(folder), BuildContext(seed=0, source=RELEASE))
        )
    rows.append(["build hub folder (Parquet + card + manifest)", f"{seconds:.2f} s"])

    predictions = [perturbed(s.graph()) for s in samples]
    seconds, scores = timed(
        lambda: [deterministic_scores(p, s, reversal_cost=2) for p, s in zip(predictions, samples, strict=True)]
    )
    rows.append(
        ["name-based scores, 292 graphs × 2 matchings", f"{seconds * 1000:.0f} ms ({seconds / 292 * 1e6:.0f} µs/graph)"]
    )
    exact = sum(s["exact"]["edge_f1"] for s in scores) / len(scores)
    normalized = sum(s["normalized"]["edge_f1"] for s in scores) / len(scores)

    chosen = samples[: args.judge_samples]
    with StubServer(perfect_answer) as server:
        judge = LLMClient(LLMConfig(model="stub", base_url=server.base_url))
        for concurrency in (1, 4, 16):
            server.requests.clear()
            seconds, result = timed(
                lambda concurrency=concurrency: score_predictions(
                    [s.graph() for s in chosen], chosen, judge=judge, concurrency=concurrency
                )
            )
            calls = len(server.requests)
            rows.append(
                [
                    f"judge loop, {len(chosen)} samples, concurrency {concurrency} ({STUB_DELAY * 1000:.0f} ms stub)",
                    f"{seconds:.2f} s, {calls} calls, {calls / seconds:.0f} calls/s, "
                    f"mean F1 {result['judge']['f1']:.3f}",
                ]
            )

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "paper.pdf"
        document = pymupdf.open()
        for page in range(10):
            document.new_page().insert_textbox(
                pymupdf.Rect(72, 72, 540, 770), (samples[0].input_text[page * 3000 : (page + 1) * 3000]), fontsize=9
            )
        document.save(path)
        seconds, text = timed(lambda: pdf_text(path))
        rows.append(["PyMuPDF plain text, 10 pages", f"{seconds * 1000:.0f} ms ({len(text)} chars)"])
        seconds, text = timed(lambda: pdf_markdown(path))
        rows.append(["pymupdf4llm Markdown, 10 pages", f"{seconds * 1000:.0f} ms ({len(text)} chars)"])

    print(markdown_table(["step", "time"], rows))
    print(
        "\nperturbed predictions (edges reversed/dropped, names lower-cased): "
        f"mean edge F1 exact {exact:.3f}, normalized {normalized:.3f}"
    )


if __name__ == "__main__":
    main()
