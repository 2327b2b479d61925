"""Driving a sans-I/O session with plain calls: a link that records what the session
asks of its connection, and the frames its outbox holds."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack

from tablehub.server.sessions.session import Session


class PlainLink:
    """The connection side of a session, without a socket."""

    def __init__(self) -> None:
        self.closed: tuple[int, str] | None = None
        self.wakes = 0
        self.tasks: list[asyncio.Task[None]] = []

    def wake(self) -> None:
        self.wakes += 1

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def run(self, work: Callable[[], Awaitable[None]]) -> None:
        async def run() -> None:
            await work()

        self.tasks.append(asyncio.get_running_loop().create_task(run()))

    async def settle(self) -> None:
        """Let the requests that wait for I/O finish."""
        while self.tasks:
            await self.tasks.pop(0)


def taken(session: Session) -> list[dict[str, Any]]:
    """Every message the session's outbox holds now, decoded, in the order written."""
    out: list[dict[str, Any]] = []
    while session.out.pending:
        frame = session.out.take(session.fresh_snapshot)
        if frame is None:
            continue
        out.append(msgpack.unpackb(frame) if isinstance(frame, bytes) else json.loads(frame))
    return out


async def until(session: Session, link: PlainLink, count: int) -> list[dict[str, Any]]:
    """The next ``count`` messages, letting the loop run (table drains, loads) until
    they are queued; fails after 1,000 loop turns without them."""
    got: list[dict[str, Any]] = []
    for _ in range(1000):
        await link.settle()
        got += taken(session)
        if len(got) >= count:
            return got
        await asyncio.sleep(0)  # one loop turn: the table's drain callback runs
    raise AssertionError(f"only {len(got)} of {count} messages came: {got}")
