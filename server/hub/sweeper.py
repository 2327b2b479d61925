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
            await self.check_versions()

    async def check_versions(self) -> None:
        """Compare every served table's version with the store's: a table nobody runs
        here that is behind (a commit message missed) is reloaded; an idle actor whose
        version is not the store's is stale -- the table moved on without it, or the
        store lost versions it made in a failover -- and is dropped, so the table is
        reloaded and run from what the store holds.  (An actor with commands queued or
        being stored is left alone: its own commit may be under way.)"""
        live_tables = self.directory.live
        latest = await self.bus.latest_versions(list(live_tables))
        for table_id, version in latest.items():
            live = live_tables.get(table_id)
            if live is None:
                continue
            actor = live.actor
            if actor is None:
                if version > live.version:
                    await self.mirror.reload(table_id)
                continue
            if actor.idle and version != actor.record.version:
                log.warning(
                    "table %s: the store holds version %d and our actor %d: dropping it",
                    table_id,
                    version,
                    actor.record.version,
                )
                live.lose()
                await self.mirror.reload(table_id)
