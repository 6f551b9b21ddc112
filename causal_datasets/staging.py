"""Hidden work-in-progress files and folders, named after the process that writes them.

A build stages its folder as ``.NAME.building-PID-*`` and a run writes ``.results.jsonl.PID-*``
before renaming it into place. A kill leaves such a file behind; the next build or run of the same
target removes those whose process is gone (:func:`remove_stale`), never one a running process
is still writing.
"""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path


def prefix(name: str) -> str:
    """The name start of a hidden file or folder this process stages for ``name`` (``.NAME.PID-``)."""
    return f".{name}.{os.getpid()}-"


def remove_stale(parent: Path, name: str) -> list[Path]:
    """Delete what ended processes staged for ``name`` in ``parent`` (``.NAME.PID-*``; also the older
    ``.NAME.*`` and ``.NAME-*`` names without a process id); returns the paths removed."""
    removed = []
    for path in sorted(Path(parent).glob(f".{glob.escape(name)}[.-]*")):
        pid = path.name[len(name) + 2 :].split("-", 1)[0]
        if pid.isdigit() and process_alive(int(pid)):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, under another user
        return True
    except OverflowError:  # not a process id at all
        return False
    return True
