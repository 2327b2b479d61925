"""The loop watch: a loop on time refuses nothing, a short pause (a GC) refuses
nothing, a loop that stays late refuses work with a retry hint that grows with the
lag, and it stops refusing once the loop catches up."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

from prometheus_client import REGISTRY

from tablehub.server.ops.loopwatch import (
    ACT_LATE_S,
    RETRY_MAX_MS,
    RETRY_MIN_MS,
    LoopWatch,
    retry_ms_for,
)


def probes() -> float:
    """Probes observed so far by every watch of this process."""
    return REGISTRY.get_sample_value("tablehub_loop_lag_seconds_count") or 0.0


async def until(done: Callable[[], bool]) -> None:
    """Wait (bounded) until ``done()``: the watch is a thread of its own, so its state
    is looked at -- there is nothing to await."""
    async with asyncio.timeout(30):
        while not done():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


async def more_probes(count: int) -> None:
    """Wait until ``count`` more probes ran."""
    target = probes() + count
    await until(lambda: probes() >= target)


@contextlib.asynccontextmanager
async def watching(tables_after_s: float) -> AsyncIterator[LoopWatch]:
    """A loop watch on this test's loop, stopped at the end."""
    watch = LoopWatch(tables_after_s=tables_after_s)
    watch.start(asyncio.get_running_loop())
    try:
        yield watch
    finally:
        watch.stop()


def test_the_retry_hint_grows_with_the_lag_within_bounds() -> None:
    assert retry_ms_for(0.0) == RETRY_MIN_MS
    assert retry_ms_for(0.2) == 800
    assert retry_ms_for(0.5) > retry_ms_for(0.2)
    assert retry_ms_for(60.0) == RETRY_MAX_MS


async def test_a_loop_on_time_refuses_nothing() -> None:
    async with watching(0.2) as watch:
        await more_probes(5)
        assert watch.refusing_moves() is None
        assert watch.refusing_tables is None
        assert watch.lag_s < ACT_LATE_S


async def test_a_short_pause_refuses_no_work() -> None:
    async with watching(10) as watch:
        await more_probes(3)
        end = time.monotonic() + 0.2  # a long GC pause: the loop's thread busy, no await
        while time.monotonic() < end:
            assert watch.refusing_moves() is None
        await more_probes(3)
        assert watch.refusing_moves() is None


async def test_a_late_loop_refuses_work_until_it_catches_up() -> None:
    async with watching(0.2) as watch:
        await more_probes(2)
        # Blocked (no await): the pending probe counts, so the watch says so meanwhile.
        give_up = time.monotonic() + 30
        while watch.refusing_moves() is None or watch.refusing_tables is None:
            assert time.monotonic() < give_up, "the watch never saw the blocked loop"
        retry_ms = watch.refusing_moves()
        assert retry_ms is not None and RETRY_MIN_MS <= retry_ms <= RETRY_MAX_MS
        assert watch.lag_s > ACT_LATE_S
        assert watch.refusing_tables == "the event loop is running late"
        # On time again: work is taken once the smoothed lag has come down.
        await until(lambda: watch.refusing_moves() is None)
        assert watch.lag_s <= ACT_LATE_S
        assert watch.refusing_tables is not None, "new tables stay refused for a while longer"
