"""TableActor: the one writer of one table (docs/design.md "Tables, persistence and scale").

Theory of operation: every command for a table (join, add_bot, act, a bot's move, a
passed deadline) is put on the actor's bounded queue and handled by its single task,
one at a time, so game code never sees concurrency.  Handling a command means:

1. check it against the table (seats, status) and the game (``apply`` may refuse);
2. build the next :class:`TableRecord` (never mutating the current one);
3. commit it to the store with the expected version -- only then is it acknowledged;
4. hand the committed record to the :class:`TableFeed`, which fans out patches;
5. queue moves for bot seats that must act, and (re)arm the turn deadline.

A command's result is delivered through an ``asyncio.Future``: exactly one result per
command (value or :class:`TableError`), which is how every ``act`` gets exactly one
reply even when many seats act at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablehub.server.games import get_game
from tablehub.server.games.base import Action, BadOptions, Event, Game, GameError, State
from tablehub.server.store.base import Store, VersionConflict
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.idempotency import RETRYABLE, key_digest, seat_token
from tablehub.server.tables.record import LogEntry, Seat, TableRecord, TableStatus

log = logging.getLogger("tablehub.table")

QUEUE_LIMIT = 4096
YIELD_EVERY = 64
"""Queued commands handled back to back before the actor lets the loop run others."""
CID_MEMORY = 1024
RETRY_BUSY_MS = 500
"""The ``retry_ms`` of ``overloaded`` when a table's queue is full."""
RETRY_MOVING_MS = 200
"""... and when the table is changing hands (a lease moved): the next owner is quick."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Command:
    future: asyncio.Future[Any] = field(init=False)

    def __post_init__(self) -> None:
        self.future = asyncio.get_running_loop().create_future()


@dataclass
class Join(Command):
    name: str
    seat: int | None
    token: str | None
    key: str | None = None
    """Idempotency key (protocol README "Idempotent requests and retries")."""


@dataclass
class AddBot(Command):
    seat: int | None
    level: str | int | None
    """A level id of the game, an old-style integer, or None for the default."""


@dataclass
class Act(Command):
    seat: int
    action: Action
    by: str = "player"
    cid: str | None = None
    """Command id of a forwarded command: a retry with the same id is not applied twice."""
    key: str | None = None
    """The client's idempotency key: a retry with it gets the first attempt's answer."""


@dataclass
class DeadlinePassed(Command):
    turn: int


@dataclass
class BotMove(Command):
    seat: int


def command_to_plain(command: Command) -> dict[str, Any]:
    """A command as plain data, to forward it to the table's owner in another process."""
    if isinstance(command, Act):
        return {
            "k": "act",
            "seat": command.seat,
            "action": command.action,
            "cid": command.cid,
            "key": command.key,
        }
    if isinstance(command, Join):
        return {
            "k": "join",
            "name": command.name,
            "seat": command.seat,
            "token": command.token,
            "key": command.key,
        }
    if isinstance(command, AddBot):
        return {"k": "add_bot", "seat": command.seat, "level": command.level}
    raise TypeError(f"{type(command).__name__} is not forwarded")


def command_from_plain(data: dict[str, Any]) -> Command:
    kind = data.get("k")
    if kind == "act":
        return Act(data["seat"], data["action"], cid=data.get("cid"), key=data.get("key"))
    if kind == "join":
        return Join(data["name"], data.get("seat"), data.get("token"), data.get("key"))
    if kind == "add_bot":
        return AddBot(data.get("seat"), data.get("level"))
    raise ValueError(f"unknown forwarded command {kind!r}")


CommitHook = Callable[[TableRecord, LogEntry, list[Event]], None]


class TableActor:
    def __init__(
        self,
        record: TableRecord,
        store: Store,
        on_commit: CommitHook,
        clock_ms: Callable[[], int],
        epoch: int = 0,
    ) -> None:
        game = get_game(record.game)
        if game is None:
            raise LookupError(record.game)
        self.game: Game = game
        self.record = record
        self.store = store
        self.on_commit = on_commit
        self.clock_ms = clock_ms
        self.epoch = epoch
        self.queue: asyncio.Queue[Command] = asyncio.Queue(QUEUE_LIMIT)
        self._pending_bots: set[int] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.lost = False
        """Set when a commit was refused for a stale epoch: the hub drops this actor."""
        self._done_cids: dict[str, int] = {}
        """Recent forwarded command ids -> the version they produced (bounded)."""
        self._status_memo: tuple[State, dict[str, Any]] | None = None

    def _game_status(self, state: State) -> dict[str, Any]:
        """``game.status(state)``, computed once per state (an act asks three times)."""
        memo = self._status_memo
        if memo is None or memo[0] is not state:
            memo = self._status_memo = (state, self.game.status(state))
        return memo[1]

    def remember_cids(self, entries: list[LogEntry]) -> None:
        """Learn the command ids of recent log entries (after taking a table over)."""
        for entry in entries:
            if entry.get("cid"):
                self._done_cids[entry["cid"]] = entry["v"]
        while len(self._done_cids) > CID_MEMORY:
            del self._done_cids[next(iter(self._done_cids))]

    # -- submitting -------------------------------------------------------------------

    def submit(self, command: Command) -> asyncio.Future[Any]:
        try:
            self.queue.put_nowait(command)
        except asyncio.QueueFull:
            command.future.set_exception(
                TableError("overloaded", "the table is too busy; try again shortly", RETRY_BUSY_MS)
            )
        return command.future

    # -- the actor task ---------------------------------------------------------------

    async def run(self) -> None:
        """Handle commands until cancelled; arms bots and the deadline first."""
        self._after_commit()
        handled = 0
        try:
            while True:
                handled += 1
                if handled >= YIELD_EVERY:
                    handled = 0
                    await asyncio.sleep(0)  # a long queue: let sockets and other tables run
                command = await self.queue.get()
                try:
                    result = await self._handle(command)
                except TableError as err:
                    _resolve(command.future, exc=err)
                except Exception as err:  # a server bug: the table stays as it was
                    log.exception("table %s: command %r failed", self.record.table, command)
                    _resolve(command.future, exc=TableError("internal_error", str(err)[:200]))
                else:
                    _resolve(command.future, result)
                if self.lost:
                    return
        finally:
            if self._timer is not None:
                self._timer.cancel()
            while not self.queue.empty():
                _resolve(
                    self.queue.get_nowait().future,
                    exc=TableError("overloaded", "the table is moving; try again", RETRY_MOVING_MS),
                )

    async def _handle(self, command: Command) -> Any:
        if isinstance(command, Act):
            return await self._act(command)
        if isinstance(command, Join):
            return await self._join(command)
        if isinstance(command, AddBot):
            return await self._add_bot(command)
        if isinstance(command, DeadlinePassed):
            return await self._deadline(command)
        if isinstance(command, BotMove):
            return await self._bot(command)
        raise TypeError(f"unknown command {command!r}")

    # -- commands ---------------------------------------------------------------------

    async def _join(self, cmd: Join) -> dict[str, Any]:
        seats = self.record.seats
        if cmd.token is not None:
            digest = token_hash(cmd.token)
            for i, seat in enumerate(seats):
                if seat.token_hash == digest and (cmd.seat is None or cmd.seat == i):
                    return {"seat": i, "token": cmd.token}
            raise TableError("unauthorized", "this token holds no seat at this table")
        key_hash = None
        if cmd.key is not None:  # a retry of a join that took a seat gets it back
            key_hash = key_digest(cmd.key)
            token = seat_token(self.record.table, cmd.key)
            for i, seat in enumerate(seats):
                if seat.key_hash == key_hash:
                    return {"seat": i, "token": token}
        else:
            token = secrets.token_urlsafe(24)
        index = self._free_seat(cmd.seat)
        seat = Seat(name=cmd.name, token_hash=token_hash(token), key_hash=key_hash)
        await self._take_seat(index, seat)
        return {"seat": index, "token": token}

    async def _add_bot(self, cmd: AddBot) -> dict[str, Any]:
        try:
            level = self.game.bot_level(cmd.level).id
        except BadOptions as err:
            raise TableError(err.code, err.message) from None
        index = self._free_seat(cmd.seat)
        await self._take_seat(index, Seat(name=f"bot {index + 1}", bot=True, level=level))
        return {"seat": index}

    def _free_seat(self, wanted: int | None) -> int:
        seats = self.record.seats
        if wanted is not None:
            if wanted >= len(seats):
                raise TableError(
                    "bad_message", f"seat {wanted} does not exist (0–{len(seats) - 1})"
                )
            if seats[wanted].taken:
                raise TableError("seat_taken", f"seat {wanted} is taken")
            return wanted
        for i, seat in enumerate(seats):
            if not seat.taken:
                return i
        raise TableError("table_full", "every seat is taken")

    async def _take_seat(self, index: int, seat: Seat) -> None:
        seats = list(self.record.seats)
        seats[index] = seat
        status = self.record.status
        if status is TableStatus.WAITING and all(s.taken for s in seats):
            status = TableStatus.PLAYING
        record = dataclasses.replace(self.record, seats=seats, status=status)
        entry = {"k": "seat", "seat": index, "name": seat.name, "bot": seat.bot}
        await self._commit(record, entry, [])

    async def _act(self, cmd: Act) -> dict[str, Any]:
        if cmd.cid is not None and cmd.cid in self._done_cids:
            return {"version": self._done_cids[cmd.cid]}
        if cmd.key is None:
            return await self._apply(cmd, None)
        digest = key_digest(cmd.key)
        known = self.record.act_keys.answer(cmd.seat, digest)  # raises a remembered error
        if known is not None:
            return known
        try:
            return await self._apply(cmd, digest)
        except TableError as err:
            if err.code not in RETRYABLE:  # settled: a retry gets the same error
                keys = self.record.act_keys.with_result(cmd.seat, digest, err)
                self.record.act_keys = keys
            raise

    async def _apply(self, cmd: Act, digest: str | None) -> dict[str, Any]:
        """Apply an act and commit it; with a key ``digest``, remember its version."""
        status = self.record.status
        if status is TableStatus.WAITING:
            raise TableError("not_started", "the table is waiting for players")
        if status is TableStatus.FINISHED:
            raise TableError("finished", "the game is over")
        try:
            state, events = self.game.apply(self.record.state, cmd.seat, cmd.action)
        except GameError as err:
            raise TableError(err.code, err.message) from None
        game_status = self._game_status(state)
        record = dataclasses.replace(
            self.record,
            state=state,
            status=TableStatus.FINISHED if game_status["finished"] else TableStatus.PLAYING,
        )
        entry = {"k": "act", "seat": cmd.seat, "action": cmd.action, "by": cmd.by}
        if cmd.cid is not None:
            entry["cid"] = cmd.cid
        if digest is not None:  # committed with the act: a new owner answers retries alike
            version = self.record.version + 1
            record.act_keys = record.act_keys.with_result(cmd.seat, digest, version)
            entry["key"] = digest
        await self._commit(record, entry, events)
        if cmd.cid is not None:
            self.remember_cids([{"cid": cmd.cid, "v": self.record.version}])
        return {"version": self.record.version}

    async def _deadline(self, cmd: DeadlinePassed) -> dict[str, Any]:
        """Fallback moves for every seat still to act in the expired turn, by the game's
        fast bot level (a tournament table may need a thousand at once)."""
        record = self.record
        if record.status is not TableStatus.PLAYING or record.deadline_turn != cmd.turn:
            return {"applied": 0}
        applied = 0
        for seat in list(self._game_status(record.state)["to_act"]):
            if self.record.deadline_turn != cmd.turn:
                break
            if seat not in self._game_status(self.record.state)["to_act"]:
                continue
            action = self.game.bot_move(self.record.state, seat, self.game.fast_bot_level)
            await self._act(Act(seat, action, by="deadline"))
            applied += 1
        return {"applied": applied}

    async def _bot(self, cmd: BotMove) -> dict[str, Any]:
        """The move of the seat's bot level, computed on the state as it is now."""
        self._pending_bots.discard(cmd.seat)
        record = self.record
        if record.status is not TableStatus.PLAYING:
            return {"applied": 0}
        if cmd.seat not in self._game_status(record.state)["to_act"]:
            return {"applied": 0}
        action = self.game.bot_move(record.state, cmd.seat, record.seats[cmd.seat].level)
        try:
            await self._act(Act(cmd.seat, action, by="bot"))
        except TableError as err:  # a bot bug must not stall the table: the deadline covers it
            log.error("table %s: bot move for seat %d refused: %s", record.table, cmd.seat, err)
            return {"applied": 0}
        return {"applied": 1}

    # -- commit and its consequences ----------------------------------------------------

    async def _commit(self, record: TableRecord, entry: LogEntry, events: list[Event]) -> None:
        now = self.clock_ms()
        record.version = self.record.version + 1
        record.updated_ms = now
        self._set_deadline(record, now)
        entry = {"v": record.version, **entry, "st": str(record.status), "dl": record.deadline}
        try:
            await self.store.commit(record, entry, self.record.version, self.epoch)
        except VersionConflict:
            # Another process owns the table now (our epoch is stale): stop here.
            self.lost = True
            raise TableError(
                "overloaded", "the table moved to another server; try again", RETRY_MOVING_MS
            ) from None
        self.record = record
        self.on_commit(record, entry, events)
        self._after_commit()

    def _set_deadline(self, record: TableRecord, now: int) -> None:
        if record.status is not TableStatus.PLAYING or not record.turn_ms:
            record.deadline = None
            record.deadline_turn = None
            return
        turn = self._game_status(record.state)["turn"]
        if turn != record.deadline_turn:
            record.deadline = now + record.turn_ms
            record.deadline_turn = turn

    def _after_commit(self) -> None:
        record = self.record
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if record.status is not TableStatus.PLAYING:
            return
        if record.deadline is not None and record.deadline_turn is not None:
            delay = max(0.0, (record.deadline - self.clock_ms()) / 1000)
            turn = record.deadline_turn
            self._timer = asyncio.get_running_loop().call_later(
                delay, lambda: self.submit(DeadlinePassed(turn))
            )
        for seat in self._game_status(record.state)["to_act"]:
            if record.seats[seat].bot and seat not in self._pending_bots:
                self._pending_bots.add(seat)
                self.submit(BotMove(seat))


def _resolve(future: asyncio.Future[Any], value: Any = None, exc: Exception | None = None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)
