"""Replays and game records for the wire (the ``record`` and ``replay`` requests).

Built from the table's stored log with the pure ``tables/gamerecord.py``; nothing here
runs a rule of its own.  What a viewer may see is decided here and nowhere else:

* a finished table: its record (with the seed), and a replay as any seat or as the
  spectators, every version;
* a table still being played: no record (its seed tells every hidden card), a replay
  as your own seat (the seat this connection holds) up to now, or as the spectators
  up to now -- unless the table delays its spectators (``spectator_delay``), which
  keeps its replay closed until the game is over.

A replay never shows more than the live table showed that audience: the views are
the audience's own views, version by version, as the feed computed them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tablehub.protocol.viewhash import view_hash
from tablehub.server.games import get_game
from tablehub.server.hub.live import LiveTable
from tablehub.server.store.base import Store
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.gamerecord import build, steps
from tablehub.server.tables.record import LogEntry, TableRecord, TableStatus, as_created
from tablehub.server.tables.viewdiff import diff

REPLAY_PAGE = 100
"""Versions one ``replay`` reply carries at most; a client asks again from where it ends."""
CACHED_RECORDS = 16
"""Records of finished games kept built (a finished game never changes)."""


class Replays:
    def __init__(self, store: Store, lookup: Callable[[str], LiveTable | None]) -> None:
        self.store = store
        self.lookup = lookup
        self._records: OrderedDict[str, dict[str, Any]] = OrderedDict()

    async def _table(self, table_id: str) -> TableRecord:
        live = self.lookup(table_id)
        record = live.record if live is not None else await self.store.load(table_id)
        if record is None:
            raise TableError("unknown_table", f"there is no table {table_id} (or no longer)")
        return record

    async def _log(self, record: TableRecord) -> list[LogEntry]:
        log = (await self.store.log(record.table))[: record.version]
        if [entry.get("v") for entry in log] != list(range(1, record.version + 1)):
            raise TableError(
                "unknown_table", f"the moves of table {record.table} are no longer kept"
            )
        return log

    async def record(self, table_id: str) -> dict[str, Any]:
        """The game record of a finished table (protocol/v1/games/game_record.json)."""
        current = await self._table(table_id)
        if current.status is not TableStatus.FINISHED:
            raise TableError(
                "unauthorized",
                "this game is not over yet: its record, which tells every hidden card, "
                "is given once it is",
            )
        cached = self._records.get(table_id)
        if cached is None:
            # pure and CPU-bound (a long 4-seat termite game: ~1 s): off the event loop
            cached = await asyncio.to_thread(build, current, await self._log(current))
            self._records[table_id] = cached
            while len(self._records) > CACHED_RECORDS:
                self._records.popitem(last=False)
        self._records.move_to_end(table_id)
        return cached

    async def replay(
        self, table_id: str, seat: int | None, first: int, held: int | None
    ) -> dict[str, Any]:
        """The views of ``seat`` (None: the spectators) from version ``first`` on, as a
        view at ``first`` and one patch per version after it, with each version's events
        and who made it (at most REPLAY_PAGE versions); ``held``: the seat this
        connection holds at the table, if any."""
        current = await self._table(table_id)
        finished = current.status is TableStatus.FINISHED
        if seat is not None and not 0 <= seat < len(current.seats):
            raise TableError("bad_message", f"this table has no seat {seat + 1}")
        if not finished:
            if seat is not None and seat != held:
                raise TableError(
                    "unauthorized",
                    "while the game is on you may replay only your own seat's view, or the "
                    "spectators'",
                )
            if seat is None and current.spectator_delay_ms:
                raise TableError(
                    "unauthorized",
                    "this table shows its spectators the game late: its replay opens when "
                    "the game is over",
                )
        log = await self._log(current)
        found = await asyncio.to_thread(replay_page, current, log, seat, first)
        return {
            "table": current.table,
            "game": current.game,
            "seat": seat,
            "status": str(current.status),
            "newest": current.version,
            **found,
        }


def replay_page(
    current: TableRecord, log: list[LogEntry], seat: int | None, first: int
) -> dict[str, Any]:
    """``seat``'s view at ``first`` and the moves after it (REPLAY_PAGE at most)."""
    newest = current.version
    first = max(0, min(first, newest))
    last = min(newest, first + REPLAY_PAGE)
    game = get_game(current.game)
    assert game is not None
    start: dict[str, Any] = {}
    moves: list[dict[str, Any]] = []
    previous: dict[str, Any] = {}
    for step in steps(as_created(current), log[:last]):
        if step.version < first:
            continue
        view = table_view(game, step.record, seat, step.status)
        if step.version == first:
            start = {"version": first, "view": view, "hash": view_hash(view)}
        else:
            assert step.entry is not None
            move = {
                "version": step.version,
                "ops": diff(previous, view),
                "hash": view_hash(view),
                "events": step.events,
                "kind": step.entry["k"],
                "seat": step.entry["seat"],
            }
            if step.entry["k"] == "act":
                move["by"] = step.entry.get("by", "player")
            moves.append(move)
        previous = view
    return {"start": start, "moves": moves}
