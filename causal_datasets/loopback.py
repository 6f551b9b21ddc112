"""An HTTP server on 127.0.0.1 served from a daemon thread: the base of the package's test endpoints."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class _ThreadingServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # room for many clients connecting at once (the default backlog is 5)


class LoopbackServer:
    """``handler`` served on 127.0.0.1 (a free port unless ``port`` is given); ``with`` starts and stops it."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], *, port: int = 0, name: str = "loopback-server"):
        self._httpd = _ThreadingServer(("127.0.0.1", port), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True
        )

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread.is_alive():
            self._thread.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
