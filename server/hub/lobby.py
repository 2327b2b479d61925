"""The lobby: the table list (with who is connected) and its pushes to subscribers,
coalesced to one per loop iteration."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from tablehub.protocol import Frames
from tablehub.server.hub.live import LiveTable
from tablehub.server.store.base import Store
from tablehub.server.tables.record import TableStatus

LOBBY_LIMIT = 200
FINISHED_PER_GAME = 10
"""Finished games the lobby lists per game, the newest (each line carries its result;
the stores keep more for replays: store/retention.py)."""


class LobbySubscriber(Protocol):
    id: int

    def deliver_lobby(self, frames: Frames) -> None: ...

    def deliver_closed(self, table: str, frames: Frames) -> None: ...


class Lobby:
    def __init__(
        self,
        store: Store,
        lookup: Callable[[str], LiveTable | None],
        spawn: Callable[[Callable[[], Awaitable[Any]]], None],
    ) -> None:
        self.store = store
        self.lookup = lookup
        self.spawn = spawn
        self._subscribers: dict[int, LobbySubscriber] = {}
        self._dirty = False

    def subscribe(self, sub: LobbySubscriber) -> None:
        self._subscribers[sub.id] = sub

    def unsubscribe(self, sub: LobbySubscriber) -> None:
        self._subscribers.pop(sub.id, None)

    def changed(self) -> None:
        """Coalesce changes of one loop iteration into one ``tables`` push."""
        if not self._subscribers or self._dirty:
            return
        self._dirty = True
        self.spawn(self._push)

    def closed(self, table_id: str, frames: Frames) -> None:
        """Hand every subscriber a table's ``table_closed``."""
        for sub in list(self._subscribers.values()):
            sub.deliver_closed(table_id, frames)

    async def _push(self) -> None:
        self._dirty = False
        if not self._subscribers:
            return
        frames = Frames({"t": "tables", "tables": await self.tables()})
        for sub in list(self._subscribers.values()):
            sub.deliver_lobby(frames)

    async def tables(self, game_id: str | None = None) -> list[dict[str, Any]]:
        """The lobby lines, most recently updated first -- but games whose players all
        left last: stored tables, with presence from this process's feeds where the
        table is served here."""
        records = await self.store.tables()
        records.sort(key=lambda r: r.updated_ms, reverse=True)
        out = []
        finished: dict[str, int] = {}
        for record in records:
            if game_id is not None and record.game != game_id:
                continue
            if record.status is TableStatus.FINISHED:
                finished[record.game] = finished.get(record.game, 0) + 1
                if finished[record.game] > FINISHED_PER_GAME:
                    continue
            live = self.lookup(record.table)
            summary = (live.record if live else record).summary()
            if live is not None:
                presence = live.feed.presence()
                summary["seats"] = presence["seats"]
                summary["spectators"] = presence["spectators"]
            else:
                summary["spectators"] = 0
                for seat in summary["seats"]:
                    seat["connected"] = seat["bot"]
            out.append(summary)
        # A game whose people have all left (bots may play on) is not one to join or
        # watch: such tables come after every other, still listed for a way back in.
        out.sort(key=_left_by_its_players)
        return out[:LOBBY_LIMIT]


def _left_by_its_players(line: dict[str, Any]) -> bool:
    seats = line["seats"]
    people = [seat for seat in seats if seat["name"] and not seat["bot"]]
    left = bool(people) and not any(seat["connected"] for seat in people)
    return line["status"] == "playing" and left
