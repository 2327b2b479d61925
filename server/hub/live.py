"""A table as this process serves it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from tablehub.protocol import Frames
from tablehub.server.tables.actor import TableActor
from tablehub.server.tables.feed import Audience, Subscriber, TableFeed
from tablehub.server.tables.record import TableRecord


@dataclass
class LiveTable:
    """Always a feed; an actor when this process owns the table.

    Sessions see only what ``sessions.hub_api.TableView`` declares: the version, the
    game, a snapshot, and subscribing."""

    feed: TableFeed
    actor: TableActor | None = None
    owner_answered_until: float = 0.0
    """Loop time until which the table's owner elsewhere counts as alive: it answered
    a forwarded command, or its commit was mirrored here, less than half a lease ago
    (no takeover attempt before)."""

    def heard_from_owner(self, lease_ms: int) -> None:
        """The owner elsewhere just showed it is alive: trust it for half a lease."""
        self.owner_answered_until = asyncio.get_running_loop().time() + lease_ms / 2000

    @property
    def record(self) -> TableRecord:
        return self.actor.record if self.actor is not None else self.feed.record

    @property
    def version(self) -> int:
        """The version this process's watchers have been sent (or are being sent)."""
        return self.feed.record.version

    @property
    def game_id(self) -> str:
        return self.feed.game.id

    def snapshot(self, seat: Audience) -> Frames:
        return self.feed.snapshot(seat)

    def subscribe(self, sub: Subscriber, seat: Audience, send_snapshot: bool = True) -> None:
        self.feed.subscribe(sub, seat, send_snapshot)

    def unsubscribe(self, sub: Subscriber) -> None:
        self.feed.unsubscribe(sub)
