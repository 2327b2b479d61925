"""Game records: a finished table's whole game as one document anyone can check
(protocol/v1/games/game_record.json, protocol/README.md "Game records").

A record holds the game, its options, the seed and the seats, then every version the
table went through (a seat taken, an action accepted) with the hash of the view each
audience had after it -- the spectators' and every seat's, exactly the ``hash`` the
live table sent in its patches -- and a *chain*: each entry's ``chain`` is the first
16 hex digits of SHA-256 over the previous entry's ``chain`` and the entry's own
canonical JSON without it, so no entry can be changed, dropped or reordered without
every later link changing.

:func:`verify` recomputes every view from the seed and the actions with the project's
engines and checks every hash and link; :func:`steps` walks a table's log version by
version (the replays on the wire use it too).  Everything here is pure.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tablehub.protocol.codec import action_problem
from tablehub.protocol.viewhash import canonical_json, view_hash
from tablehub.server.games import get_game
from tablehub.server.games.base import Event, Game, GameError, Status
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.record import LogEntry, Seat, TableRecord, TableStatus, as_created

FORMAT = "tablehub-game-record"
FORMAT_VERSION = 1
GENESIS = "0" * 16
"""The chain's value before the first entry."""


class RecordError(Exception):
    """A record that does not check out; ``version`` is where it first fails (None when
    the record as a whole is unreadable)."""

    def __init__(self, message: str, version: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.version = version


@dataclass(frozen=True)
class Step:
    """The table at one version of its log: the record as it was then (state, seats,
    status, deadline), the game's status, the events of the entry that made it."""

    version: int
    record: TableRecord
    status: Status
    entry: LogEntry | None
    events: list[Event]


def _game(game_id: str) -> Game:
    game = get_game(game_id)
    if game is None:
        raise RecordError(f"this server knows no game {game_id!r}")
    return game


def steps(start: TableRecord, log: list[LogEntry]) -> Iterator[Step]:
    """``start`` (version 0, ``record.as_created``) and then every version of ``log`` in
    order.

    Raises :class:`RecordError` at the first entry that is out of order or that the game
    refuses."""
    game = _game(start.game)
    record = start
    yield Step(0, record, game.status(record.state), None, [])
    for entry in log:
        version = entry.get("v")
        if version != record.version + 1:
            raise RecordError(
                f"version {record.version + 1} is missing (found {version})", record.version + 1
            )
        seats = record.seats
        state = record.state
        events: list[Event] = []
        kind = entry.get("k")
        seat = entry.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(seats):
            raise RecordError(f"version {version} names no seat of this table", version)
        if kind == "seat":
            seats = list(seats)
            seats[seat] = Seat(name=entry.get("name"), bot=bool(entry.get("bot")))
        elif kind == "act":
            action = entry.get("action")
            problem = action_problem(game.id, action)  # what the server's door refuses
            if problem is not None:
                raise RecordError(
                    f"version {version}: not an action of this game ({problem})", version
                )
            try:
                state, events = game.apply(state, seat, action)  # type: ignore[arg-type]
            except GameError as err:
                raise RecordError(
                    f"version {version}: the game refuses this action ({err.message})", version
                ) from None
        else:
            raise RecordError(f"version {version} is neither a seat taken nor an action", version)
        try:
            status_word = TableStatus(str(entry.get("st")))
        except ValueError:
            raise RecordError(f"version {version} has no table status", version) from None
        record = dataclasses.replace(
            record,
            state=state,
            seats=seats,
            version=version,
            status=status_word,
            deadline=entry.get("dl"),
        )
        yield Step(version, record, game.status(state), entry, events)


def audiences(record: TableRecord) -> list[int | None]:
    """The spectators (None) and every seat."""
    return [None, *range(len(record.seats))]


def hashes(game: Game, step: Step) -> dict[str, Any]:
    """The view hash of every audience at ``step``: ``spectators`` and ``seats``."""
    views = [
        view_hash(table_view(game, step.record, seat, step.status))
        for seat in audiences(step.record)
    ]
    return {"spectators": views[0], "seats": views[1:]}


def link(previous: str, entry: dict[str, Any]) -> str:
    """The chain after ``entry`` (its fields other than ``chain``)."""
    body = {k: v for k, v in entry.items() if k != "chain"}
    return hashlib.sha256(previous.encode() + canonical_json(body)).hexdigest()[:16]


def _entry(step: Step) -> dict[str, Any]:
    entry = step.entry
    assert entry is not None
    out: dict[str, Any] = {"version": step.version, "kind": entry["k"], "seat": entry["seat"]}
    if entry["k"] == "seat":
        out["name"] = entry.get("name")
        out["bot"] = bool(entry.get("bot"))
    else:
        out["action"] = entry["action"]
        out["by"] = entry.get("by", "player")
    out["status"] = str(step.record.status)
    out["deadline"] = step.record.deadline
    return out


def _log_entry(entry: dict[str, Any]) -> LogEntry:
    """A record entry back in the table log's form."""
    out: LogEntry = {"v": entry.get("version"), "k": entry.get("kind"), "seat": entry.get("seat")}
    if entry.get("kind") == "seat":
        out["name"] = entry.get("name")
        out["bot"] = entry.get("bot")
    else:
        out["action"] = entry.get("action")
    out["st"] = entry.get("status")
    out["dl"] = entry.get("deadline")
    return out


def build(current: TableRecord, log: list[LogEntry]) -> dict[str, Any]:
    """The record document of a table from its stored log (oldest first, from version 1)."""
    game = _game(current.game)
    entries: list[dict[str, Any]] = []
    start: dict[str, Any] = {}
    chain = GENESIS
    for step in steps(as_created(current), log):
        if step.entry is None:
            start = {"version": 0, "hashes": hashes(game, step)}
            chain = start["chain"] = link(chain, start)
            continue
        entry = {**_entry(step), "hashes": hashes(game, step)}
        chain = link(chain, entry)
        entry["chain"] = chain
        entries.append(entry)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "table": current.table,
        "name": current.name,
        "game": current.game,
        "options": current.options,
        "seed": current.seed,
        "turn_seconds": None if current.turn_ms is None else current.turn_ms / 1000,
        "seats": [{"name": s.name, "bot": s.bot, "level": s.level} for s in current.seats],
        "status": str(current.status),
        "result": current.result,
        "start": start,
        "entries": entries,
    }


def header(doc: dict[str, Any]) -> TableRecord:
    """The table at version 0 described by a record document."""
    if doc.get("format") != FORMAT:
        raise RecordError("this is not a tablehub game record")
    if doc.get("format_version") != FORMAT_VERSION:
        raise RecordError(
            f"record format version {doc.get('format_version')} is not one this program reads"
        )
    game = _game(str(doc.get("game")))
    try:
        options = game.validate_options(doc.get("options"))
        seats = doc["seats"]
        turn = doc.get("turn_seconds")
        current = TableRecord(
            table=str(doc["table"]),
            game=game.id,
            options=options,
            turn_ms=None if turn is None else int(turn * 1000),
            seed=int(doc["seed"]),
            seats=[Seat() for _ in seats],
            state={},
            name=str(doc.get("name", "")),
        )
        return as_created(current)
    except GameError as err:
        raise RecordError(f"the record's options are refused: {err.message}") from None
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"the record's header is incomplete: {err}") from None


def verify(doc: dict[str, Any]) -> int:
    """Check a record document: every view hash after every version, recomputed from the
    seed and the actions, and every chain link.  The number of versions checked; raises
    :class:`RecordError` naming the first version that does not check out."""
    start = header(doc)
    game = _game(start.game)
    raw = doc.get("entries")
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise RecordError("the record has no list of entries")
    given_start = doc.get("start") or {}
    chain = GENESIS
    checked = 0
    walk = steps(start, [_log_entry(e) for e in raw])
    for step in walk:
        if step.entry is None:
            computed = hashes(game, step)
            if given_start.get("hashes") != computed:
                raise RecordError("the table as set up does not match the record's first views", 0)
            chain = link(chain, {"version": 0, "hashes": computed})
            if given_start.get("chain") != chain:
                raise RecordError("the record's first chain link is wrong", 0)
            continue
        given = raw[step.version - 1]
        computed = hashes(game, step)
        _compare(given.get("hashes"), computed, step.version)
        chain = link(chain, given)
        if given.get("chain") != chain:
            raise RecordError(
                f"version {step.version}: the chain link is wrong (the record was edited)",
                step.version,
            )
        checked += 1
    return checked


def _compare(given: Any, computed: dict[str, Any], version: int) -> None:
    if not isinstance(given, dict):
        raise RecordError(f"version {version} has no view hashes", version)
    if given.get("spectators") != computed["spectators"]:
        raise RecordError(
            f"version {version}: the spectators' view does not match the record", version
        )
    seats = given.get("seats")
    if not isinstance(seats, list) or len(seats) != len(computed["seats"]):
        raise RecordError(
            f"version {version}: the record has the wrong number of seat views", version
        )
    for seat, (want, got) in enumerate(zip(seats, computed["seats"], strict=True)):
        if want != got:
            raise RecordError(
                f"version {version}: seat {seat + 1}'s view does not match the record", version
            )
