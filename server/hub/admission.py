"""Admission of table work while this process runs late (design.md "Overload").

Past its limit a hub would queue acts and answer them seconds later.  Instead, while
its event loop is late (``ops/loopwatch.py``), an ``act`` or ``legal`` is refused at
once with ``overloaded`` and a ``retry_ms`` that grows with the lag: it is neither run
nor remembered under its idempotency key, so the client's retry (same key) is run
anew, once.  Never refused: ``resign`` (leaving a game is always possible), ``join``,
and the table's own work (bot moves, deadlines).  Checked where a session submits a
command and, for a forwarded one, again at the table's owner.
"""

from __future__ import annotations

from tablehub.server import metrics
from tablehub.server.ops.loopwatch import LoopWatch
from tablehub.server.tables.actor import Act, Command, Legal
from tablehub.server.tables.errors import TableError


def admit(watch: LoopWatch, command: Command) -> None:
    """Raise ``overloaded`` (with ``retry_ms``) for an ``act`` or ``legal`` this process
    is too late to take now; anything else passes."""
    if isinstance(command, Act):
        if command.by != "player" or command.action.get("type") == "resign":
            return
        words = "this server is too busy to take moves just now; your move was not played"
    elif isinstance(command, Legal):
        words = "this server is too busy to answer just now"
    else:
        return
    retry_ms = watch.refuse_work()
    if retry_ms is None:
        return
    metrics.SHED.inc()
    raise TableError("overloaded", f"{words}: try again in a moment", retry_ms)
