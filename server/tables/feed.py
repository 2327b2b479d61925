"""TableFeed: per-process fan-out of one table's commits to the sockets watching it.

Theory of operation: subscribers are grouped by *audience* -- a seat, or the
spectators (``None``); for a game with ``public_view`` everyone is one audience.
Commits are taken as they come; once per event-loop iteration the feed computes, for
every audience that has subscribers, the new view, the RFC 6902 diff from the version
that audience last got and its hash; it builds the ``patch`` message once and hands
the same :class:`Frames` (encoded at most once per subprotocol) to every subscriber of
the audience.  Under light load that is one patch per commit; a burst of commits
becomes one patch spanning several versions.  Subscribers only enqueue (no await per
socket); their connections write at the end of the loop turn.

A bounded ring of recent records lets a client that missed versions catch up with
one patch from the version it has to the current one; older gaps get a snapshot.

A table with a spectator delay (``TableRecord.spectator_delay_ms``) keeps its
spectators an audience of their own (:data:`DELAYED`), even in a game whose view is
public: each commit waits in a buffer for the delay, then that audience gets its patch
and events.  Until the first delay has passed after the feed starts (a table loaded
mid-game), its spectators see the table as it was created.  Players are never held back.

A table watched by many sockets (a 1,000-seat tournament) would otherwise send a
patch to every socket for nearly every act, and a presence push to every socket for
every arrival: a million frames a round.  So a feed flushes (patches, events and
presence) at most once per ``subscribers / FRAMES_PER_SECOND`` seconds: the first
commit after a quiet spell goes out in the same loop iteration, a burst on a big
table is coalesced into one patch every ~0.1 s (1,000 sockets), and a table of a few
players is never held back.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from tablehub.protocol import Frames
from tablehub.protocol.viewhash import view_hash
from tablehub.server.games import get_game
from tablehub.server.games.base import Event, Game, Status
from tablehub.server.tables.record import LogEntry, TableRecord, apply_entry, as_created
from tablehub.server.tables.viewdiff import Op, diff, diff_shared

RECENT_VERSIONS = 8

FRAMES_PER_SECOND = 10_000
"""Patch frames one table's feed may send per second, over all its sockets."""
COALESCE_FROM_S = 0.002
"""Tables whose budget allows a flush at least this often (under 20 sockets) are
never held back."""

Audience = int | None
DELAYED = -1
"""The audience key of a delayed table's spectators (they see its game late)."""


class Subscriber(Protocol):
    """A session's side of a subscription; ``deliver`` must not block or await."""

    id: int

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None: ...


def table_view(
    game: Game, record: TableRecord, seat: Audience, status: Status | None = None
) -> dict[str, Any]:
    """What ``seat`` (None = spectator) sees of a table: hub status + the game's view
    (``status`` is ``game.status(record.state)``, passed when already computed)."""
    if status is None:
        status = game.status(record.state)
    return {
        "table": record.table,
        "game": record.game,
        "status": str(record.status),
        "seats": [{"name": s.name, "bot": s.bot} for s in record.seats],
        "phase": status["phase"],
        "to_act": status["to_act"],
        "turn": status["turn"],
        "deadline": record.deadline,
        "result": status["result"],
        "board": game.view(record.state, seat),
    }


def _patch(table: str, start: int, end: int, ops: list[dict[str, Any]], digest: str) -> Frames:
    return Frames(
        {"t": "patch", "table": table, "from": start, "to": end, "ops": ops, "hash": digest}
    )


class _AudienceState:
    __slots__ = ("hash", "subscribers", "version", "view")

    def __init__(self) -> None:
        self.subscribers: dict[int, Subscriber] = {}
        self.version = -1
        self.view: dict[str, Any] = {}
        self.hash = ""


class TableFeed:
    def __init__(
        self, record: TableRecord, on_presence: Callable[[TableFeed], None] | None = None
    ) -> None:
        game = get_game(record.game)
        if game is None:
            raise LookupError(record.game)
        self.game = game
        self.table = record.table
        self.record = record
        self._recent: deque[TableRecord] = deque([record], maxlen=RECENT_VERSIONS)
        self._audiences: dict[Audience, _AudienceState] = {}
        self._seat_of: dict[int, Audience] = {}
        self._connected: dict[int, int] = {}
        self._remote: list[dict[str, Any]] = []
        self._on_presence = on_presence
        self._flush_scheduled = False
        self._flushed_at = 0.0  # loop time of the last flush
        self._commits_pending = False  # commits not yet fanned out
        self._pending_events: list[Event] = []
        self._presence_due = False
        self._status: tuple[int, Status] | None = None
        self.delay_ms = record.spectator_delay_ms
        self._held: deque[tuple[float, TableRecord, list[Event]]] = deque()
        """Delayed tables: commits the spectators may not see yet (loop time, record,
        events), oldest first."""
        self._shown = as_created(record) if self.delay_ms else record
        """Delayed tables: the record the spectators may see now."""
        if self.delay_ms:
            self._hold(record, [])

    # -- audiences ----------------------------------------------------------------------

    def _key(self, seat: Audience) -> Audience:
        if seat is None and self.delay_ms:
            return DELAYED
        return None if self.game.public_view else seat

    def _record_of(self, key: Audience) -> TableRecord:
        """The record an audience may see now (delayed spectators: ``_shown``)."""
        return self._shown if key == DELAYED else self.record

    def _game_status(self) -> Status:
        """The game's status at the current version: the committer's, or computed here
        once for every audience (a commit made by another process, a reload)."""
        version = self.record.version
        if self._status is None or self._status[0] != version:
            self._status = (version, self.game.status(self.record.state))
        return self._status[1]

    def _current(self, key: Audience) -> _AudienceState:
        aud = self._audiences.setdefault(key, _AudienceState())
        if aud.version != self._record_of(key).version:
            self._advance(aud, key)
        return aud

    def _advance(self, aud: _AudienceState, key: Audience) -> list[Op]:
        """Move an audience to the current version; the ops from the view it had."""
        if key == DELAYED:
            record = self._shown
            view = table_view(self.game, record, None)
        else:
            record = self.record
            view = table_view(self.game, record, key, self._game_status())
        ops: list[Op] = []
        if aud.version < 0:
            aud.view = view
        else:
            ops, aud.view = diff_shared(aud.view, view)
        if ops or aud.version < 0:
            aud.hash = view_hash(aud.view)
        aud.version = record.version
        return ops

    def snapshot(self, seat: Audience) -> Frames:
        self._flush_commits()  # others of this audience must get their patch before it moves on
        aud = self._current(self._key(seat))
        return Frames(
            {
                "t": "snapshot",
                "table": self.table,
                "version": aud.version,
                "view": aud.view,
                "hash": aud.hash,
            }
        )

    # -- subscriptions -------------------------------------------------------------------

    @property
    def subscriber_count(self) -> int:
        return len(self._seat_of)

    def subscribe(self, sub: Subscriber, seat: Audience, send_snapshot: bool = True) -> None:
        """Add (or move) a subscriber and send it a snapshot; presence goes to all."""
        self.unsubscribe(sub, announce=False)
        self._flush_commits()  # the others get what is pending before the newcomer joins them
        self._audiences.setdefault(self._key(seat), _AudienceState()).subscribers[sub.id] = sub
        self._seat_of[sub.id] = seat
        if seat is not None:
            self._connected[seat] = self._connected.get(seat, 0) + 1
        if send_snapshot:
            frames = self.snapshot(seat)
            sub.deliver(self.table, frames.msg["version"], frames, "snapshot")
        self._presence_changed()

    def unsubscribe(self, sub: Subscriber, announce: bool = True) -> None:
        if sub.id not in self._seat_of:
            return
        seat = self._seat_of.pop(sub.id)
        key = self._key(seat)
        aud = self._audiences.get(key)
        if aud is not None:
            aud.subscribers.pop(sub.id, None)
            if not aud.subscribers:
                del self._audiences[key]
        if seat is not None:
            self._connected[seat] -= 1
            if not self._connected[seat]:
                del self._connected[seat]
        if announce:
            self._presence_changed()

    def close(self, frames: Frames) -> None:
        """The table is gone: hand every subscriber ``frames`` (its ``table_closed``
        push) and forget them all."""
        for aud in self._audiences.values():
            for sub in aud.subscribers.values():
                sub.deliver(self.table, self.record.version, frames, "closed")
        self._audiences.clear()
        self._seat_of.clear()
        self._connected.clear()

    def local_presence(self) -> dict[str, Any]:
        """This process's sockets at the table (published for the other processes)."""
        return {
            "seats": sorted(self._connected),
            "spectators": sum(1 for seat in self._seat_of.values() if seat is None),
        }

    def set_remote_presence(self, others: list[dict[str, Any]]) -> None:
        """The presence published by the other hub processes serving this table."""
        self._remote = others
        self._presence_changed(local_change=False)

    def presence(self) -> dict[str, Any]:
        """Who is connected, over every process: the ``presence`` push."""
        local = self.local_presence()
        connected = set(local["seats"]).union(*(p["seats"] for p in self._remote))
        return {
            "t": "presence",
            "table": self.table,
            "seats": [
                {"name": s.name, "bot": s.bot, "connected": s.bot or i in connected}
                for i, s in enumerate(self.record.seats)
            ],
            "spectators": local["spectators"] + sum(p["spectators"] for p in self._remote),
        }

    def _presence_changed(self, local_change: bool = True) -> None:
        """Tell the other processes now (``on_presence``, when this process's sockets
        changed) and every subscriber at the next flush: on a table of 1,000 seats a
        presence push per arrival would be a million frames while they sit down."""
        if local_change and self._on_presence is not None:
            self._on_presence(self)
        self._presence_due = True
        self._schedule_flush()

    def _schedule_flush(self) -> None:
        """Flush in this loop iteration, or once the table's frame budget allows."""
        if self._flush_scheduled:
            return
        self._flush_scheduled = True
        loop = asyncio.get_running_loop()
        interval = len(self._seat_of) / FRAMES_PER_SECOND
        wait = self._flushed_at + interval - loop.time()
        if interval >= COALESCE_FROM_S and wait > 0:
            loop.call_later(wait, self.flush)
        else:
            loop.call_soon(self.flush)

    # -- commits ------------------------------------------------------------------------

    def on_commit(
        self,
        record: TableRecord,
        entry: LogEntry,
        events: list[Event],
        status: Status | None = None,
    ) -> None:
        """Take a committed version (in version order); fan-out follows in this loop
        iteration's ``flush``, one patch per audience for every commit made meanwhile.
        ``status`` is the game's status of ``record.state`` when the committer has it
        (the table's actor computes it once per commit); else it is computed on demand."""
        self.record = record
        if status is not None:
            self._status = (record.version, status)
        self._recent.append(record)
        self._pending_events.extend(events)
        if self.delay_ms:
            self._hold(record, events)
        self._commits_pending = True
        if entry.get("k") == "seat":
            self._presence_changed()
        self._schedule_flush()

    def _flush_commits(self) -> None:
        """Fan out pending commits now (before an audience's view moves on)."""
        if self._commits_pending:
            self.flush()

    def flush(self) -> None:
        """Send each audience one patch from the version it has to the current one, and
        the events of those versions in one ``event`` push.

        A burst of commits (a 1,000-seat round; many queued commands) thus costs one
        view, one hash, one diff and one frame per socket instead of one per commit."""
        if not self._flush_scheduled:
            return  # done early (a snapshot or a subscriber needed it)
        self._flush_scheduled = self._commits_pending = False
        self._flushed_at = asyncio.get_running_loop().time()
        for key, aud in self._audiences.items():
            if not aud.subscribers or aud.version in (-1, self.record.version) or key == DELAYED:
                continue  # -1: a new audience, whose first subscriber gets a snapshot
            old_version = aud.version
            ops = self._advance(aud, key)
            frames = _patch(self.table, old_version, aud.version, ops, aud.hash)
            for sub in aud.subscribers.values():
                sub.deliver(self.table, aud.version, frames, "patch")
        if self._pending_events:
            events, self._pending_events = self._pending_events, []
            event_frames = Frames(
                {
                    "t": "event",
                    "table": self.table,
                    "version": self.record.version,
                    "events": events,
                }
            )
            for key, aud in self._audiences.items():
                if key == DELAYED:
                    continue  # they get these events with their patch, later
                for sub in aud.subscribers.values():
                    sub.deliver(self.table, self.record.version, event_frames, "event")
        if self._presence_due:
            self._presence_due = False
            frames = Frames(self.presence())
            for aud in self._audiences.values():
                for sub in aud.subscribers.values():
                    sub.deliver(self.table, self.record.version, frames, "presence")

    def apply_remote(self, meta: dict[str, Any], entry: LogEntry) -> None:
        """A commit made by another process: derive the state with the engine (pure and
        deterministic, so it equals the owner's) and fan it out like a local commit."""
        state, events = apply_entry(self.game, self.record.state, entry)
        self.on_commit(TableRecord.from_plain({**meta, "state": state}), entry, events)

    def reload(self, record: TableRecord) -> None:
        """Jump to a record loaded from the store (after a gap): one patch from the
        version each audience had to the new one."""
        if record.version <= self.record.version:
            return
        self.on_commit(record, {"k": "reload", "v": record.version}, [])

    def recent(self, version: int) -> TableRecord | None:
        """The record at ``version`` if it is still in the ring of recent versions."""
        return next((old for old in self._recent if old.version == version), None)

    def catch_up(self, seat: Audience, version: int, old: TableRecord | None = None) -> Frames:
        """One patch from ``version`` (the record ``old``, or one in the recent ring) to
        now; a snapshot when that version is not known."""
        self._flush_commits()
        if self._key(seat) == DELAYED:  # what they may see now, never a newer version
            shown = self._shown.version
            return self._empty_patch(seat) if version == shown else self.snapshot(seat)
        if version == self.record.version:
            return self.snapshot(seat) if version < 0 else self._empty_patch(seat)
        old = old or self.recent(version)
        if old is None or old.version != version:
            return self.snapshot(seat)
        key = self._key(seat)
        aud = self._current(key)
        old_view = table_view(self.game, old, key)
        return _patch(self.table, version, aud.version, diff(old_view, aud.view), aud.hash)

    def _empty_patch(self, seat: Audience) -> Frames:
        aud = self._current(self._key(seat))
        return _patch(self.table, aud.version, aud.version, [], aud.hash)

    # -- spectator delay -----------------------------------------------------------------

    def _hold(self, record: TableRecord, events: list[Event]) -> None:
        """Keep a commit from the spectators for the delay."""
        loop = asyncio.get_running_loop()
        self._held.append((loop.time(), record, events))
        loop.call_later(self.delay_ms / 1000, self._release)

    def _release(self) -> None:
        """Show the spectators every held commit whose delay has passed: one patch from
        the version they have, and those versions' events."""
        due = asyncio.get_running_loop().time() - self.delay_ms / 1000
        events: list[Event] = []
        released = False
        while self._held and self._held[0][0] <= due:
            _, self._shown, held_events = self._held.popleft()
            events.extend(held_events)
            released = True
        aud = self._audiences.get(DELAYED)
        if not released or aud is None or not aud.subscribers or aud.version < 0:
            return
        old_version = aud.version
        ops = self._advance(aud, DELAYED)
        patch = _patch(self.table, old_version, aud.version, ops, aud.hash)
        pushes = [(patch, "patch")]
        if events:
            pushes.append(
                (
                    Frames(
                        {
                            "t": "event",
                            "table": self.table,
                            "version": aud.version,
                            "events": events,
                        }
                    ),
                    "event",
                )
            )
        for frames, kind in pushes:
            for sub in list(aud.subscribers.values()):
                sub.deliver(self.table, aud.version, frames, kind)
