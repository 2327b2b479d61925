"""Other processes' news about the tables served here: their commits (applied to the
feed, or a reload after a gap) and their presence (merged into the feed's)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tablehub.server.hub.live import LiveTable
from tablehub.server.store.base import Store
from tablehub.server.store.bus import Bus, RemoteCommit
from tablehub.server.tables.feed import TableFeed


@dataclass(eq=False)
class Mirror:
    store: Store
    bus: Bus
    lookup: Callable[[str], LiveTable | None]
    spawn: Callable[[Callable[[], Awaitable[Any]]], None]
    lobby_changed: Callable[[], None]

    async def watch(self, table_id: str) -> None:
        """Hear the other processes' commits and presence for a table."""
        await self.bus.watch(table_id, lambda commit: self.on_remote_commit(table_id, commit))
        await self.bus.listen_presence(table_id, lambda: self.on_remote_presence(table_id))

    def on_remote_commit(self, table_id: str, commit: RemoteCommit) -> None:
        live = self.lookup(table_id)
        if live is not None and not live.remote_commit(commit, self.bus.lease_ms):
            self.spawn(lambda: self.reload(table_id))

    async def reload(self, table_id: str) -> None:
        """Catch a table nobody runs here up with the store (after a missed commit)."""
        record = await self.store.load(table_id)
        live = self.lookup(table_id)
        if live is not None and record is not None:
            live.reload(record)

    def on_local_presence(self, feed: TableFeed) -> None:
        """Sockets here came or went: tell the lobby, and the other processes."""
        self.lobby_changed()
        if self.bus.multi_process:
            presence = {**feed.local_presence(), "process": self.bus.process_id}
            self.spawn(lambda: self.bus.set_presence(feed.table, presence))

    def on_remote_presence(self, table_id: str) -> None:
        live = self.lookup(table_id)
        if live is not None:
            self.spawn(lambda: self._merge_presence(live))

    async def _merge_presence(self, live: LiveTable) -> None:
        everyone = await self.bus.presence(live.feed.table)
        me = self.bus.process_id
        live.feed.set_remote_presence([p for p in everyone if p.get("process") != me])
