"""What a session may ask of the hub, and of a table: the whole interface.

A session never reaches into a table's feed, actor or record: it reads the version and
the game of a table, subscribes to it, and sends every command (``legal`` included) to
the hub, which routes it to the table's owner and calls back with the answer.
"""

from __future__ import annotations

from typing import Any, Protocol

from tablehub.protocol import Frames
from tablehub.server.hub.lobby import LobbySubscriber
from tablehub.server.tables.actor import Answer
from tablehub.server.tables.core import Command
from tablehub.server.tables.feed import Audience, Subscriber


class TableView(Protocol):
    @property
    def version(self) -> int:
        """The version this process's watchers have been sent."""
        ...

    @property
    def game_id(self) -> str: ...

    def snapshot(self, seat: Audience) -> Frames: ...

    def subscribe(self, sub: Subscriber, seat: Audience, send_snapshot: bool = True) -> None:
        """Add (or move) a watcher; a snapshot follows unless ``send_snapshot`` is off."""
        ...

    def unsubscribe(self, sub: Subscriber) -> None: ...


class ReplaySource(Protocol):
    """Finished games and replays (``hub/replays.py``): who may see what is decided there."""

    async def record(self, table_id: str) -> dict[str, Any]: ...

    async def replay(
        self,
        table_id: str,
        seat: int | None,
        first: int,
        held: int | None,
        all_seeing: bool = False,
    ) -> dict[str, Any]: ...


class HubApi(Protocol):
    @property
    def replays(self) -> ReplaySource:
        """Game records and replays of stored tables."""
        ...

    @property
    def shared(self) -> bool:
        """Whether other hub processes serve this hub's tables too (a shared store)."""
        ...

    def games(self) -> list[dict[str, Any]]: ...

    async def tables(self, game_id: str | None = None) -> list[dict[str, Any]]:
        """The lobby lines (of one game, or all)."""
        ...

    def subscribe_lobby(self, sub: LobbySubscriber) -> None: ...

    def unsubscribe_lobby(self, sub: LobbySubscriber) -> None: ...

    def presence_changed(self) -> None:
        """A session started or stopped watching a table: the lobby may change."""
        ...

    async def create_table(
        self,
        game_id: str,
        seats: int,
        options: dict[str, Any] | None,
        name: str = "",
        key: str | None = None,
    ) -> str: ...

    async def table(self, table_id: str) -> TableView:
        """The table (loaded if needed); ``TableError("unknown_table")`` if none."""
        ...

    def loaded(self, table_id: str) -> TableView | None:
        """The table if this process serves it now, without loading it."""
        ...

    def send(self, table_id: str, command: Command, answer: Answer) -> None:
        """Run a command at the table's owner; ``answer`` gets its result or a
        ``TableError``, exactly once (at once, or later)."""
        ...

    async def submit(self, table_id: str, command: Command) -> Any:
        """:meth:`send`, awaited: its result, or a ``TableError``."""
        ...

    async def unused(self, table_id: str) -> bool:
        """Whether the table still exists and nobody has sat at it."""
        ...

    async def catch_up(self, table_id: str, seat: Audience, version: int) -> Frames:
        """One patch from ``version`` to now, or a snapshot."""
        ...
