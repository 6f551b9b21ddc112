"""Throughput of LLMClient against a local endpoint that answers after a fixed delay, and cached re-run time.

    .venv/bin/python scripts/bench_llm_client.py [--delay 0.05] [--requests 256]

For each concurrency (1, 4, 16, 64) it sends fresh requests through ``client.map`` and reports
requests/s next to the ideal ``concurrency / delay``; then it re-runs a batch that is fully cached
(a fresh client on the same SQLite file) and reports the re-run time and the HTTP requests it made.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.stub_server import StubServer, echo
from causal_datasets.markdown import markdown_table


def run_batch(server: StubServer, prompts: list, concurrency: int, cache: Path | None) -> tuple[float, dict]:
    config = LLMConfig(model="bench", base_url=server.base_url, concurrency=concurrency, timeout=30.0)
    with LLMClient(config, cache_path=cache) as client:
        start = time.perf_counter()
        outcomes = client.map(prompts, progress=False)
        elapsed = time.perf_counter() - start
        failures = [o for o in outcomes if isinstance(o, Exception)]
        if failures:
            raise SystemExit(f"{len(failures)} requests failed, first: {failures[0]}")
        return elapsed, client.usage_summary()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.05, help="server delay per request in seconds")
    parser.add_argument(
        "--requests", type=int, default=256, help="requests per concurrency level (min 8 x concurrency for 1)"
    )
    args = parser.parse_args()
    rows = []
    with StubServer(echo(delay=args.delay)) as server:
        for concurrency in (1, 4, 16, 64):
            count = min(args.requests, max(32, 8 * concurrency)) if concurrency < 16 else args.requests
            prompts = [[{"role": "user", "content": f"c{concurrency} request {i}"}] for i in range(count)]
            elapsed, _ = run_batch(server, prompts, concurrency, None)
            ideal = concurrency / args.delay
            rows.append(
                [
                    concurrency,
                    count,
                    f"{elapsed:.2f}",
                    f"{count / elapsed:.1f}",
                    f"{ideal:.0f}",
                    f"{100 * count / elapsed / ideal:.0f}%",
                ]
            )
        print(f"fresh requests, server delay {args.delay * 1000:.0f} ms")
        print(
            markdown_table(["concurrency", "requests", "seconds", "requests/s", "ideal requests/s", "of ideal"], rows)
        )

        prompts = [[{"role": "user", "content": f"cached request {i}"}] for i in range(args.requests * 4)]
        with tempfile.TemporaryDirectory() as folder:
            cache = Path(folder) / "llm.sqlite"
            first, _ = run_batch(server, prompts, 64, cache)
            sent_before = server.count
            again, usage = run_batch(server, prompts, 64, cache)
            sent = server.count - sent_before
        print(f"\ncached re-run of {len(prompts)} requests (concurrency 64)")
        print(
            markdown_table(
                ["run", "seconds", "requests/s", "HTTP requests", "cache hits"],
                [
                    ["first (fills cache)", f"{first:.2f}", f"{len(prompts) / first:.0f}", len(prompts), 0],
                    ["re-run (cached)", f"{again:.3f}", f"{len(prompts) / again:.0f}", sent, usage["cache_hits"]],
                ],
            )
        )


if __name__ == "__main__":
    main()
