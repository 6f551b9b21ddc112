"""Persistent response cache: SQLite (WAL) keyed by the sha256 of the canonical JSON request body.

Only successful response bodies are stored. The key covers the endpoint (the base URL without
credentials: two servers serving a model of the same name never share answers) and everything
sent in the body (model, messages, sampling parameters, extra body); never the API key. The request and the
reply are stored with the secrets the process holds redacted (:mod:`causal_datasets.secret_values`). The cache
never breaks a run: a corrupt or unreadable file turns caching off with one warning, a lock held
too long by another process skips that one read or write with a warning.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

from causal_datasets.secret_values import scrub

log = logging.getLogger(__name__)

#: seconds a read or write waits for another process's lock before it is skipped
BUSY_TIMEOUT = 10.0


def cache_key(endpoint: str, body: dict[str, Any]) -> str:
    """sha256 of ``{"endpoint": endpoint, "body": body}`` as canonical JSON (sorted keys, no spaces, UTF-8)."""
    canonical = json.dumps(
        {"body": body, "endpoint": endpoint}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Thread-safe get/put of response bodies; safe to share one file between processes."""

    def __init__(self, path: Path, *, busy_timeout: float = BUSY_TIMEOUT):
        self.path = Path(path)
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self.problems = 0
        self.enabled = True
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=busy_timeout, check_same_thread=False, isolation_level=None)
            self._conn = conn
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, request TEXT, response TEXT)")
            conn.execute("SELECT count(*) FROM responses").fetchone()
        except (sqlite3.Error, OSError) as error:
            self._give_up(error, "open")

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached response body for ``key``, or None (a miss, also when the cache is off or unreadable)."""
        with self._lock:
            row = self._run("read", "SELECT response FROM responses WHERE key = ?", (key,))
            if row is not None:
                try:
                    body = json.loads(row[0])
                except (TypeError, json.JSONDecodeError):
                    body = None
                    self.problems += 1
                    log.warning("LLM cache %s: entry %s is not valid JSON; treating it as a miss", self.path, key[:12])
                if isinstance(body, dict):
                    self.hits += 1
                    return body
            self.misses += 1
            return None

    def put(self, key: str, request: dict[str, Any], response: dict[str, Any]) -> None:
        """Store a successful response body (replacing any older one under the same key), secrets redacted."""
        with self._lock:
            done = self._run(
                "write",
                "INSERT OR REPLACE INTO responses (key, request, response) VALUES (?, ?, ?)",
                # ASCII JSON: a lone surrogate in a reply is stored as its escape, never an encoding error
                (key, scrub(json.dumps(request, sort_keys=True)), scrub(json.dumps(response))),
            )
            if done is not None:
                self.writes += 1

    def __len__(self) -> int:
        with self._lock:
            row = self._run("count", "SELECT count(*) FROM responses", ())
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self.enabled = False

    def stats(self) -> dict[str, Any]:
        return {
            "hits": self.hits,
            "misses": self.misses,
            "writes": self.writes,
            "problems": self.problems,
            "enabled": self.enabled,
            "path": str(self.path),
        }

    def _run(self, what: str, sql: str, params: tuple) -> tuple | None:
        """One statement; a write returns ``()`` on success. Caller holds the lock. None if skipped or off."""
        if not self.enabled or self._conn is None:
            return None
        try:
            cursor = self._conn.execute(sql, params)
            row = cursor.fetchone()
            return () if row is None and what == "write" else row
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                self.problems += 1
                log.warning("LLM cache %s is locked by another writer; %s skipped", self.path, what)
                return None
            self._give_up(error, what)
        except sqlite3.Error as error:
            self._give_up(error, what)
        return None

    def _give_up(self, error: Exception, what: str) -> None:
        self.problems += 1
        self.enabled = False
        log.warning("LLM cache %s unusable (%s failed: %s); continuing without caching", self.path, what, error)
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None
