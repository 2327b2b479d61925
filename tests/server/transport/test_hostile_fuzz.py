"""The project's own hostile-client fuzz run, short (the long run:
``python -m tablehub.loadtest.fuzz --messages 100000``, docs/contributing.md).

Seeded hypothesis-drawn hostile messages over real sockets, beside a legitimate lobby
subscriber and a legitimate 9-tower game: every message gets exactly one documented
outcome (loadtest/fuzz.py says which), and the legitimate clients never fail."""

from __future__ import annotations

import asyncio

import pytest

from tablehub.loadtest.fuzz import (
    Legit,
    changed_tables,
    draw_batches,
    fuzz,
    p99,
    setup_tables,
)
from tests.conftest import RunningHub

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

SEED = 19
MESSAGES = 900


async def test_hostile_messages_each_get_one_documented_outcome(hub: RunningHub) -> None:
    setup = await setup_tables(hub.url)
    tables = setup.tables
    # drawn in a thread: a loop blocked for a second (drawing) would have the hub refuse
    # new tables for 5 s (server/ops/loopwatch.py), and the probes' own tables with them
    batches = await asyncio.to_thread(draw_batches, SEED, MESSAGES, tables)
    again = [repr(await asyncio.to_thread(draw_batches, SEED, 50, tables)) for _ in range(2)]
    assert again[0] == again[1], "seeded"  # repr: a NaN is never == itself
    legit = Legit()
    out = await fuzz(hub.url, batches, workers=4, legit=legit)
    print(
        f"\n{out.messages} messages, {out.connections} connections: {dict(out.counts)}; "
        f"lobby ping p99 {p99(legit.pings_ms):.1f} ms, act p99 {p99(legit.acts_ms):.1f} ms; "
        f"integer-field probes: {dict(out.probes)}"
    )
    assert out.messages >= MESSAGES // 3, "a close cuts its batch short, the rest is sent"
    assert out.violations == []
    assert out.unanswered() == 0
    assert legit.failures == []
    assert await changed_tables(hub.url, setup) == []
    assert legit.pings_ms, "the lobby subscriber kept being answered"
    assert any(c.startswith("closed") for c in out.counts), "closes were exercised"
    assert out.counts["answered bad_message"] > 0
