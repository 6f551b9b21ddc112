"""Pure calls mapped over a Ray cluster, in order: the engine behind ``build --ray``, ``rescore --ray`` and
:func:`~causal_datasets.batch_scoring.score_batch` given an address.

Nothing imports Ray until a :class:`RayCluster` is used (Ray is the ``ray`` extra). :func:`ray_map` runs
``function(argument)`` as one Ray task per argument and returns the results in the arguments' order. A task
returns its result as an object in Ray's store, sealed only when the task completes, so a worker that dies
mid-task leaves nothing behind; Ray runs the task again (:data:`MAX_RETRIES` times at most, Ray's
``max_retries`` for system failures), and since every function mapped here is a pure function of its
argument, the retry gives the same result. An exception the function raises is not retried: it reaches the
caller as raised (Ray's ``RayTaskError`` is an instance of the original type).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from causal_datasets.errors import ClusterError, MissingExtra

T = TypeVar("T")
R = TypeVar("R")

#: times Ray runs a task again after its worker died (a killed process, a lost node)
MAX_RETRIES = 3
#: seconds a ``HOST:PORT`` address has to accept a connection before the cluster counts as unreachable
PROBE_SECONDS = 5.0


@dataclass(frozen=True)
class RayCluster:
    """Where Ray tasks run: ``address`` of a running cluster (``auto``, ``HOST:PORT`` of a head node or
    ``ray://HOST:10001``), or None for a Ray runtime started on this machine with ``num_cpus`` CPUs (None: all).
    A driver already connected to Ray (``ray.init`` called by the caller) keeps its connection."""

    address: str | None = None
    num_cpus: int | None = None


@contextmanager
def connected(cluster: RayCluster) -> Iterator[None]:
    """Ray connected to ``cluster`` for the block: started (or joined) on entry and shut down on exit, unless
    the caller had already connected, whose connection is used as it is."""
    ray = _ray()
    if ray.is_initialized():
        yield
        return
    try:
        if cluster.address is None:
            ray.init(num_cpus=cluster.num_cpus, include_dashboard=False, log_to_driver=False)
        else:
            _probe(cluster.address)
            ray.init(address=cluster.address, log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError) as error:
        where = cluster.address or "a local runtime"
        raise ClusterError(f"cannot start or reach Ray at {where}: {type(error).__name__}: {error}") from None
    try:
        yield
    finally:
        ray.shutdown()


def ray_map(function: Callable[[T], R], arguments: Sequence[T], cluster: RayCluster) -> list[R]:
    """``[function(argument) for argument in arguments]``, one Ray task per argument (see the module);
    ``function`` must be picklable by value or importable on the workers (a module-level function or a
    ``functools.partial`` of one)."""
    ray = _ray()
    with connected(cluster):
        shared = ray.put(function)  # sent once, not with every task
        refs = [_call.options(max_retries=MAX_RETRIES).remote(shared, argument) for argument in arguments]
        try:
            return list(ray.get(refs))
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as error:
            raise ClusterError(
                f"a Ray task's worker died {MAX_RETRIES + 1} times (its first run and {MAX_RETRIES} retries): "
                f"{type(error).__name__}"
            ) from None


def _probe(address: str) -> None:
    """Refuse at once a ``HOST:PORT`` (or ``ray://HOST:PORT``) address where nothing accepts a connection:
    Ray itself keeps trying such an address for minutes. ``auto`` and other forms are left to Ray."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_SECONDS):
            pass
    except OSError as error:
        raise ClusterError(f"cannot reach Ray at {address}: nothing answers there ({error})") from None


def _ray() -> Any:
    try:
        import ray
    except ImportError as error:
        raise MissingExtra("running on a Ray cluster (--ray)", "ray", "ray") from error
    global _call
    if _call is None:
        _call = ray.remote(_apply)
    return ray


def _apply(function: Callable[[T], R], argument: T) -> R:
    return function(argument)


#: :func:`_apply` as a Ray remote function (made on first use: importing this module never imports Ray)
_call: Any = None
