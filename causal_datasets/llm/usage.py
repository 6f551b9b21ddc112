"""Token and cost accounting across the calls of one client (thread-safe running totals).

Fresh calls count ``prompt_tokens`` and ``completion_tokens`` and, of these, ``cache_read_tokens``
(prompt tokens the provider read from its prompt cache, priced at the cached-input price) and
``reasoning_tokens``; replies served by the response cache count under ``cached_*`` and cost nothing.
"""

from __future__ import annotations

import threading
from typing import Any

from causal_datasets.llm.config import PriceTable


class UsageTracker:
    """Counts calls, HTTP requests, retries, failures and tokens; prices fresh (non-cached) tokens."""

    def __init__(self, prices: PriceTable | None = None):
        self.prices = dict(prices or {})
        self._lock = threading.Lock()
        self._totals: dict[str, float] = {
            "calls": 0,
            "succeeded": 0,
            "failed": 0,
            "http_requests": 0,
            "retries": 0,
            "retry_wait_s": 0.0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "reasoning_tokens": 0,
            "cache_read_tokens": 0,
            "cached_prompt_tokens": 0,
            "cached_completion_tokens": 0,
        }
        self._cost = 0.0
        self._priced_calls = 0
        self._unpriced: set[str] = set()

    def record_request(self, *, retry_wait: float | None = None) -> None:
        """One HTTP request sent; ``retry_wait`` is the pause before it when it is a retry."""
        with self._lock:
            self._totals["http_requests"] += 1
            if retry_wait is not None:
                self._totals["retries"] += 1
                self._totals["retry_wait_s"] += retry_wait

    def record_call(
        self,
        model: str,
        *,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        reasoning_tokens: int = 0,
        cache_read_tokens: int = 0,
        cached: bool = False,
        failed: bool = False,
    ) -> None:
        """One finished ``chat`` call (successful, cached, or failed)."""
        with self._lock:
            self._totals["calls"] += 1
            if failed:
                self._totals["failed"] += 1
                return
            self._totals["succeeded"] += 1
            prefix = "cached_" if cached else ""
            self._totals[f"{prefix}prompt_tokens"] += prompt_tokens
            self._totals[f"{prefix}completion_tokens"] += completion_tokens
            if cached:
                return
            self._totals["reasoning_tokens"] += reasoning_tokens
            self._totals["cache_read_tokens"] += cache_read_tokens
            price = self.prices.get(model)
            if price is None:
                self._unpriced.add(model)
            else:
                self._cost += price.cost(prompt_tokens, completion_tokens, cache_read_tokens)
                self._priced_calls += 1

    def summary(self) -> dict[str, Any]:
        """Totals; ``cost_usd`` is None when no fresh call had a price, ``unpriced_models`` lists the others."""
        with self._lock:
            out: dict[str, Any] = dict(self._totals)
            out["retry_wait_s"] = round(out["retry_wait_s"], 3)
            out["cost_usd"] = round(self._cost, 6) if self._priced_calls else None
            out["unpriced_models"] = sorted(self._unpriced)
            return out
