"""The table core: what every table command does, as a pure function (sans-I/O).

Theory of operation: ``handle(table, command, now)`` takes one version of a table (its
record and the game's status of that record's state, :class:`Table`), a command and the
time, and returns a :class:`Decision` -- it never awaits, never touches a store, a socket
or a clock, and never mutates its input.  The decision holds everything the command does:

* ``commits``: the new versions, in order, each with its log entry, the game's events and
  the game's status of the new state (computed here once per commit; the feed reuses it);
* ``reply``: what the command's sender gets once the commits are stored, or ``error``:
  the refusal, with nothing committed;
* ``effects``: the timer and bot moves the table needs after its last commit (None when
  nothing was committed: the current ones stand);
* ``warning``: a server-side problem to log: a bot or deadline fallback move the game
  refused (dropped, with the moves before it kept: the table never stalls on a bot bug).

:class:`~tablehub.server.tables.actor.TableActor` executes decisions: it commits through
the store, hands each commit to the feed, resolves the command's future with the reply,
arms the deadline and queues the bots' moves.

Commands are plain data.  A new seat's token is drawn when the :class:`Join` is built
(``new_token``), so handling it stays a function of its input.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from tablehub.protocol.legal import COMPACT, PLAIN
from tablehub.server.games import get_game
from tablehub.server.games.base import (
    Action,
    BadOptions,
    Event,
    Game,
    GameError,
    IllegalAction,
    Status,
)
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.idempotency import RETRYABLE, ActKeys, key_digest, seat_token
from tablehub.server.tables.record import LogEntry, Seat, TableRecord, TableStatus

Reply = dict[str, Any]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def game_of(record: TableRecord) -> Game:
    game = get_game(record.game)
    if game is None:
        raise LookupError(record.game)
    return game


# -- commands -------------------------------------------------------------------------------


@dataclass
class Command:
    """A table command (plain data: it can be forwarded to another process)."""


@dataclass
class Join(Command):
    name: str
    seat: int | None
    token: str | None = field(repr=False)
    """The seat token of a player coming back; None to take a free seat (secret: never
    in a log line, as ``new_token``)."""
    new_token: str = field(default_factory=lambda: secrets.token_urlsafe(24), repr=False)
    """The token a free seat gets (drawn here, outside ``handle``)."""
    key: str | None = field(default=None, repr=False)
    """Idempotency key (protocol README "Idempotent requests and retries"): a retry gets
    the seat it took and the same token (derived from the key)."""


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
    key: str | None = field(default=None, repr=False)
    """The client's idempotency key: a retry with it gets the first attempt's answer."""


@dataclass
class Legal(Command):
    """The actions ``seat`` may take now (answered by the table's owner, like an act);
    with ``partial``, the next step's choices (protocol/README.md "Staged legal")."""

    seat: int
    partial: Action | None = None
    form: str = PLAIN
    """The form asked for without ``partial``: ``plain``, ``compact``, ``grid`` or
    ``layered`` (protocol/README.md "Compact legal", "Grid legal", "Layered grid
    legal")."""


@dataclass
class DeadlinePassed(Command):
    turn: int


@dataclass
class BotMove(Command):
    seat: int
    action: Action | None = None
    """The move thought off the loop (tables/thinking.py), or None to think it here."""
    version: int | None = None
    """The table version ``action`` was thought at."""


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
    if isinstance(command, Legal):
        return {
            "k": "legal",
            "seat": command.seat,
            "partial": command.partial,
            "form": command.form,
            "compact": command.form != PLAIN,  # what a hub of the previous release reads
        }
    raise TypeError(f"{type(command).__name__} is not forwarded")


def command_from_plain(data: dict[str, Any]) -> Command:
    kind = data.get("k")
    if kind == "act":
        return Act(data["seat"], data["action"], cid=data.get("cid"), key=data.get("key"))
    if kind == "join":
        return Join(data["name"], data.get("seat"), data.get("token"), key=data.get("key"))
    if kind == "add_bot":
        return AddBot(data.get("seat"), data.get("level"))
    if kind == "legal":
        form = data.get("form") or (COMPACT if data.get("compact") else PLAIN)
        return Legal(data["seat"], data.get("partial"), form)
    raise ValueError(f"unknown forwarded command {kind!r}")


# -- tables and decisions ---------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """One version of a table: its record and the game's status of the record's state."""

    record: TableRecord
    status: Status

    @classmethod
    def of(cls, record: TableRecord) -> Table:
        """A table loaded from the store (its status computed here, once)."""
        return cls(record, game_of(record).status(record.state))


@dataclass(frozen=True)
class Commit:
    """A new version to store: the record, its log entry and the game's events."""

    record: TableRecord
    entry: LogEntry
    events: list[Event]
    status: Status

    @property
    def table(self) -> Table:
        return Table(self.record, self.status)


@dataclass(frozen=True)
class Effects:
    """What a table needs from its owner at a version: a timer and bot moves."""

    deadline: tuple[int, int] | None
    """(turn, epoch ms) at which the seats still to act get their fallback move."""
    bots: tuple[int, ...]
    """Bot seats that must act now."""


@dataclass(frozen=True)
class Decision:
    reply: Reply | None = None
    error: TableError | None = None
    commits: tuple[Commit, ...] = ()
    effects: Effects | None = None
    warning: str | None = None
    act_keys: ActKeys | None = None
    """With an error that settles a keyed act: the table's act keys remembering it (kept
    in memory, stored with the seat's next keyed commit); nothing else changes."""


def effects(table: Table) -> Effects:
    record = table.record
    if record.status is not TableStatus.PLAYING:
        return Effects(None, ())
    deadline = None
    if record.deadline is not None and record.deadline_turn is not None:
        deadline = (record.deadline_turn, record.deadline)
    bots = tuple(seat for seat in table.status["to_act"] if record.seats[seat].bot)
    return Effects(deadline, bots)


def _decided(reply: Reply, commits: list[Commit], warning: str | None = None) -> Decision:
    after = effects(commits[-1].table) if commits else None
    return Decision(reply=reply, commits=tuple(commits), effects=after, warning=warning)


# -- handling ---------------------------------------------------------------------------------


def handle(table: Table, command: Command, now: int) -> Decision:
    """What ``command`` does to ``table`` at ``now`` (epoch ms)."""
    game = game_of(table.record)
    try:
        if isinstance(command, Act):
            if command.key is not None:
                return _keyed_act(game, table, command, now)
            commit = _apply(game, table, command, now)
            return _decided({"version": commit.record.version}, [commit])
        if isinstance(command, Legal):
            return Decision(reply=_legal(game, table, command))
        if isinstance(command, Join):
            return _join(table, command, now)
        if isinstance(command, AddBot):
            return _add_bot(game, table, command, now)
        if isinstance(command, DeadlinePassed):
            return _deadline(game, table, command.turn, now)
        if isinstance(command, BotMove):
            return _bot(game, table, command, now)
    except TableError as err:
        return Decision(error=err)
    raise TypeError(f"unknown command {command!r}")


def _legal(game: Game, table: Table, command: Legal) -> Reply:
    record = table.record
    seat, partial = command.seat, command.partial
    _seat_exists(record, seat)
    if partial is not None:
        try:
            step = game.legal_step(record.state, seat, partial)
        except IllegalAction as err:
            raise TableError("bad_action", err.message) from None
        return {**step, "version": record.version}
    try:
        listed = game.legal_in_form(record.state, seat, command.form)
    except GameError as err:
        raise TableError(err.code, err.message) from None
    return {**listed, "version": record.version}


def _join(table: Table, cmd: Join, now: int) -> Decision:
    if cmd.token is not None:
        digest = token_hash(cmd.token)
        for i, seat in enumerate(table.record.seats):
            if seat.token_hash == digest and (cmd.seat is None or cmd.seat == i):
                return Decision(reply={"seat": i, "token": cmd.token})
        raise TableError("unauthorized", "this token holds no seat at this table")
    token, key_hash = cmd.new_token, None
    if cmd.key is not None:  # a retry of a join that took a seat gets it back
        key_hash = key_digest(cmd.key)
        token = seat_token(table.record.table, cmd.key)
        for i, seat in enumerate(table.record.seats):
            if seat.key_hash == key_hash:
                return Decision(reply={"seat": i, "token": token})
    index = _free_seat(table.record, cmd.seat)
    seat = Seat(name=cmd.name, token_hash=token_hash(token), key_hash=key_hash)
    commit = _take_seat(table, index, seat, now)
    return _decided({"seat": index, "token": token}, [commit])


def _add_bot(game: Game, table: Table, cmd: AddBot, now: int) -> Decision:
    try:
        level = game.bot_level(cmd.level).id
    except BadOptions as err:
        raise TableError(err.code, err.message) from None
    index = _free_seat(table.record, cmd.seat)
    commit = _take_seat(table, index, Seat(name=f"bot {index + 1}", bot=True, level=level), now)
    return _decided({"seat": index}, [commit])


def _seat_exists(record: TableRecord, seat: int) -> None:
    if not 0 <= seat < len(record.seats):
        raise TableError(
            "bad_message",
            f"there is no seat {seat + 1} at this table (its seats are 1 to {len(record.seats)})",
        )


def _free_seat(record: TableRecord, wanted: int | None) -> int:
    if wanted is not None:
        _seat_exists(record, wanted)
        if record.seats[wanted].taken:
            raise TableError("seat_taken", f"seat {wanted + 1} is taken")
        return wanted
    for i, seat in enumerate(record.seats):
        if not seat.taken:
            return i
    raise TableError("table_full", "every seat is taken")


def _take_seat(table: Table, index: int, seat: Seat, now: int) -> Commit:
    seats = list(table.record.seats)
    seats[index] = seat
    status = table.record.status
    if status is TableStatus.WAITING and all(s.taken for s in seats):
        status = TableStatus.PLAYING
    record = dataclasses.replace(table.record, seats=seats, status=status)
    entry = {"k": "seat", "seat": index, "name": seat.name, "bot": seat.bot}
    return _commit(table, record, table.status, entry, [], now)


def _keyed_act(game: Game, table: Table, cmd: Act, now: int) -> Decision:
    """An act with an idempotency key: a key seen before gets its first answer (the
    version, or the error that settled it); a new one is applied and remembered."""
    assert cmd.key is not None
    digest = key_digest(cmd.key)
    known = table.record.act_keys.answer(cmd.seat, digest)  # raises a remembered error
    if known is not None:
        return Decision(reply=known)
    try:
        commit = _apply(game, table, cmd, now, digest)
    except TableError as err:
        if err.code in RETRYABLE:  # not settled: a retry runs it again
            raise
        remembered = table.record.act_keys.with_result(cmd.seat, digest, err)
        return Decision(error=err, act_keys=remembered)
    return _decided({"version": commit.record.version}, [commit])


def _apply(game: Game, table: Table, cmd: Act, now: int, key: str | None = None) -> Commit:
    status = table.record.status
    if status is TableStatus.WAITING:
        raise TableError("not_started", "the table is waiting for players")
    if status is TableStatus.FINISHED:
        raise TableError("finished", "the game is over")
    try:
        state, events = game.apply(table.record.state, cmd.seat, cmd.action)
    except GameError as err:
        raise TableError(err.code, err.message) from None
    game_status = game.status(state)
    record = dataclasses.replace(
        table.record,
        state=state,
        status=TableStatus.FINISHED if game_status["finished"] else TableStatus.PLAYING,
        result=dict(game_status["result"] or {}) if game_status["finished"] else None,
    )
    entry: LogEntry = {"k": "act", "seat": cmd.seat, "action": cmd.action, "by": cmd.by}
    if cmd.cid is not None:
        entry["cid"] = cmd.cid
    if key is not None:  # committed with the act: a new owner answers retries alike
        record.act_keys = record.act_keys.with_result(cmd.seat, key, table.record.version + 1)
        entry["key"] = key
    return _commit(table, record, game_status, entry, events, now)


def _commit(
    table: Table,
    record: TableRecord,
    status: Status,
    entry: LogEntry,
    events: list[Event],
    now: int,
) -> Commit:
    """The next version: ``record`` (a fresh copy) numbered, stamped and given its deadline."""
    record.version = table.record.version + 1
    record.updated_ms = now
    if record.status is not TableStatus.PLAYING or not record.turn_ms:
        record.deadline = None
        record.deadline_turn = None
    elif status["turn"] != record.deadline_turn:
        record.deadline = now + record.turn_ms
        record.deadline_turn = status["turn"]
    entry = {"v": record.version, **entry, "st": str(record.status), "dl": record.deadline}
    return Commit(record, entry, events, status)


def _deadline(game: Game, table: Table, turn: int, now: int) -> Decision:
    """Fallback moves for every seat still to act in the expired turn, by the game's
    fast bot level (a tournament table may need a thousand at once)."""
    record = table.record
    if record.status is not TableStatus.PLAYING or record.deadline_turn != turn:
        return Decision(reply={"applied": 0})
    commits: list[Commit] = []
    warning = None
    current = table
    for seat in list(table.status["to_act"]):
        if current.record.deadline_turn != turn:
            break
        if seat not in current.status["to_act"]:
            continue
        action = game.fast_bot_move(current.record.state, seat)
        try:
            commit = _apply(game, current, Act(seat, action, by="deadline"), now)
        except TableError as err:
            warning = f"fallback move for seat {seat} refused: {err.message}"
            break
        commits.append(commit)
        current = commit.table
    return _decided({"applied": len(commits)}, commits, warning)


def _bot(game: Game, table: Table, cmd: BotMove, now: int) -> Decision:
    """The move of the seat's bot level: the one thought off the loop, or computed here
    on the table as it is now.  A thought move the table moved past is dropped and the
    bot thinks again; a move the game refuses otherwise is logged and dropped: the
    deadline covers it, the table never stalls."""
    record, seat = table.record, cmd.seat
    if record.status is not TableStatus.PLAYING or seat not in table.status["to_act"]:
        return Decision(reply={"applied": 0})
    action = cmd.action
    if action is None:
        action = game.bot_move(record.state, seat, record.seats[seat].level)
    try:
        commit = _apply(game, table, Act(seat, action, by="bot"), now)
    except TableError as err:
        if cmd.version is not None and cmd.version != record.version:
            return Decision(reply={"applied": 0}, effects=effects(table))
        warning = f"bot move for seat {seat} refused: {err.message}"
        return Decision(reply={"applied": 0}, warning=warning)
    return _decided({"applied": 1}, [commit])
