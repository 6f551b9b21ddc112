"""Run a function over many items on a thread pool, with a progress bar, keeping input order.

A failing item never stops the batch: its exception is returned in its slot instead of a result.
Ctrl-C cancels the items not started yet and re-raises. On a terminal the progress is a tqdm bar;
when stderr is not one (a log file, CI, a pipe), where a bar would be one endless line, it is a line
every :data:`PROGRESS_INTERVAL` seconds.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")
R = TypeVar("R")

#: seconds between two progress lines when stderr is not a terminal
PROGRESS_INTERVAL = 30.0


class ProgressLines:
    """While a batch runs, ``<desc>: 3 of 10 done after 1m30s, about 3m30s left`` on stderr every ``interval`` s."""

    def __init__(self, total: int, desc: str, interval: float | None = None):
        self.total, self.desc = total, desc
        self.interval = PROGRESS_INTERVAL if interval is None else interval
        self.done = 0
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._report, name=f"{desc} progress", daemon=True)

    def update(self, count: int = 1) -> None:
        self.done += count  # only the batch's own thread counts

    def line(self) -> str:
        elapsed = time.monotonic() - self._started
        text = f"{self.desc}: {self.done} of {self.total} done after {_duration(elapsed)}"
        if 0 < self.done < self.total:
            text += f", about {_duration(elapsed / self.done * (self.total - self.done))} left"
        return text

    def __enter__(self) -> ProgressLines:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _report(self) -> None:
        while not self._stop.wait(self.interval):
            print(self.line(), file=sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def map_concurrent(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    concurrency: int = 4,
    desc: str = "items",
    progress: bool | None = None,
) -> list[R | Exception]:
    """``[fn(item) or the exception it raised, ...]`` in input order, ``concurrency`` at a time.

    ``progress``: True always shows a tqdm bar, False nothing, None (default) a bar on a terminal and
    :class:`ProgressLines` otherwise.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    items = list(items)
    results: list[R | Exception | None] = [None] * len(items)
    with _progress(len(items), desc, progress) as bar:
        if concurrency == 1:
            for index, item in enumerate(items):
                results[index] = _call(fn, item)
                bar.update()
            return results  # type: ignore[return-value]
        pool = ThreadPoolExecutor(max_workers=min(concurrency, max(1, len(items))), thread_name_prefix=desc)
        try:
            futures: dict[Future, int] = {pool.submit(_call, fn, item): index for index, item in enumerate(items)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                bar.update()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    return results  # type: ignore[return-value]


def _progress(total: int, desc: str, progress: bool | None) -> tqdm | ProgressLines:
    """A tqdm bar (``progress`` True, or None on a terminal; disabled for False) or, None off a terminal, lines."""
    isatty = getattr(sys.stderr, "isatty", None)
    if progress is None and not (isatty and isatty()):
        return ProgressLines(total, desc)
    return tqdm(total=total, desc=desc, disable=None if progress is None else not progress)


def _call(fn: Callable[[T], R], item: T) -> R | Exception:
    try:
        return fn(item)
    except Exception as error:  # noqa: BLE001 - a batch keeps going; the caller sees the exception in its slot
        return error
