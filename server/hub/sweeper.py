"""Multi-process upkeep: fire the deadlines of tables nobody runs (by taking them over)
and notice missed pub/sub messages (at-most-once) by comparing versions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from tablehub.server.hub.directory import Directory
from tablehub.server.hub.mirror import Mirror
from tablehub.server.hub.ownership import Ownership
from tablehub.server.ops.cancelling import stopping
from tablehub.server.ops.faults import store_unreachable
from tablehub.server.store.bus import Bus
from tablehub.server.tables.journal import StoreUnavailable

log = logging.getLogger("tablehub.hub")

SWEEP_S = 0.25
VERSION_CHECK_EVERY = 4
"""Sweeps between two comparisons of the watched tables' versions with the store's."""


@dataclass(eq=False)
class Sweeper:
    bus: Bus
    directory: Directory
    ownership: Ownership
    mirror: Mirror
    clock_ms: Callable[[], int]

    async def run(self) -> None:
        ticks = 0
        while not stopping():
            await asyncio.sleep(SWEEP_S)
            ticks += 1
            try:
                await self.sweep(check_versions=ticks % VERSION_CHECK_EVERY == 0)
            except StoreUnavailable as err:
                store_unreachable("the deadline sweep", err)
            except Exception:
                log.exception("sweep failed")

    async def sweep(self, check_versions: bool) -> None:
        for table_id in await self.bus.due_deadlines(self.clock_ms()):
            live = await self.directory.table(table_id)
            if live.actor is None:
                await self.ownership.try_own(live)
        if check_versions:
            live_tables = self.directory.live
            watched = [t for t, live in live_tables.items() if live.actor is None]
            latest = await self.bus.latest_versions(watched)
            for table_id, version in latest.items():
                if version > live_tables[table_id].version:
                    await self.mirror.reload(table_id)
