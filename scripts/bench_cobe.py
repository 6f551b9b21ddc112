"""CoBe figures: reading + quality checks, building the hub folder, judging throughput, and (optionally)
the local SmolLM2 as a judge against the published verdicts.

    .venv/bin/python scripts/bench_cobe.py [--local N]

Judging throughput uses the package's stub endpoint answering "T" after a fixed delay, so the figures
show our per-criterion loop and concurrency, not a model. ``--local N`` judges the first N published
responses with the bundled SmolLM2-135M (llama.cpp server) and prints agreement with their verdicts.
"""

from __future__ import annotations

import argparse
import tempfile
from functools import partial
from pathlib import Path

from checkout import SHARED_DATA_DIR
from timing import best_of

from causal_datasets.agreement import agreement
from causal_datasets.builder import BuildContext
from causal_datasets.cobe.formats import read_source
from causal_datasets.cobe.judge import judge_all
from causal_datasets.cobe.prompts import CriteriaSet
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.markdown import markdown_table
from causal_datasets.registry import get_builder

SOURCE = SHARED_DATA_DIR / "cobe" / "category-examples.json"
STUB_DELAY = 0.02
LOCAL_CACHE = Path(".cache") / "bench_cobe_local.sqlite"  # an interrupted --local run resumes from here


def judge_rows(parsed, n: int):
    queries = {f"{s.id}-{s.queries[0].phrasing}": CriteriaSet.of(s) for s in parsed.scenarios}
    responses = parsed.responses[:n]
    return [queries[r.query_id] for r in responses], responses


def bench_reading() -> None:
    seconds, parsed = best_of(lambda: read_source(SOURCE), 5)
    with tempfile.TemporaryDirectory() as tmp:
        build_seconds, _ = best_of(lambda: build_to_folder(get_builder("cobe"), Path(tmp), BuildContext(0, SOURCE)), 1)
    print("## reading and building\n")
    print(
        markdown_table(
            ["step", "scenarios", "responses", "seconds"],
            [
                [
                    "read_source + quality checks (best of 5)",
                    len(parsed.scenarios),
                    len(parsed.responses),
                    round(seconds, 3),
                ],
                [
                    "build_to_folder (3 configs, card, manifest)",
                    len(parsed.scenarios),
                    len(parsed.responses),
                    round(build_seconds, 3),
                ],
            ],
        )
    )


def bench_judging(n: int = 96) -> None:
    parsed = read_source(SOURCE)
    rows, responses = judge_rows(parsed, n)
    table = []
    with StubServer(lambda request, index: StubReply(text="T", delay=STUB_DELAY)) as server:
        for concurrency in (1, 4, 8):
            client = LLMClient(LLMConfig(model="stub", base_url=server.base_url, concurrency=concurrency))
            before = server.count
            seconds, _ = best_of(
                partial(judge_all, client, rows, [r.response for r in responses], concurrency=concurrency), 1
            )
            calls = server.count - before
            table.append(
                [
                    concurrency,
                    len(responses),
                    calls,
                    round(seconds, 2),
                    round(len(responses) / seconds, 1),
                    round(calls / seconds, 1),
                    round(concurrency / STUB_DELAY, 1),
                ]
            )
            client.close()
    print(f"\n## judging throughput (stub endpoint, {STUB_DELAY * 1000:.0f} ms per call)\n")
    print(
        markdown_table(
            ["concurrency", "responses", "judge calls", "seconds", "responses/s", "calls/s", "ideal calls/s"], table
        )
    )


def bench_local_judge(n: int) -> None:
    from causal_datasets.llm.local import LocalServer

    parsed = read_source(SOURCE)
    rows, responses = judge_rows(parsed, n)
    with LocalServer() as server:
        client = server.client(cache_path=LOCAL_CACHE, max_tokens=4)
        seconds, judgements = best_of(
            lambda: judge_all(client, rows, [r.response for r in responses], max_attempts=2, concurrency=1), 1
        )
        usage = client.usage_summary()
    result = agreement([j.verdict for j in judgements], [r.verdict for r in responses])
    errors = sum(1 for j in judgements for c in j.criteria if c.error)
    print(f"\n## SmolLM2-135M as the judge (2 asks per criterion), first {n} published responses\n")
    print(
        markdown_table(
            [
                "responses",
                "judge calls",
                "unresolved criteria",
                "seconds",
                "accuracy",
                "precision",
                "recall",
                "F1",
                "Cohen's kappa",
                "pairs used",
            ],
            [
                [
                    n,
                    usage.get("calls"),
                    errors,
                    round(seconds, 1),
                    *(result[k] for k in ("accuracy", "precision", "recall", "f1", "cohen_kappa")),
                    result["n"],
                ]
            ],
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--local", type=int, default=0, help="also judge the first N published responses with SmolLM2")
    args = parser.parse_args()
    bench_reading()
    bench_judging()
    if args.local:
        bench_local_judge(args.local)


if __name__ == "__main__":
    main()
