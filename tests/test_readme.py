"""Every command and Python block of the README runs as written, in order, in a fresh folder.

Conventions (stated in the README): a ```` ```bash ```` or ```` ```python ```` block runs offline;
one whose info string has ``title="needs a model server"`` or ``title="needs the package
registry"`` is only checked to be there; the two set-up commands are run by CI itself
(``.ci/run``). ``ORG/...`` repositories live on a local Hub server the test starts; ``../shared/data``
is the released data beside the checkout. A command ends with ``# exit N`` when it is meant to
exit with N.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR
from tests.support.hub_server import TOKEN, LocalHub

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
OFFLINE_KINDS = {"bash", "python"}
EXEMPT = {'bash title="needs a model server"', 'python title="needs a model server"',
          'bash title="needs the package registry"'}
EXPECTED_EXIT = re.compile(r"#\s*exit (\d+)")


def blocks() -> list[tuple[str, str, str]]:
    """(section heading, info string, body) of every fenced block, in README order."""
    text = README.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        headings = re.findall(r"^## (.+)$", text[: match.start()], re.MULTILINE)
        found.append((headings[-1] if headings else "", match["info"].strip(), match["body"]))
    return found


def test_every_block_follows_the_convention():
    kinds = [info for _, info, _ in blocks()]
    assert set(kinds) <= OFFLINE_KINDS | EXEMPT, kinds
    setup = [body.strip() for section, _, body in blocks() if section == "Set up"]
    assert setup == [
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/causal-datasets build --all",
        "bash scripts/test.sh",
    ]


def test_every_offline_command_and_python_block_runs_in_order(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED_DATA_DIR.parent)  # the README's ../shared/data
    with LocalHub() as hub:
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "HF_ENDPOINT": hub.endpoint, "HF_TOKEN": TOKEN, "HF_HOME": str(tmp_path / "hf_home"),
            "HF_HUB_OFFLINE": "0", "HF_DATASETS_OFFLINE": "1", "CAUSAL_DATASETS_SOURCES": "",
        }
        ran = 0
        for section, info, body in blocks():
            if section == "Set up" or info in EXEMPT:
                continue
            if info == "python":
                _run([sys.executable, "-c", body], work, env, 0, body)
                ran += 1
                continue
            for line in body.splitlines():
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                expected = int(m.group(1)) if (m := EXPECTED_EXIT.search(line)) else 0
                _run(["bash", "-c", line], work, env, expected, line)
                ran += 1
        assert f"v{get_builder('shapeworld').version}" in hub.tags("ORG/shapeworld")  # the push line reached the local Hub
    assert ran >= 15
    assert (work / "report" / "report.md").is_file() and (work / "run-summary.schema.json").stat().st_size > 1000


def _run(command: list[str], cwd: Path, env: dict, expected: int, shown: str) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == expected, f"{shown}\nexit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("section, info, body", [b for b in blocks() if b[1] in EXEMPT])
def test_exempt_blocks_name_real_commands(section, info, body):
    """Blocks that need a model server or the registry are not run, but must use real commands and flags."""
    if info.startswith("python"):
        compile(body, "README", "exec")
        return
    from causal_datasets.cli import build_parser

    for line in body.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["causal-datasets"] and words[1] != "serve-local":
            build_parser().parse_args(words[1:])  # SystemExit on an unknown flag
