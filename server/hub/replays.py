"""Replays and game records for the wire (the ``record`` and ``replay`` requests).

Built from the table's stored log with the pure ``tables/gamerecord.py``; nothing here
runs a rule of its own.  What a viewer may see is decided here and nowhere else:

* a finished table: its record (with the seed), and a replay as any seat, as the
  spectators, or all-seeing (the game's whole state at every version: every hand,
  every face-down piece -- ``Game.all_seeing``), every version;
* a table still being played: no record (its seed tells every hidden card), a replay
  as your own seat (the seat this connection holds) up to now, or as the spectators
  up to now -- unless the table delays its spectators (``spectator_delay``), which
  keeps its replay closed until the game is over.

A replay as a seat or the spectators never shows more than the live table showed that
audience: the views are the audience's own views, version by version, as the feed
computed them.  The all-seeing replay shows what nobody saw while the game was on, so
it opens only when the game is over.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

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
BUILDING = 2
"""Records and replay pages built at once, each in a thread off the event loop: pure
Python, so more at once would only share the same cores and the loop's time."""
WAITING = 16
"""Asks waiting for a build at most; past that an ask is refused ``overloaded`` (a
client sends it again after ``retry_ms``), so a flood of asks holds neither memory
(no log is read before its build starts) nor the tables' time."""
BUSY_RETRY_MS = 1000


T = TypeVar("T")


class Builds:
    """Builds of records and replay pages, BUILDING at once and WAITING more at most.

    A build runs to its end even when its asker stops waiting (a closed connection):
    its thread cannot be stopped, so its place is held until it ends."""

    def __init__(self) -> None:
        self._slots = asyncio.Semaphore(BUILDING)
        self.asked = 0
        """Builds running or waiting."""

    def start(self, work: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        """``work`` under way, or ``overloaded`` when too many are already."""
        if self.asked >= BUILDING + WAITING:
            raise TableError(
                "overloaded",
                "the server is preparing many replays right now; try again in a moment",
                BUSY_RETRY_MS,
            )
        self.asked += 1
        job = asyncio.ensure_future(self._run(work))
        job.add_done_callback(_retrieved)
        return job

    async def _run(self, work: Callable[[], Awaitable[T]]) -> T:
        try:
            async with self._slots:
                return await work()
        finally:
            self.asked -= 1


def _retrieved(job: asyncio.Future[Any]) -> None:
    """A build nobody waits for any more ends quietly (its asker had its answer)."""
    if not job.cancelled():
        job.exception()


class Replays:
    def __init__(self, store: Store, lookup: Callable[[str], LiveTable | None]) -> None:
        self.store = store
        self.lookup = lookup
        self.builds = Builds()
        self._records: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._recording: dict[str, asyncio.Future[dict[str, Any]]] = {}
        """Records being built, by table: every ask for one waits for the same build."""

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
        if cached is not None:
            self._records.move_to_end(table_id)
            return cached
        job = self._recording.get(table_id)
        if job is None:
            job = self.builds.start(lambda: self._build(current))
            self._recording[table_id] = job
            job.add_done_callback(lambda _: self._recording.pop(table_id, None))
        return await asyncio.shield(job)

    async def _build(self, current: TableRecord) -> dict[str, Any]:
        # pure and CPU-bound (a long 4-seat termite game: ~1 s): off the event loop
        built = await asyncio.to_thread(build, current, await self._log(current))
        self._records[current.table] = built
        while len(self._records) > CACHED_RECORDS:
            self._records.popitem(last=False)
        return built

    async def replay(
        self,
        table_id: str,
        seat: int | None,
        first: int,
        held: int | None,
        all_seeing: bool = False,
    ) -> dict[str, Any]:
        """The views of ``seat`` (None: the spectators; ``all_seeing``: the whole game,
        finished tables only) from version ``first`` on, as a view at ``first`` and one
        patch per version after it, with each version's events and who made it (at
        most REPLAY_PAGE versions); ``held``: the seat this connection holds at the
        table, if any."""
        current = await self._table(table_id)
        finished = current.status is TableStatus.FINISHED
        if seat is not None and not 0 <= seat < len(current.seats):
            raise TableError("bad_message", f"this table has no seat {seat + 1}")
        if all_seeing:
            _check_all_seeing(current, seat)
        elif not finished:
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

        async def page() -> dict[str, Any]:
            log = await self._log(current)
            return await asyncio.to_thread(replay_page, current, log, seat, first, all_seeing)

        found = await asyncio.shield(self.builds.start(page))
        return {
            "table": current.table,
            "game": current.game,
            "seat": seat,
            "all_seeing": all_seeing,
            "status": str(current.status),
            "newest": current.version,
            "round_name": "round" if _counts_rounds(current.game) else "turn",
            **found,
        }


def _check_all_seeing(current: TableRecord, seat: int | None) -> None:
    """Refuse an all-seeing replay of a game not over, or of a game with no such view."""
    if seat is not None:
        raise TableError(
            "bad_message", "ask for one seat's view or for the all-seeing view, not both"
        )
    if current.status is not TableStatus.FINISHED:
        raise TableError(
            "unauthorized",
            "the all-seeing view shows every hidden card, so it opens only when the game is over",
        )
    game = get_game(current.game)
    assert game is not None
    if not game.has_all_seeing:
        raise TableError("bad_message", f"{game.name} has no all-seeing view")


def replay_page(
    current: TableRecord,
    log: list[LogEntry],
    seat: int | None,
    first: int,
    all_seeing: bool = False,
) -> dict[str, Any]:
    """``seat``'s view (``all_seeing``: the whole game's) at ``first`` and the moves
    after it (REPLAY_PAGE at most)."""
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
        if all_seeing:
            view["board"] = game.all_seeing(step.record.state)
        if step.version == first:
            start = {
                "version": first,
                "view": view,
                "hash": view_hash(view),
                "round": round_at(current.game, view),
            }
        else:
            assert step.entry is not None
            move = {
                "version": step.version,
                "ops": diff(previous, view),
                "hash": view_hash(view),
                "round": round_at(current.game, view),
                "events": step.events,
                "kind": step.entry["k"],
                "seat": step.entry["seat"],
            }
            if step.entry["k"] == "act":
                move["by"] = step.entry.get("by", "player")
            moves.append(move)
        previous = view
    return {"start": start, "moves": moves}


def _counts_rounds(game_id: str) -> bool:
    game = get_game(game_id)
    return game is not None and game.counts_rounds


def round_at(game: str, view: dict[str, Any]) -> int | None:
    """The round (or turn) a table view shows, counted from 1, as the replay's jumps
    count them: the board's ``round`` for a game that counts rounds
    (``Game.counts_rounds``), else the table's ``turn`` (which moves on whenever a new
    deadline starts: a number-row turn, a wall-duel move); None before play begins
    (seats still free)."""
    if view["status"] == "waiting":
        return None
    if _counts_rounds(game):
        return int(view["board"]["round"])
    return int(view["turn"]) + 1
