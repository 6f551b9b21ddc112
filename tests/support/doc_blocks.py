"""The code blocks of Markdown documents (the README, the documentation site's pages), run as written.

Convention, the same for every document: a ```` ```bash ```` or ```` ```python ```` block runs
offline, in document order, every document of a test in one folder; a block titled ``needs a model
server``, ``needs the package registry`` or ``needs a Ray cluster`` (```` ```bash title="..." ````) is
only checked: its ``causal-datasets`` commands must parse with the real command line, its Python
must compile. The "Set up" section's commands are run by CI itself (``.ci/run``). ``ORG/...``
repositories live on a local Hub server the test starts; ``../shared/data`` is the released data
beside the checkout. A command ends with ``# exit N`` when it is meant to exit with N. Fences of
other kinds hold no code to run: text a command prints, diagrams, and MyST directives (``{toctree}``,
``{eval-rst}``).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.data import SHARED_DATA_DIR
from tests.support.hub_server import TOKEN

FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
RUN_KINDS = {"bash", "python"}
EXEMPT_TITLES = {"needs a model server", "needs the package registry", "needs a Ray cluster"}
EXEMPT = {f'{kind} title="{title}"' for kind in RUN_KINDS for title in EXEMPT_TITLES}
NOT_CODE = {"", "text", "json", "yaml"}
SETUP_SECTION = "Set up"
EXPECTED_EXIT = re.compile(r"#\s*exit (\d+)")


@dataclass(frozen=True)
class Block:
    document: str
    section: str  # the last ``##`` heading above the block
    info: str  # the fence's info string: ``bash``, ``python title="needs a model server"``, ``{toctree}``...
    body: str

    @property
    def runs(self) -> bool:
        """Whether the test runs this block (rather than only checking it, or leaving it alone)."""
        return self.info in RUN_KINDS and self.section != SETUP_SECTION

    @property
    def is_directive(self) -> bool:
        return self.info.startswith("{")


def blocks(text: str, document: str) -> list[Block]:
    """Every fenced block of ``text``, in order."""
    found = []
    for match in FENCE.finditer(text):
        headings = re.findall(r"^## (.+)$", text[: match.start()], re.MULTILINE)
        found.append(Block(document, headings[-1] if headings else "", match["info"].strip(), match["body"]))
    return found


def offline_environment(tmp_path: Path, hub_endpoint: str) -> dict[str, str]:
    """The environment the blocks run in: this virtualenv first on PATH, the local Hub, no sources folder."""
    return {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HF_ENDPOINT": hub_endpoint,
        "HF_TOKEN": TOKEN,
        "HF_HOME": str(tmp_path / "hf_home"),
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "1",
        "CAUSAL_DATASETS_SOURCES": "",
    }


def work_folder(tmp_path: Path) -> Path:
    """A fresh folder with ``../shared/data`` beside it, as in a checkout."""
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED_DATA_DIR.parent)
    return work


def run_block(block: Block, cwd: Path, env: dict[str, str]) -> int:
    """Run one block (a Python block whole, a bash block line by line); the number of runs made."""
    if block.info == "python":
        _run([sys.executable, "-c", block.body], cwd, env, 0, f"{block.document}:\n{block.body}")
        return 1
    ran = 0
    for line in block.body.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        expected = int(m.group(1)) if (m := EXPECTED_EXIT.search(line)) else 0
        _run(["bash", "-c", line], cwd, env, expected, f"{block.document}: {line}")
        ran += 1
    return ran


def _run(command: list[str], cwd: Path, env: dict[str, str], expected: int, shown: str) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == expected, f"{shown}\nexit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def check_exempt_block(block: Block) -> None:
    """A block that is not run still names real commands and flags (Python: compiles)."""
    if block.info.startswith("python"):
        compile(block.body, block.document, "exec")
        return
    from causal_datasets.cli import build_parser

    for line in block.body.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["causal-datasets"] and words[1] != "serve-local":
            build_parser().parse_args(words[1:])  # SystemExit on an unknown flag
