"""Other processes' news about the tables served here: their commits (applied to the
feed, or a reload after a gap) and their presence (merged into the feed's)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tablehub.server.hub.live import LiveTable
from tablehub.server.store.base import Store
from tablehub.server.store.bus import Bus, RemoteCommit
from tablehub.server.tables.feed import TableFeed

log = logging.getLogger("tablehub.hub")


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
        if live is None:
            return
        version = commit.entry["v"]
        if version <= live.feed.record.version:
            return  # our own commit's echo, or old news
        live.heard_from_owner(self.bus.lease_ms)
        if live.actor is not None:
            log.warning("table %s was committed by another process: dropping our actor", table_id)
            live.actor.lost = True
            live.actor.stop()
            live.actor = None
        if version == live.feed.record.version + 1:
            live.feed.apply_remote(commit.meta, commit.entry)
        else:
            self.spawn(lambda: self.reload(table_id))
        if commit.entry.get("k") == "seat" or commit.meta["status"] != "playing":
            self.lobby_changed()

    async def reload(self, table_id: str) -> None:
        """Catch a table nobody runs here up with the store (after a missed commit)."""
        live = self.lookup(table_id)
        record = await self.store.load(table_id)
        if live is not None and record is not None and live.actor is None:
            live.feed.reload(record)

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
