"""The per-connection limits on their own (no socket)."""

from __future__ import annotations

from tablehub.server.sessions.limits import TokenBucket, WindowCounter


def test_the_bucket_allows_a_burst_then_refuses() -> None:
    bucket = TokenBucket(rate=0.0, burst=3)  # no refill: only the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_the_window_counts_recent_events() -> None:
    counter = WindowCounter()
    assert [counter.hit() for _ in range(3)] == [1, 2, 3]
