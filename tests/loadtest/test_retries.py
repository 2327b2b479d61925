"""The load generator's client sends again, with the same key, what the hub asks to
retry (``retry_ms``), counts those retries apart from the answers, and takes batch
frames apart -- against the scripted peer of tests/clients/cli/test_retries.py."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from websockets.asyncio.server import serve
from websockets.typing import Subprotocol

from tablehub.loadtest.client import SimClient
from tablehub.loadtest.context import Pacer, WorkerContext
from tablehub.loadtest.mirror import Verifier
from tablehub.loadtest.stats import RunStats
from tablehub.protocol import SUBPROTOCOLS
from tests.clients.cli.test_retries import ScriptedHub, busy_then_ok

BUSY_ACTS = 2
BUSY_LEGAL = 1


def answer(msg: dict[str, Any], earlier: int) -> list[dict[str, Any]]:
    if msg["t"] == "act" and earlier >= BUSY_ACTS:
        return [{"t": "ok", "id": msg["id"], "version": 2}]
    if msg["t"] == "legal" and earlier >= BUSY_LEGAL:  # a hub past its limit refuses legal
        return [{"t": "ok", "id": msg["id"], "actions": [], "version": 1}]
    return busy_then_ok(msg, earlier)


async def test_retried_requests_keep_their_key_and_count_once() -> None:
    hub = ScriptedHub(answer)
    subprotocol = Subprotocol("tablehub.v1.json")
    async with serve(hub.handle, "127.0.0.1", 0, subprotocols=[subprotocol]) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        now = time.perf_counter()
        ctx = WorkerContext(
            f"ws://127.0.0.1:{port}/ws",
            SUBPROTOCOLS[subprotocol],
            RunStats(now, now, now + 60),
            Verifier(),
            Pacer(1.0, None, 1),
            random.Random(1),
        )
        client = SimClient(ctx, "sim")
        await client.connect()
        assert (await client.call("create_table", game="nmbr9", seats=2))["table"] == "t1"
        assert (await client.call("join", table="t1"))["token"] == "secret-token"
        assert (await client.call("legal", table="t1"))["actions"] == []
        replies: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        assert client.act("t1", {"type": "place"}, None, lambda r, s, t: replies.set_result(r))
        assert client.pending_acts() == 1
        assert (await replies)["version"] == 2
        assert client.pending_acts() == 0
        await client.close()
    counts, errors = ctx.stats.counts, ctx.stats.errors
    assert (counts["acts_sent"], counts["acts_ok"], counts["acts_error"]) == (1, 1, 0)
    assert counts["retries"] == 2 + 1 + BUSY_LEGAL + BUSY_ACTS
    overloaded = 2 + BUSY_LEGAL + BUSY_ACTS
    assert (counts["retries.overloaded"], counts["retries.unavailable"]) == (overloaded, 1)
    assert counts["batches_in"] == 1 and not errors, "retried refusals are not errors"
    assert hub.requests[0]["caps"] == ["batch"]
    for kind in ("create_table", "join", "act"):
        tries = [r for r in hub.requests if r["t"] == kind]
        assert len(tries) > 1 and len({r["key"] for r in tries}) == 1, kind
