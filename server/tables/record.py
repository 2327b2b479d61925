"""A table's persistent record and its action log (what the store keeps).

The record is plain data so every store can serialise it with msgpack as it is.  The
log is the table's history: replaying it from ``setup`` rebuilds the state exactly
(:func:`replay`).  Log entry kinds:

* ``{"k": "seat", "seat": i, "name": str, "bot": bool}``  -- a seat was taken.
* ``{"k": "act", "seat": i, "action": {...}, "by": "player"|"bot"|"deadline"}``.
* ``{"k": "deadline", "turn": t, "at": ms}``  -- a deadline was set (informational).

Every entry carries ``"v"``: the table version it produced.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

from tablehub.server.games import get_game
from tablehub.server.games.base import Event, Game, State
from tablehub.server.tables.idempotency import ActKeys


class TableStatus(enum.StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"


LogEntry = dict[str, Any]


@dataclass
class Seat:
    name: str | None = None
    bot: bool = False
    level: str | None = None
    """A bot seat's level id (``Game.bots``); None for people."""
    token_hash: str | None = None
    """SHA-256 of the seat token; the token itself is only ever sent to its holder."""
    key_hash: str | None = None
    """Digest of the key of the ``join`` that took the seat (``idempotency.key_digest``)."""

    @property
    def taken(self) -> bool:
        return self.bot or self.token_hash is not None


@dataclass
class TableRecord:
    table: str
    game: str
    options: dict[str, Any]
    turn_ms: int | None
    seed: int
    seats: list[Seat]
    state: State
    version: int = 0
    status: TableStatus = TableStatus.WAITING
    deadline: int | None = None
    """Epoch milliseconds at which the seats in ``to_act`` get their fallback move."""
    deadline_turn: int | None = None
    name: str = ""
    created_ms: int = 0
    updated_ms: int = 0
    create_key: str | None = None
    """Digest of the key of the ``create_table`` that made the table, if it had one."""
    result: dict[str, Any] | None = None
    """The game's result once it is finished (scores, winners, reason): the lobby's line."""
    spectator_delay_ms: int = 0
    """How far behind the players spectators see the table (the ``spectator_delay`` option)."""
    act_keys: ActKeys = field(default_factory=ActKeys)
    """Recent act keys per seat and their answers; not in :meth:`meta`: stores keep
    each seat's part apart (``ActKeys.encoded``), written when that seat commits."""

    def meta(self) -> dict[str, Any]:
        """The record as plain data *without* the game state (what a store keeps beside
        its snapshots and log).  Built field by field: nothing here grows with the
        state, and the state is never copied."""
        return {
            "table": self.table,
            "game": self.game,
            "options": self.options,
            "turn_ms": self.turn_ms,
            "seed": self.seed,
            "seats": [
                {
                    "name": s.name,
                    "bot": s.bot,
                    "level": s.level,
                    "token_hash": s.token_hash,
                    "key_hash": s.key_hash,
                }
                for s in self.seats
            ],
            "version": self.version,
            "status": str(self.status),
            "deadline": self.deadline,
            "deadline_turn": self.deadline_turn,
            "name": self.name,
            "created_ms": self.created_ms,
            "updated_ms": self.updated_ms,
            "create_key": self.create_key,
            "result": self.result,
            "spectator_delay_ms": self.spectator_delay_ms,
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> TableRecord:
        data = dict(data)
        data["seats"] = [_seat_from_plain(data["game"], s) for s in data["seats"]]
        data["status"] = TableStatus(data["status"])
        return cls(**data)

    def summary(self) -> dict[str, Any]:
        """The public lobby line of this table (without presence)."""
        return {
            "table": self.table,
            "game": self.game,
            "name": self.name,
            "status": str(self.status),
            "version": self.version,
            "seats": [{"name": s.name, "bot": s.bot} for s in self.seats],
            "options": {
                **self.options,
                "turn_seconds": None if self.turn_ms is None else self.turn_ms / 1000,
                **(
                    {"spectator_delay": self.spectator_delay_ms / 1000}
                    if self.spectator_delay_ms
                    else {}
                ),
            },
            "result": self.result,
        }


def _seat_from_plain(game_id: str, data: dict[str, Any]) -> Seat:
    """A stored seat; records from before bot level ids kept an integer 1-3 on every
    seat, which becomes the n-th level of the game for a bot and nothing for a person."""
    data = dict(data)
    level = data.get("level")
    if isinstance(level, int):
        game = get_game(game_id)
        data["level"] = game.bot_level(level).id if data.get("bot") and game else None
    return Seat(**data)


def as_created(current: TableRecord) -> TableRecord:
    """The table as it was created: version 0, every seat free, the game as set up."""
    game = get_game(current.game)
    if game is None:
        raise LookupError(f"unknown game {current.game}")
    return dataclasses.replace(
        current,
        state=game.setup(current.options, len(current.seats), current.seed),
        version=0,
        seats=[Seat() for _ in current.seats],
        status=TableStatus.WAITING,
        deadline=None,
        deadline_turn=None,
        result=None,
    )


def replay(record: TableRecord, log: list[LogEntry]) -> State:
    """Rebuild a table's game state from its setup parameters and log."""
    game = get_game(record.game)
    if game is None:
        raise LookupError(f"unknown game {record.game}")
    return replay_from(record, game.setup(record.options, len(record.seats), record.seed), log)


def apply_entry(game: Game, state: State, entry: LogEntry) -> tuple[State, list[Event]]:
    """The game state after one committed log entry, and its events: how a stored entry
    changes a table, for every process that did not decide it (a commit heard from the
    owner, a replay from the store).  An ``act`` entry's action is applied by the engine,
    exactly as the owner applied it; a seat taken changes no game state."""
    if entry["k"] != "act":
        return state, []
    return game.apply(state, entry["seat"], entry["action"])


def replay_from(record: TableRecord, state: State, log: list[LogEntry]) -> State:
    """Apply the entries of ``log`` to ``state`` (a snapshot of ``record``'s game, as the
    store gave it back: put in the engine's own form first)."""
    game = get_game(record.game)
    if game is None:
        raise LookupError(f"unknown game {record.game}")
    state = game.restored(state)
    for entry in log:
        state, _ = apply_entry(game, state, entry)
    return state


def record_at(
    current: TableRecord, version: int, base_state: State, base_version: int, log: list[LogEntry]
) -> TableRecord | None:
    """The table as it was at ``version``, rebuilt from a state at ``base_version`` and
    the log (holding at least the versions ``base_version + 1`` to now, and the entry at
    ``version`` itself).

    Seats are only ever taken, so the seats then are today's minus those taken after
    ``version``; status and deadline are recorded in each entry (``st``, ``dl``).
    None when the entries needed are not all there."""
    if not base_version <= version < current.version:
        return None
    by_version = {entry["v"]: entry for entry in log}
    if any(v not in by_version for v in range(base_version + 1, current.version + 1)):
        return None
    if version > 0 and "st" not in by_version.get(version, {}):
        return None
    state = replay_from(
        current, base_state, [by_version[v] for v in range(base_version + 1, version + 1)]
    )
    seats = list(current.seats)
    for v in range(version + 1, current.version + 1):
        if by_version[v]["k"] == "seat":
            seats[by_version[v]["seat"]] = Seat()
    entry = by_version.get(version)
    status = TableStatus(entry["st"]) if entry else TableStatus.WAITING
    deadline = entry.get("dl") if entry else None
    return dataclasses.replace(
        current, state=state, version=version, seats=seats, status=status, deadline=deadline
    )
