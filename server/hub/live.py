"""A table as this process serves it, and the one owner of that state."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from tablehub.protocol import Frames
from tablehub.server.games.base import Event, Status
from tablehub.server.store.bus import RemoteCommit
from tablehub.server.tables.actor import Answer, TableActor
from tablehub.server.tables.core import Command
from tablehub.server.tables.feed import Audience, Subscriber, TableFeed
from tablehub.server.tables.record import LogEntry, TableRecord, TableStatus

log = logging.getLogger("tablehub.hub")


class LiveTable:
    """Always a feed; an actor while this process holds the table's lease; and how
    recently an owner elsewhere was heard from.

    What happens to the table is a method here -- run, post, lose, stop, a commit made
    here or elsewhere, a reload -- and nothing outside sets its fields.  Sessions see
    only what ``sessions.hub_api.TableView`` declares: the version, the game, a
    snapshot, and subscribing."""

    __slots__ = ("_actor", "_lobby_changed", "_owner_trusted_until", "feed")

    def __init__(self, feed: TableFeed, lobby_changed: Callable[[], None]) -> None:
        self.feed = feed
        self._lobby_changed = lobby_changed
        self._actor: TableActor | None = None
        self._owner_trusted_until = 0.0

    # -- reading --------------------------------------------------------------------------

    @property
    def actor(self) -> TableActor | None:
        """The actor running the table here, or None (another process owns it, or nobody)."""
        return self._actor

    @property
    def has_work(self) -> bool:
        """Whether the table's actor here has commands queued or being stored."""
        return self._actor is not None and not self._actor.idle

    @property
    def record(self) -> TableRecord:
        return self._actor.record if self._actor is not None else self.feed.record

    @property
    def version(self) -> int:
        """The version this process's watchers have been sent (or are being sent)."""
        return self.feed.record.version

    @property
    def game_id(self) -> str:
        return self.feed.game.id

    def owner_trusted(self) -> bool:
        """Whether the owner elsewhere answered a forwarded command, or its commit was
        mirrored here, less than half a lease ago (no takeover attempt before)."""
        return asyncio.get_running_loop().time() < self._owner_trusted_until

    # -- watchers -------------------------------------------------------------------------

    def snapshot(self, seat: Audience) -> Frames:
        return self.feed.snapshot(seat)

    def subscribe(self, sub: Subscriber, seat: Audience, send_snapshot: bool = True) -> None:
        self.feed.subscribe(sub, seat, send_snapshot)

    def unsubscribe(self, sub: Subscriber) -> None:
        self.feed.unsubscribe(sub)

    # -- running it here ------------------------------------------------------------------

    def run(self, actor: TableActor, on_stopped: Callable[[TableActor], None]) -> None:
        """Run the table here with ``actor`` (built on :meth:`committed`); ``on_stopped``
        hears when it stops for good.  Only when no actor runs here (see :meth:`lose`)."""
        assert self._actor is None, "an actor runs the table here already"

        def stopped(done: TableActor) -> None:
            if self._actor is done:
                self._actor = None
            on_stopped(done)

        actor.on_stopped = stopped
        self._actor = actor
        actor.start()

    def post(self, command: Command, answer: Answer) -> bool:
        """Hand a command to the actor here; False when the table is not run here."""
        if self._actor is None:
            return False
        self._actor.post(command, answer)
        return True

    def committed(
        self, record: TableRecord, entry: LogEntry, events: list[Event], status: Status
    ) -> None:
        """The actor here stored a version: every watcher here gets it (the actor's
        commit hook)."""
        self.feed.on_commit(record, entry, events, status)
        self._lobby_news(entry, record.status)

    def lose(self) -> None:
        """The table is no longer this process's to run (another committed, or the
        store's answer for a commit is unknown): stop the actor as lost."""
        actor = self._actor
        if actor is not None:
            actor.lost = True
            actor.stop()

    def stop(self) -> TableActor | None:
        """Stop the actor here (the table is unloaded, the lease lost, the hub
        stopping); the actor that ran, if any."""
        actor = self._actor
        if actor is not None:
            actor.stop()
        return actor

    # -- news from elsewhere --------------------------------------------------------------

    def heard_from_owner(self, lease_ms: int) -> None:
        """The owner elsewhere just showed it is alive: trust it for half a lease."""
        self._owner_trusted_until = asyncio.get_running_loop().time() + lease_ms / 2000

    def remote_commit(self, commit: RemoteCommit, lease_ms: int) -> bool:
        """A version another process committed; False when it does not follow the one
        here (a message was missed): the table must be reloaded from the store."""
        version: int = commit.entry["v"]
        if version <= self.feed.record.version:
            return True  # our own commit's echo, or old news
        self.heard_from_owner(lease_ms)
        if self._actor is not None:
            log.warning(
                "table %s was committed by another process: dropping our actor", self.feed.table
            )
            self.lose()
        follows = version == self.feed.record.version + 1
        if follows:
            self.feed.apply_remote(commit.meta, commit.entry)
        self._lobby_news(commit.entry, TableStatus(commit.meta["status"]))
        return follows

    def reload(self, record: TableRecord) -> None:
        """Catch up with a record loaded from the store (when not run here)."""
        if self._actor is None:
            self.feed.reload(record)

    def _lobby_news(self, entry: LogEntry, status: TableStatus) -> None:
        if entry.get("k") == "seat" or status is not TableStatus.PLAYING:
            self._lobby_changed()
