"""The hub: tables by id, their actors and feeds, and the lobby.

The hub knows no rule: it reaches games through the registry only.  It owns every
table task (one ``asyncio.TaskGroup``), so shutting the hub down cancels and awaits
them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from protocol import Frames
from server.games import all_games, get_game
from server.games.base import BadOptions, Event
from server.store.base import Store
from server.tables.actor import Command, TableActor
from server.tables.errors import TableError
from server.tables.feed import TableFeed
from server.tables.record import LogEntry, Seat, TableRecord, TableStatus

log = logging.getLogger("tablehub.hub")

HUB_OPTIONS = ("turn_seconds", "seed")
LOBBY_LIMIT = 200


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


class LobbySubscriber(Protocol):
    id: int

    def deliver_lobby(self, frames: Frames) -> None: ...


@dataclass
class LiveTable:
    actor: TableActor
    feed: TableFeed
    task: asyncio.Task[None]


class Hub:
    def __init__(self, store: Store, clock_ms: Callable[[], int] = wall_clock_ms) -> None:
        self.store = store
        self.clock_ms = clock_ms
        self.live: dict[str, LiveTable] = {}
        self._loading: dict[str, asyncio.Future[LiveTable]] = {}
        self._lobby: dict[int, LobbySubscriber] = {}
        self._lobby_dirty = False
        self._group: asyncio.TaskGroup | None = None
        self._group_cm: contextlib.AbstractAsyncContextManager[asyncio.TaskGroup] | None = None

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        await self.store.start()
        self._group_cm = asyncio.TaskGroup()
        self._group = await self._group_cm.__aenter__()

    async def stop(self) -> None:
        for table in self.live.values():
            table.task.cancel()
        if self._group_cm is not None:
            await self._group_cm.__aexit__(None, None, None)
            self._group_cm = self._group = None
        self.live.clear()
        await self.store.close()

    # -- games and tables ---------------------------------------------------------------

    @staticmethod
    def games() -> list[dict[str, Any]]:
        return [game.describe() for game in all_games()]

    async def create_table(
        self, game_id: str, seats: int, options: dict[str, Any] | None, name: str = ""
    ) -> str:
        game = get_game(game_id)
        if game is None:
            raise TableError("unknown_game", f"no game {game_id!r}")
        game_options = dict(options or {})
        hub_options = {key: game_options.pop(key) for key in HUB_OPTIONS if key in game_options}
        try:
            resolved = game.resolve_options(game_options)
        except BadOptions as err:
            raise TableError("bad_options", err.message) from None
        limit = game.seat_limit(resolved)
        if not game.min_players <= seats <= limit:
            raise TableError(
                "bad_options", f"{game.name} takes {game.min_players}–{limit} seats, not {seats}"
            )
        turn_ms = _turn_ms(hub_options.get("turn_seconds"))
        seed = hub_options.get("seed")
        if seed is None:
            seed = secrets.randbits(62)
        elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**62:
            raise TableError("bad_options", "option seed must be an integer in [0, 2**62)")
        try:
            state = game.setup(resolved, seats, seed)
        except BadOptions as err:
            raise TableError("bad_options", err.message) from None
        now = self.clock_ms()
        record = TableRecord(
            table=secrets.token_hex(5),
            game=game_id,
            options=resolved,
            turn_ms=turn_ms,
            seed=seed,
            seats=[Seat() for _ in range(seats)],
            state=state,
            name=name,
            created_ms=now,
            updated_ms=now,
        )
        await self.store.create(record)
        self._lobby_changed()
        return record.table

    async def table(self, table_id: str) -> LiveTable:
        """The live table (loading its actor from the store on first use)."""
        live = self.live.get(table_id)
        if live is not None:
            return live
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveTable] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = future
        try:
            record = await self.store.load(table_id)
            if record is None:
                raise TableError("unknown_table", f"no table {table_id!r}")
            live = self._start_table(record)
            future.set_result(live)
            return live
        except BaseException as err:
            future.set_exception(err)
            future.exception()  # retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._loading[table_id]

    def _start_table(self, record: TableRecord) -> LiveTable:
        assert self._group is not None, "hub not started"
        feed = TableFeed(record)

        def on_commit(rec: TableRecord, entry: LogEntry, events: list[Event]) -> None:
            feed.on_commit(rec, entry, events)
            if entry.get("k") == "seat" or rec.status is not TableStatus.PLAYING:
                self._lobby_changed()

        actor = TableActor(record, self.store, on_commit, self.clock_ms)
        task = self._group.create_task(actor.run(), name=f"table-{record.table}")
        live = LiveTable(actor, feed, task)
        self.live[record.table] = live
        return live

    async def submit(self, table_id: str, command: Command) -> Any:
        live = await self.table(table_id)
        return await live.actor.submit(command)

    async def tables(self, game_id: str | None = None) -> list[dict[str, Any]]:
        records = await self.store.tables()
        records.sort(key=lambda r: r.updated_ms, reverse=True)
        out = []
        for record in records:
            if game_id is not None and record.game != game_id:
                continue
            live = self.live.get(record.table)
            summary = (live.actor.record if live else record).summary()
            if live is not None:
                presence = live.feed.presence()
                summary["seats"] = presence["seats"]
                summary["spectators"] = presence["spectators"]
            else:
                summary["spectators"] = 0
                for seat in summary["seats"]:
                    seat["connected"] = seat["bot"]
            out.append(summary)
            if len(out) >= LOBBY_LIMIT:
                break
        return out

    # -- lobby --------------------------------------------------------------------------

    def subscribe_lobby(self, sub: LobbySubscriber) -> None:
        self._lobby[sub.id] = sub

    def unsubscribe_lobby(self, sub: LobbySubscriber) -> None:
        self._lobby.pop(sub.id, None)

    def presence_changed(self) -> None:
        self._lobby_changed()

    def _lobby_changed(self) -> None:
        """Coalesce changes of one loop iteration into one ``tables`` push."""
        if not self._lobby or self._lobby_dirty:
            return
        self._lobby_dirty = True
        if self._group is not None:
            self._group.create_task(self._push_lobby())

    async def _push_lobby(self) -> None:
        self._lobby_dirty = False
        if not self._lobby:
            return
        frames = Frames({"t": "tables", "tables": await self.tables()})
        for sub in list(self._lobby.values()):
            sub.deliver_lobby(frames)


def _turn_ms(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TableError("bad_options", "option turn_seconds must be a number of seconds")
    if not 0.05 <= value <= 86400:
        raise TableError("bad_options", "option turn_seconds must be between 0.05 and 86400")
    return int(value * 1000)
