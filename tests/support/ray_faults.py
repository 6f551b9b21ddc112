"""A shard function whose worker process dies on its first run: what a killed Ray worker looks like to the build."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


def exit_on_first_run(marker: Path, make_rows: Callable[..., Any], *args: Any) -> Any:
    """``make_rows(*args)``, except on the first run of any shard (``marker`` absent): the process exits at once,
    without cleanup, as a killed worker does."""
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os._exit(1)
    return make_rows(*args)
