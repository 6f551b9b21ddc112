"""What keeping whole transcripts and scoring them apart costs, and what rescoring saves.

Against a stub model (no cache, one item at a time), the same command in a fresh process each:

1. ``eval cladder_pairs --prompt paper`` on N questions (the model alternates the do-difference and the
   back-door adjustment), then ``rescore`` of that run with the same rules and under ``--scoring
   equivalence``: wall time per item (dataset loading included, as a user sees it) and the size of
   ``results.jsonl`` (and how much of it the requests' messages take).
2. ``eval shapeworld`` on N episodes with a model that keeps acting until the step limit (long
   conversations: each call's request repeats the episode so far): the same figures.

``--old DIR`` runs each ``eval`` also with another checkout's code (e.g. ``git archive main``
unpacked, with ``builders``, ``cards`` and ``metrics`` linked into its ``causal_datasets``), in the
same run, for the ratio.

    .venv/bin/python scripts/bench_rescore.py [--questions N] [--episodes N] [--old DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from checkout import SHARED_DATA_DIR

from causal_datasets.builder import BuildContext
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.registry import get_builder
from tests.support.stub_flags import stub_flags

DO_DIFFERENCE = (
    "Solution:\nExpression: E[Y | do(X = 1)] - E[Y | do(X = 0)]\nGraphical Representation: V1->X, "
    "V1->Y, X->Y\nFinal Answer: Yes"
)
ADJUSTED = (
    "Solution:\nExpression: \\sum_{V1} P(V1) * [P(Y=1 | X=1, V1) - P(Y=1 | X=0, V1)]\nGraphical "
    "Representation: V1->X, V1->Y, X->Y\nFinal Answer: Yes"
)
TIMED = (
    "import sys, time\nfrom causal_datasets.cli import main\nstart = time.perf_counter()\n"
    "code = main(sys.argv[1:])\nprint(f'WALL {time.perf_counter() - start}', file=sys.stderr)\nsys.exit(code)"
)


def cli(argv: list[str], code_dir: Path | None = None) -> float:
    """Seconds ``causal-datasets ARGV`` takes inside a fresh process (``code_dir``: another checkout's code)."""
    env = dict(os.environ)
    if code_dir is not None:
        env["PYTHONPATH"] = str(code_dir)
    done = subprocess.run(
        [sys.executable, "-c", TIMED, *argv],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=tempfile.gettempdir(),
    )  # not the checkout: its folder would shadow ``code_dir``
    if done.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(argv[:2])} exited {done.returncode}: {done.stderr[-800:]}")
    return float(next(line for line in done.stderr.splitlines() if line.startswith("WALL ")).split()[1])


def sizes(run: Path) -> tuple[int, int]:
    """Bytes of ``results.jsonl`` and of the requests' messages in it."""
    text = (run / "results.jsonl").read_text(encoding="utf-8")
    messages = sum(
        len(json.dumps(call.get("messages", []), ensure_ascii=False))
        for line in map(json.loads, text.splitlines())
        for call in line.get("calls", [])
    )
    return len(text.encode()), messages


def row(label: str, seconds: float, count: int, run: Path | None = None) -> str:
    cells = f"| {label} | {seconds / count * 1e3:.1f} |"
    if run is None:
        return cells + " | |"
    total, messages = sizes(run)
    return cells + f" {total / count / 1024:.1f} | {messages / max(total, 1):.0%} |"


def cladder(hub: Path, folder: Path, count: int, old: Path | None) -> None:
    def respond(request: dict, index: int) -> StubReply:
        return StubReply(body=completion_body(DO_DIFFERENCE if index % 2 else ADJUSTED))

    lines = ["| cladder_pairs, paper prompt | ms per item | KiB per item | messages |", "|---|---|---|---|"]
    with StubServer(respond) as server:
        base = [
            "eval",
            "cladder_pairs",
            "--prompt",
            "paper",
            "--scoring",
            "identification",
            "--limit",
            str(count),
            *stub_flags(server.base_url),
            "--concurrency",
            "1",
            "--hub-dir",
            str(hub),
        ]
        lines.append(row("eval", cli([*base, "--out", str(folder / "new")]), count, folder / "new"))
        if old is not None:
            lines.append(row("eval (old code)", cli([*base, "--out", str(folder / "old")], old), count, folder / "old"))
        asked = server.count
        again = cli(["rescore", str(folder / "new"), "--out", str(folder / "same")])
        other = cli(["rescore", str(folder / "new"), "--out", str(folder / "equivalence"), "--scoring", "equivalence"])
        assert server.count == asked, "rescore asked the model"
    lines += [row("rescore, same rules", again, count), row("rescore --scoring equivalence", other, count)]
    print("\n".join(lines) + "\n")


def shapeworld(hub: Path, folder: Path, count: int, old: Path | None) -> None:
    def respond(request: dict, index: int) -> StubReply:
        last = request["messages"][-1]["content"]
        return StubReply(
            text='{"shape": "circle", "action": "move"}' if '"shape"' in last else '{"next": "continue interaction"}'
        )

    lines = ["| shapeworld, episodes to the step limit | ms per item | KiB per item | messages |", "|---|---|---|---|"]
    with StubServer(respond) as server:
        base = [
            "eval",
            "shapeworld",
            "--config",
            "advanced",
            "--limit",
            str(count),
            *stub_flags(server.base_url),
            "--concurrency",
            "1",
            "--hub-dir",
            str(hub),
        ]
        lines.append(row("eval", cli([*base, "--out", str(folder / "sw-new")]), count, folder / "sw-new"))
        if old is not None:
            lines.append(
                row("eval (old code)", cli([*base, "--out", str(folder / "sw-old")], old), count, folder / "sw-old")
            )
        calls = server.count
        lines.append(row("rescore", cli(["rescore", str(folder / "sw-new"), "--out", str(folder / "sw-again")]), count))
        assert server.count == calls, "rescore asked the model"
    print("\n".join(lines) + f"\n\n({calls / count / (2 if old else 1):.1f} calls per episode)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200, help="CLadder questions (default 200)")
    parser.add_argument("--episodes", type=int, default=40, help="ShapeWorld episodes (default 40)")
    parser.add_argument("--old", type=Path, help="another checkout's code to compare eval with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        hub, folder = Path(temporary) / "hub", Path(temporary) / "runs"
        builder = get_builder("cladder_pairs")
        cladder_build.SYNTHETIC_POSITIVES = 5  # the runs read the questions config only
        build_to_folder(builder, hub, BuildContext(seed=0, source=SHARED_DATA_DIR / "cladder"))
        build_to_folder(get_builder("shapeworld"), hub, BuildContext(seed=0))
        cladder(hub, folder, args.questions, args.old)
        shapeworld(hub, folder, args.episodes, args.old)


if __name__ == "__main__":
    main()
