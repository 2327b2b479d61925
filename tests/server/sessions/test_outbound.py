"""A session's outbound path: frames queued in one loop turn are written by one
callback straight to the transport; when the transport refuses (a paused, full
buffer) the writer task takes over, and the order of frames never changes."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from tablehub.protocol import SUBPROTOCOLS
from tablehub.server.config import Limits
from tablehub.server.sessions.hub_api import HubApi
from tablehub.server.sessions.session import Session


class Transport:
    """Stands in for the connection: takes frames at once while ``open``."""

    def __init__(self) -> None:
        self.open = True
        self.written: list[tuple[str, int]] = []  # (path, reply id)

    def write_now(self, frame: bytes | str) -> bool:
        if not self.open:
            return False
        self.written.append(("now", json.loads(frame)["id"]))
        return True

    async def send(self, frame: bytes | str) -> None:
        self.written.append(("writer", json.loads(frame)["id"]))

    async def close(self, code: int, reason: str) -> None:
        pass


async def settle(session: Session) -> None:
    """Let the callbacks and the writer task run until the writer waits for work."""
    for _ in range(100):
        await asyncio.sleep(0)
        if session._writer_idle and not session._write_due and not session._wake.is_set():
            return
    raise AssertionError("the writer never went idle")


async def test_frames_go_out_at_once_and_in_order_when_the_transport_pauses() -> None:
    transport = Transport()
    codec = SUBPROTOCOLS["tablehub.v1.json"]
    hub = cast(HubApi, object())  # replies need no hub
    session = Session(
        hub, codec, transport.send, transport.close, Limits(), write_now=transport.write_now
    )
    writer = asyncio.create_task(session.writer())
    await settle(session)

    session.reply(1)
    await settle(session)
    assert transport.written == [("now", 1)]

    transport.open = False  # the buffer is full: the writer task must take over
    session.reply(2)
    session.reply(3)
    await settle(session)
    transport.open = True
    session.reply(4)
    await settle(session)
    writer.cancel()

    assert transport.written == [("now", 1), ("writer", 2), ("writer", 3), ("now", 4)]


async def test_one_turn_of_replies_is_one_batch_frame() -> None:
    frames: list[Any] = []

    def write_now(frame: bytes | str) -> bool:
        frames.append(json.loads(frame))
        return True

    async def send(frame: bytes | str) -> None:
        raise AssertionError("the writer task should not be needed")

    async def close(code: int, reason: str) -> None:
        pass

    session = Session(
        cast(HubApi, object()),
        SUBPROTOCOLS["tablehub.v1.json"],
        send,
        close,
        Limits(),
        write_now=write_now,
    )
    session._batching = True
    writer = asyncio.create_task(session.writer())
    await settle(session)
    for request_id in range(3):
        session.reply(request_id)
    await settle(session)
    writer.cancel()
    assert frames == [{"t": "batch", "m": [{"t": "ok", "id": i} for i in range(3)]}]
