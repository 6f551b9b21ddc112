"""Hidden work-in-progress files and folders, named after the process that writes them.

A build stages its folder as ``.NAME.building-PID-*`` and a run writes ``.results.jsonl.PID-*``
before renaming it into place (a folder that replaces another is swapped with it in one step where the system
can: :func:`exchange`). A kill leaves such a file behind; the next build or run of the same
target removes those whose process is gone (:func:`remove_stale`), never one a running process
is still writing.
"""

from __future__ import annotations

import ctypes
import errno
import glob
import os
import shutil
import sys
from pathlib import Path

#: ``renameat2``'s arguments: the working directory as the base of a relative path, and "swap the two paths"
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


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


def exchange(first: Path, second: Path) -> bool:
    """Swap two existing paths in one atomic step (Linux ``renameat2`` with ``RENAME_EXCHANGE``): True when done,
    False where the system or file system has no such call (the caller then renames twice)."""
    if not sys.platform.startswith("linux"):
        return False
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))
