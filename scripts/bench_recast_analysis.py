"""ReCAST analyses: the cost of the paper's tables over all 292 samples, the context-window check, and
the figures the release itself gives (bins, R² on log size, samples per publication period).

    .venv/bin/python scripts/bench_recast_analysis.py [--local]

``--local`` also counts every sample's prompt with the bundled SmolLM2 server's tokenizer
(llama-cpp-python ``/extras/tokenize/count``) and compares it with the 4-characters estimate.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from checkout import SHARED_DATA_DIR
from timing import best_of

from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.context import estimate_tokens
from causal_datasets.markdown import markdown_table
from causal_datasets.recast import analysis
from causal_datasets.recast.prompts import build_messages
from causal_datasets.recast.records import DOMAINS
from causal_datasets.recast.release import read_release

RELEASE = SHARED_DATA_DIR / "recast" / "test.parquet"


def bench_tables(samples) -> None:
    rng = random.Random(0)
    rows = [analysis.Scored(s, {"judge_f1": rng.random(), "edge_f1_normalized": rng.random()}) for s in samples]
    steps = {
        "confounding bins, lenient (4) and strict (5)": lambda: (
            analysis.by_confounding(rows, samples, "confounding_lenient", 4),
            analysis.by_confounding(rows, samples, "confounding_strict", 5),
        ),
        "domains and number of domains": lambda: (analysis.by_domain(rows, DOMAINS), analysis.by_domain_count(rows)),
        "knowledge cutoff groups + Mann–Whitney U": lambda: (
            analysis.by_cutoff(rows, analysis.DEFAULT_CUTOFF),
            analysis.cutoff_test(rows, analysis.DEFAULT_CUTOFF),
        ),
        "size quartiles (Table 4)": lambda: analysis.by_size_quartile(rows, samples),
        "R² of confounding on log size": lambda: analysis.size_confounding_r2(samples),
    }
    table = [[name, f"{best_of(fn)[0] * 1000:.1f}"] for name, fn in steps.items()]
    print("## analyses over 292 scored samples (best of 5)\n")
    print(markdown_table(["analysis", "ms"], table))


def bench_release_figures(samples) -> None:
    lenient = [s.confounding_lenient for s in samples]
    strict = [s.confounding_strict for s in samples]
    fixed = np.histogram(lenient, [0, 0.25, 0.5, 0.75, 1.0001])[0]
    print("\n## the release's own figures\n")
    print(
        markdown_table(
            ["bins", "samples per bin"],
            [
                ["fixed 0–.25–.5–.75–1, lenient", ", ".join(map(str, fixed))],
                [
                    "balanced, lenient (4)",
                    ", ".join(f"{b.label}: {b.size}" for b in analysis.balanced_bins(lenient, 4)),
                ],
                ["balanced, strict (5)", ", ".join(f"{b.label}: {b.size}" for b in analysis.balanced_bins(strict, 5))],
            ],
        )
    )
    r2 = analysis.size_confounding_r2(samples)
    strict_r2 = analysis.size_confounding_r2(samples, "confounding_strict")
    print()
    print(
        markdown_table(
            ["size (log10)", "R², lenient", "R², strict"],
            [[name, round(r2[name], 4), round(strict_r2[name], 4)] for name in analysis.SIZE_ATTRIBUTES],
        )
    )
    recent = sum(s.publication_date >= analysis.DEFAULT_CUTOFF for s in samples)
    print(f"\nsamples published from {analysis.DEFAULT_CUTOFF} on: {recent}; before: {len(samples) - recent}")


def bench_context(samples, local: bool) -> None:
    messages = [build_messages(s) for s in samples]
    seconds, _ = best_of(lambda: [estimate_tokens(m) for m in messages])
    estimates = [estimate_tokens(m) for m in messages]
    print("\n## context-window check\n")
    rows = [
        [
            "estimate (4 characters/token), 292 prompts",
            f"{seconds * 1000:.1f} ms",
            f"median {int(np.median(estimates))} tokens",
        ]
    ]
    if local:
        from causal_datasets.llm.local import LocalServer

        with (
            LocalServer() as server,
            LLMClient(LLMConfig(model=server.model, base_url=server.base_url, context_window=8192)) as client,
        ):
            start = time.perf_counter()
            counted = [client.check_context(m).prompt_tokens for m in messages]
            elapsed = time.perf_counter() - start
        ratios = np.array(counted) / np.array(estimates)
        rows.append(
            [
                "llama.cpp tokenizer (SmolLM2), 292 prompts",
                f"{elapsed:.2f} s",
                f"median {int(np.median(counted))} tokens; counted / estimate {ratios.min():.2f}–{ratios.max():.2f}",
            ]
        )
        for window in (8192, 32768, 131072):
            over = sum(c + 512 > window for c in counted)
            rows.append([f"samples over a {window}-token window (512 reserved)", "", f"{over} of 292"])
    print(markdown_table(["step", "time", "result"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--local", action="store_true", help="count prompts with the local SmolLM2 server's tokenizer")
    args = parser.parse_args()
    samples = read_release(RELEASE).samples
    bench_tables(samples)
    bench_release_figures(samples)
    bench_context(samples, args.local)


if __name__ == "__main__":
    main()
