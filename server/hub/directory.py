"""The tables this process serves, by id: loaded from the store on first use (once,
however many ask at the same time) and unloaded when the janitor says so."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tablehub.server.hub.live import LiveTable
from tablehub.server.hub.mirror import Mirror
from tablehub.server.hub.ownership import Ownership
from tablehub.server.store.base import Store
from tablehub.server.store.bus import Bus
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.feed import TableFeed


class Directory:
    def __init__(
        self,
        store: Store,
        bus: Bus,
        served: dict[str, LiveTable],
        mirror: Mirror,
        ownership: Ownership,
        lobby_changed: Callable[[], None],
    ) -> None:
        """``served`` is the one map of the tables served here: the directory alone adds
        and removes them (the mirror, the ownership and the lobby read it).  With Redis
        the mirror hears each table's news before it loads; in one process the ownership
        runs each table as it loads (a single process owns them all)."""
        self.store = store
        self.bus = bus
        self.live = served
        self._mirror = mirror
        self._ownership = ownership
        self._lobby_changed = lobby_changed
        self._loading: dict[str, asyncio.Future[LiveTable]] = {}

    def get(self, table_id: str) -> LiveTable | None:
        """The table if it is loaded here, without loading it."""
        return self.live.get(table_id)

    async def table(self, table_id: str) -> LiveTable:
        """The table as this process serves it (loaded on first use; unknown_table)."""
        live = self.live.get(table_id)
        if live is not None:
            return live
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveTable] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = future
        try:
            live = await self._load(table_id)
            future.set_result(live)
            return live
        except BaseException as err:
            future.set_exception(err)
            future.exception()  # retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._loading[table_id]

    async def _load(self, table_id: str) -> LiveTable:
        multi = self.bus.multi_process
        if multi:
            await self._mirror.watch(table_id)  # before loading: no commit falls between
        record = await self.store.load(table_id)
        if record is None:
            if multi:
                await self.bus.unwatch(table_id)
            raise TableError("unknown_table", f"no table {table_id!r}")
        feed = TableFeed(record, on_presence=self._mirror.on_local_presence)
        live = LiveTable(feed, self._lobby_changed)
        self.live[table_id] = live
        if not multi:
            self._ownership.run(live, record)
        return live

    async def unload(self, table_id: str, live: LiveTable) -> None:
        """Stop serving the table here (it stays in the store)."""
        del self.live[table_id]
        actor = live.stop()
        if self.bus.multi_process:
            if actor is not None:
                await self.bus.release(table_id, actor.epoch)
            await self.bus.unwatch(table_id)

    def stop_actors(self) -> None:
        """Stop every table's actor (the hub is stopping)."""
        for live in list(self.live.values()):
            live.stop()
