"""A slow reader never grows server memory without bound and never slows anyone else.

The session's send function here is a gate the test opens: the reader is "slow" until
then.  Everything else (hub, actor, feed, store, codec) is the real thing.
"""

from __future__ import annotations

import asyncio
from typing import Any

import jsonpatch
import msgpack

from tablehub.protocol import SUBPROTOCOLS
from tablehub.protocol.viewhash import view_hash
from tablehub.server.config import Limits
from tablehub.server.hub import Hub
from tablehub.server.sessions.session import Session
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.actor import Act, Join


async def test_slow_reader_gets_a_fresh_snapshot_instead_of_an_unbounded_queue() -> None:
    hub = Hub(MemoryStore())
    await hub.start()
    gate = asyncio.Event()
    received: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def slow_send(frame: bytes | str) -> None:
        await gate.wait()
        assert isinstance(frame, bytes)
        received.put_nowait(msgpack.unpackb(frame))

    async def close(code: int, reason: str) -> None:
        raise AssertionError(f"closed {code} {reason}")

    limits = Limits(outbound_queue=8)
    slow = Session(hub, SUBPROTOCOLS["tablehub.v1.msgpack"], slow_send, close, limits)
    writer = asyncio.create_task(slow.writer())
    try:
        table = await hub.create_table("nmbr9", 2, {"seed": 4})
        live = await hub.table(table)
        actor = live.actor
        assert actor is not None
        await actor.submit(Join("ann", None, None))
        slow.watching[table] = None
        live.feed.subscribe(slow, None)
        await actor.submit(Join("bo", None, None))
        for _ in range(20):
            for seat in (0, 1):
                action = actor.game.bot_action(actor.record.state, seat)
                await actor.submit(Act(seat, action))
                assert len(slow._data) <= limits.outbound_queue + 1
        final_version = actor.record.version
        assert actor.record.status == "finished"
        assert final_version > 3 * limits.outbound_queue

        gate.set()  # the reader catches up: it must end with the final view
        view: dict[str, Any] | None = None
        version = -1
        while version != final_version:
            msg = await asyncio.wait_for(received.get(), 10)
            if msg["t"] == "snapshot":
                view, version = msg["view"], msg["version"]
            elif msg["t"] == "patch":
                assert view is not None and msg["from"] == version
                view = jsonpatch.apply_patch(view, msg["ops"])
                version = msg["to"]
                assert view_hash(view) == msg["hash"]
        assert view == live.feed.snapshot(None).msg["view"]
    finally:
        writer.cancel()
        await hub.stop()


async def test_a_client_that_never_reads_its_replies_is_closed_not_buffered() -> None:
    hub = Hub(MemoryStore())
    await hub.start()
    gate = asyncio.Event()
    closed: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()

    async def blocked_send(frame: bytes | str) -> None:
        await gate.wait()

    async def close(code: int, reason: str) -> None:
        closed.set_result((code, reason))

    codec = SUBPROTOCOLS["tablehub.v1.msgpack"]
    limits = Limits(control_queue=10, messages_per_second=10_000, burst=10_000)
    session = Session(hub, codec, blocked_send, close, limits)
    writer = asyncio.create_task(session.writer())
    try:
        await session.handle_frame(msgpack.packb({"t": "hello", "id": 0, "v": 1, "name": "x"}))
        for i in range(1, 50):
            await session.handle_frame(msgpack.packb({"t": "ping", "id": i}))
        assert len(session._control) <= limits.control_queue
        gate.set()
        code, reason = await asyncio.wait_for(closed, 10)
        assert code == 4000 and "slow consumer" in reason
    finally:
        writer.cancel()
        await hub.stop()
