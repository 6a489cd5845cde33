"""Backoff with full jitter, and Retry-After."""
from __future__ import annotations

import random
import time
from email.utils import parsedate_to_datetime
from typing import Optional

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


def backoff_delay(attempt: int, base: float = 0.5, maximum: float = 20.0) -> float:
    """A uniformly random wait up to min(maximum, base * 2**attempt) seconds (attempt from 0)."""
    return random.random() * min(maximum, base * (2**attempt))


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After (delta seconds or an HTTP date) in seconds; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        at = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


def retry_after_delay(retry_after: float) -> float:
    """The Retry-After plus a little jitter, never less."""
    return retry_after + random.random() * min(1.0, 0.1 + retry_after * 0.1)
