"""Admission of table work while this process runs late (design.md "Overload").

Past its limit a hub would queue acts and answer them seconds later.  Instead, while
its event loop is late (``ops/loopwatch.py``) or every move waits in a standing queue
(``ops/sojourn.py``), an ``act`` or ``legal`` is refused at once with ``overloaded``
and a ``retry_ms`` that grows with the delay: it is neither run
nor remembered under its idempotency key, so the client's retry (same key) is run
anew, once.  Never refused: ``resign`` (leaving a game is always possible), ``join``,
and the table's own work (bot moves, deadlines).  Checked where a session submits a
command and, for a forwarded one, again at the table's owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tablehub.server import metrics
from tablehub.server.tables.core import Act, Command, Legal
from tablehub.server.tables.errors import TableError


class Overload(Protocol):
    def refusing_moves(self) -> int | None:
        """The ``retry_ms`` to refuse a move with now, or None to take it."""


def _refusal(command: Command) -> str | None:
    """For an ``act`` or ``legal`` that may be refused, what a refusal says; else None."""
    if isinstance(command, Act):
        if command.by != "player" or command.action.get("type") == "resign":
            return None
        return "this server is too busy to take moves just now; your move was not played"
    if isinstance(command, Legal):
        return "this server is too busy to answer just now"
    return None


def admit(signals: Sequence[Overload], command: Command) -> bool:
    """Raise ``overloaded`` (with the longest ``retry_ms`` of the signals) for an
    ``act`` or ``legal`` this process should not take now.  True when the command is a
    player's move that was taken -- the work the sojourn signal times; a ``legal`` is
    not timed: answered at once at an idle table, it would tell the signal that nothing
    waits while acts stand in a queue -- False for anything else."""
    words = _refusal(command)
    if words is None:
        return False
    hints = [hint for signal in signals if (hint := signal.refusing_moves()) is not None]
    if not hints:
        return isinstance(command, Act)
    metrics.REFUSED.inc()
    raise TableError("overloaded", f"{words}: try again in a moment", max(hints))
