"""The code blocks of Markdown documents (the README, the documentation site's pages), run as written.

Convention, the same for every document: a ```` ```bash ```` or ```` ```python ```` block runs
offline, in document order, every document of a test in one folder; a block titled ``needs a model
server``, ``needs the package registry`` or ``needs a Ray cluster`` (```` ```bash title="..." ````) is
only checked: its ``causal-datasets`` commands must parse with the real command line, its Python
must compile. The "Set up" section's commands are run by CI itself (``.ci/run``). ``ORG/...``
repositories live on a local Hub server the test starts; ``../shared/data`` is the released data
beside the checkout. A command ends with ``# exit N`` when it is meant to exit with N. Fences of
other kinds hold no code to run: text a command prints, diagrams, and MyST directives (``{toctree}``,
``{eval-rst}``). The README's blocks run as a user types them (:func:`run_session`): one fresh shell with no
virtualenv active, beside the set-up's ``.venv``; the site's pages run line by line with this virtualenv on
``PATH`` (:func:`run_block`).
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


def fresh_shell_environment(env: dict[str, str]) -> dict[str, str]:
    """``env`` as a new terminal has it: no virtualenv active (this one's ``bin``, and any other virtualenv's,
    off ``PATH``)."""
    own_bin = str(Path(sys.executable).parent)

    def in_a_virtualenv(part: str) -> bool:
        return part == own_bin or (Path(part).parent / "pyvenv.cfg").is_file()

    path = os.pathsep.join(part for part in env["PATH"].split(os.pathsep) if part and not in_a_virtualenv(part))
    return {name: value for name, value in env.items() if name != "VIRTUAL_ENV"} | {"PATH": path}


def session_script(document_blocks: list[Block]) -> str:
    """The runnable blocks as one shell session: each command line as written, a Python block fed to ``python``;
    after each, its exit code is checked (``# exit N``, else 0) and the session stops at the first wrong one."""
    lines: list[str] = []

    def check(expected: int, shown: str) -> None:
        said = f'echo "exit $__rc, expected {expected}:" {shlex.quote(shown)} >&2'
        lines.append(f'__rc=$?; if [ "$__rc" -ne {expected} ]; then {said}; exit 1; fi')

    for block in document_blocks:
        if not block.runs:
            continue
        if block.info == "python":
            lines += ["python - <<'__DOC_BLOCK__'", block.body.rstrip("\n"), "__DOC_BLOCK__"]
            check(0, f"{block.document}: the Python block\n{block.body}")
            continue
        for line in block.body.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(line)
                m = EXPECTED_EXIT.search(line)
                check(int(m.group(1)) if m else 0, f"{block.document}: {line}")
    return "\n".join(lines) + "\n"


def run_session(document_blocks: list[Block], cwd: Path, env: dict[str, str], timeout: float = 3600) -> str:
    """Run the runnable blocks as one fresh ``bash`` session in ``cwd`` (no profile, no rc file, no stdin for
    a command to read the next ones from); its output."""
    script = cwd.parent / "session.sh"
    script.write_text(session_script(document_blocks), encoding="utf-8")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", str(script)],
        cwd=cwd,
        env=fresh_shell_environment(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{done.stderr[-3000:]}\n{done.stdout[-2000:]}"
    return done.stdout


def _run(command: list[str], cwd: Path, env: dict[str, str], expected: int, shown: str) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == expected, f"{shown}\nexit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def check_exempt_block(block: Block) -> None:
    """A block that is not run still names real commands and flags (Python: compiles)."""
    if block.info.startswith("python"):
        compile(block.body, block.document, "exec")
        return
    from causal_datasets.cli import build_parser

    for line in block.body.replace("\\\n", " ").splitlines():  # a command continued over lines is one command
        words = shlex.split(line, comments=True)
        if words[:1] == ["causal-datasets"] and words[1] != "serve-local":
            build_parser().parse_args(words[1:])  # SystemExit on an unknown flag
