"""Idle tables: closing the abandoned, unloading the unwatched, forgetting the unused
(and, in memory, the long finished), so one long-running process stays bounded."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from tablehub.protocol import Frames
from tablehub.protocol.codec import index
from tablehub.server.hub.directory import Directory
from tablehub.server.hub.lobby import Lobby
from tablehub.server.ops.cancelling import stopping
from tablehub.server.ops.faults import store_unreachable
from tablehub.server.store.base import Store
from tablehub.server.store.bus import Bus
from tablehub.server.tables.journal import StoreUnavailable
from tablehub.server.tables.record import TableStatus

log = logging.getLogger("tablehub.hub")

JANITOR_S = 30.0
UNLOAD_IDLE_MS = 10 * 60 * 1000
"""A table nobody watches is unloaded from this process after this long without a commit
(at once when finished); it stays in the store and loads again on the next request."""
FORGET_UNUSED_MS = index()["limits"]["unused_table_forget_seconds"] * 1000
"""A table nobody ever sat at is deleted after this long (protocol/README.md "Limits"):
tables created and left empty must not pile up (a create_table flood)."""
MAX_UNUSED_TABLES: int = index()["limits"]["max_unused_tables_per_process"]
"""Tables created by this process that nobody has sat at yet, at most (~15 KB each):
beyond, create_table is refused with ``overloaded`` until some are used or forgotten."""
UNUSED_RETRY_MS = 30_000
"""``retry_ms`` of that refusal: the janitor forgets old unused tables every 30 s."""
CLOSE_IDLE_MS = 60 * 60 * 1000
"""An unfinished table is closed (``table_closed`` to its watchers and the lobby, then
deleted from the store) after this long without a commit while no human player is
connected to it: an abandoned table must not sit in the lobby as "playing" forever."""
CLOSE_REASON = "nobody played for an hour and no player was at the table"
FORGET_FINISHED_MS = 60 * 60 * 1000
"""The memory store forgets finished tables after this idle time, so one long-running
process does not grow without bound (Redis keeps them)."""


@dataclass(eq=False)
class Janitor:
    store: Store
    bus: Bus
    directory: Directory
    lobby: Lobby
    clock_ms: Callable[[], int]
    _unused: set[str] = field(default_factory=set, init=False)
    """Tables created here that nobody had sat at when last checked (see MAX_UNUSED_TABLES)."""

    async def run(self) -> None:
        while not stopping():
            await asyncio.sleep(JANITOR_S)
            try:
                await self.tidy(self.clock_ms())
                await self.forget_unused(self.clock_ms())
            except StoreUnavailable as err:
                store_unreachable("the janitor", err)
            except Exception:
                log.exception("janitor failed")

    # -- tables nobody has sat at ---------------------------------------------------------

    def created(self, table_id: str) -> None:
        self._unused.add(table_id)

    async def too_many_unused(self) -> bool:
        """Whether this process already holds MAX_UNUSED_TABLES nobody has sat at."""
        if len(self._unused) >= MAX_UNUSED_TABLES:
            empty = {
                r.table for r in await self.store.tables() if not any(s.taken for s in r.seats)
            }
            self._unused &= empty
        return len(self._unused) >= MAX_UNUSED_TABLES

    async def forget_unused(self, now_ms: int) -> list[str]:
        """Delete tables nobody has sat at for ``FORGET_UNUSED_MS``, unless someone
        watches them; the ids deleted."""
        forgotten = []
        for record in await self.store.tables():
            if any(seat.taken for seat in record.seats):
                continue
            if now_ms - record.updated_ms < FORGET_UNUSED_MS:
                continue
            live = self.directory.get(record.table)
            if live is not None:
                if live.feed.subscriber_count or any(s.taken for s in live.record.seats):
                    continue
                await self.directory.unload(record.table, live)
            await self.store.delete(record.table)
            forgotten.append(record.table)
        self._unused.difference_update(forgotten)
        if forgotten:
            self.lobby.changed()
        return forgotten

    # -- idle tables ----------------------------------------------------------------------

    async def tidy(self, now_ms: int) -> list[str]:
        """Close abandoned tables, unload tables nobody watches (and, in memory, forget
        old finished ones); the ids unloaded (closed ones included)."""
        unloaded = await self._close_abandoned(now_ms)
        for table_id, live in list(self.directory.live.items()):
            record = live.record
            idle = now_ms - record.updated_ms
            if live.feed.subscriber_count or live.has_work or record.deadline is not None:
                continue
            if record.status is TableStatus.FINISHED or idle >= UNLOAD_IDLE_MS:
                await self.directory.unload(table_id, live)
                unloaded.append(table_id)
        if not self.bus.multi_process:
            here = self.directory.live
            for record in await self.store.tables():
                idle = now_ms - record.updated_ms
                finished = record.status is TableStatus.FINISHED
                if record.table not in here and finished and idle >= FORGET_FINISHED_MS:
                    await self.store.delete(record.table)
        if unloaded:
            self.lobby.changed()
        return unloaded

    async def _close_abandoned(self, now_ms: int) -> list[str]:
        """Close unfinished tables idle for ``CLOSE_IDLE_MS`` with no human player
        connected; in the Redis topology also the tables served here that another
        process closed (deleted from the store).  The ids closed here."""
        doomed = []
        for stored_record in await self.store.tables():
            live = self.directory.get(stored_record.table)
            record = live.record if live is not None else stored_record
            if record.status is TableStatus.FINISHED or now_ms - record.updated_ms < CLOSE_IDLE_MS:
                continue
            if live is not None and any(
                s["connected"] and not s["bot"] for s in live.feed.presence()["seats"]
            ):
                continue
            if self.bus.multi_process and any(
                p.get("seats") for p in await self.bus.presence(record.table)
            ):
                continue
            await self.store.delete(record.table)
            doomed.append(record.table)
        if self.bus.multi_process:
            here = [t for t in self.directory.live if t not in doomed]
            versions = await self.bus.latest_versions(here)  # a deleted table has none
            doomed += [t for t in here if t not in versions and t in self.directory.live]
        for table_id in doomed:
            frames = Frames({"t": "table_closed", "table": table_id, "reason": CLOSE_REASON})
            self.lobby.closed(table_id, frames)
            live = self.directory.get(table_id)
            if live is not None:
                live.feed.close(frames)
                await self.directory.unload(table_id, live)
            log.info("table %s closed: %s", table_id, CLOSE_REASON)
        if doomed:
            self.lobby.changed()
        return doomed
