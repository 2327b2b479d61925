"""The coordination bus: what several hub processes need to share tables.

Ownership (leases with fencing epochs), commands forwarded to a table's owner, the
fan-out of commits and presence to the other processes, and due turn deadlines.  This
base class is the single-process bus (``memory://``): this process owns every table
(epoch 0), nothing is forwarded and nothing arrives from elsewhere.  ``redis://``
implements it across processes (``redis_bus.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablehub.server.tables.journal import StoreError
from tablehub.server.tables.record import LogEntry


@dataclass(frozen=True)
class RemoteCommit:
    """A commit made by another process: the record without its state, and the entry."""

    meta: dict[str, Any]
    entry: LogEntry


class Bus:
    multi_process = False
    lease_ms = 0
    """How long a table's lease outlives its owner's last renewal (0: no leases)."""
    process_id = "local"

    def __init__(self) -> None:
        self.lost_lease: Callable[[str], None] = lambda table: None
        """Called with a table's id when this process lost its lease on it."""

    async def start(self) -> None:
        """Start listening (if needed)."""

    async def close(self) -> None:
        """Stop listening and give up every lease held."""

    # -- ownership ----------------------------------------------------------------------

    @property
    def refusing_tables(self) -> str | None:
        """Why this process should refuse new work now (it is running late), or None."""
        return None

    async def acquire(self, table: str) -> int | None:
        """Take ownership of a table; its fencing epoch, or None if another owns it."""
        return 0

    async def release(self, table: str, epoch: int) -> None:
        """Give ownership up (shutdown, table finished)."""

    async def due_deadlines(self, now_ms: int) -> list[str]:
        """Tables whose turn deadline has passed (multi-process only)."""
        return []

    # -- fan-out --------------------------------------------------------------------------

    async def watch(self, table: str, on_commit: Callable[[RemoteCommit], None]) -> None:
        """Call ``on_commit`` for commits of ``table`` made by other processes."""

    async def unwatch(self, table: str) -> None:
        """Stop watching (commits and presence)."""

    async def latest_versions(self, tables: list[str]) -> dict[str, int]:
        """Committed versions (to notice missed fan-out messages); a deleted table has none."""
        return {}

    # -- forwarding -----------------------------------------------------------------------

    async def forward(self, table: str, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command to the table's owner; its reply ({"ok": …} or {"error": …})."""
        raise StoreError("a single-process store never forwards")

    async def serve_inbox(self, table: str, handler: Callable[[dict[str, Any]], Any]) -> None:
        """Accept commands forwarded by other processes for a table this process owns:
        ``handler`` answers each (``{"ok": …}`` or ``{"error": …}``), or returns None
        to leave it to the table's owner elsewhere."""

    def stop_serving(self, table: str) -> None:
        """Accept no more forwarded commands for ``table`` (its actor here stopped)."""

    async def unheard(self, table: str) -> bool:
        """Commands forwarded for ``table`` went unanswered while its owner keeps its
        lease: ask the owner to give the table up (at its next renewal), so that this
        process can take it over; whether a lease was there to mark."""
        return False

    # -- presence -------------------------------------------------------------------------

    async def set_presence(self, table: str, presence: dict[str, Any]) -> None:
        """Publish this process's presence for a table."""

    async def presence(self, table: str) -> list[dict[str, Any]]:
        """Presence published by every live process (multi-process only)."""
        return []

    async def listen_presence(self, table: str, listener: Callable[[], None]) -> None:
        """Call ``listener`` when another process's presence for ``table`` changes."""
