"""Per-connection rate limits: a token bucket for messages, a sliding count for
errors and overflows (protocol/README.md "Limits")."""

from __future__ import annotations

import time
from collections import deque


class TokenBucket:
    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class WindowCounter:
    """Events in the last 60 seconds (the list of their times made at the first one:
    most connections never err or overflow)."""

    __slots__ = ("stamps",)

    def __init__(self) -> None:
        self.stamps: deque[float] | None = None

    def hit(self) -> int:
        now = time.monotonic()
        if self.stamps is None:
            self.stamps = deque()
        self.stamps.append(now)
        while self.stamps and self.stamps[0] < now - 60:
            self.stamps.popleft()
        return len(self.stamps)
