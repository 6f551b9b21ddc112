"""Process ids for tests of what killed processes leave behind."""

from __future__ import annotations

import subprocess
import sys


def ended_process_id() -> int:
    """The id of a process that has ended (a child that printed its id and exited)."""
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    return int(child.stdout)
