"""The tables this process serves, by id: loaded from the store on first use (once,
however many ask at the same time) and unloaded when the janitor says so."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from tablehub.server.hub.live import LiveTable
from tablehub.server.store.base import Store
from tablehub.server.store.bus import Bus
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.feed import TableFeed
from tablehub.server.tables.record import TableRecord


class Directory:
    def __init__(
        self,
        store: Store,
        bus: Bus,
        watch: Callable[[str], Awaitable[None]],
        on_presence: Callable[[TableFeed], None],
        on_loaded: Callable[[LiveTable, TableRecord], None],
    ) -> None:
        """``watch(table)`` subscribes to the other processes' commits and presence
        before a multi-process load; ``on_presence`` is each feed's presence hook;
        ``on_loaded`` runs a table loaded by a single process (it owns them all)."""
        self.store = store
        self.bus = bus
        self._watch = watch
        self._on_presence = on_presence
        self._on_loaded = on_loaded
        self.live: dict[str, LiveTable] = {}
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
            await self._watch(table_id)  # before loading, so no commit falls between
        record = await self.store.load(table_id)
        if record is None:
            if multi:
                await self.bus.unwatch(table_id)
            raise TableError("unknown_table", f"no table {table_id!r}")
        live = LiveTable(TableFeed(record, on_presence=self._on_presence))
        self.live[table_id] = live
        if not multi:
            self._on_loaded(live, record)
        return live

    async def unload(self, table_id: str, live: LiveTable) -> None:
        """Stop serving the table here (it stays in the store)."""
        del self.live[table_id]
        actor = live.actor
        if actor is not None:
            actor.stop()
        if self.bus.multi_process:
            if actor is not None:
                await self.bus.release(table_id, actor.epoch)
            await self.bus.unwatch(table_id)

    def cancel_actors(self) -> None:
        """Cancel every table's actor (the hub is stopping)."""
        for live in list(self.live.values()):
            if live.actor is not None:
                live.actor.stop()
