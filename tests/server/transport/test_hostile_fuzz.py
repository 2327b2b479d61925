"""The project's own hostile-client fuzz run, short (the long run:
``python -m tablehub.loadtest.fuzz --messages 100000``, docs/contributing.md).

Seeded hypothesis-drawn hostile messages over real sockets, beside a legitimate lobby
subscriber and a legitimate 9-tower game: every message gets exactly one documented
outcome (loadtest/fuzz.py says which), and the legitimate clients never fail."""

from __future__ import annotations

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
    batches = draw_batches(SEED, MESSAGES, tables)
    assert draw_batches(SEED, 50, tables) == draw_batches(SEED, 50, tables), "seeded"
    legit = Legit()
    out = await fuzz(hub.url, batches, workers=4, legit=legit)
    print(
        f"\n{out.messages} messages, {out.connections} connections: {dict(out.counts)}; "
        f"lobby ping p99 {p99(legit.pings_ms):.1f} ms, act p99 {p99(legit.acts_ms):.1f} ms"
    )
    assert out.messages >= MESSAGES // 3, "a close cuts its batch short, the rest is sent"
    assert out.violations == []
    assert out.unanswered() == 0
    assert legit.failures == []
    assert await changed_tables(hub.url, setup) == []
    assert legit.pings_ms, "the lobby subscriber kept being answered"
    assert any(c.startswith("closed") for c in out.counts), "closes were exercised"
    assert out.counts["answered bad_message"] > 0
