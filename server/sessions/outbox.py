"""A connection's outbound queue: what to write next, in the documented order, bounded.

Plain code, no I/O: the session puts messages in, the connection takes frames out
(:meth:`Outbox.take`) whenever its transport accepts data.  Three parts, written in
this order (protocol/README.md "Order of replies and pushes", "Slow readers"):

* *control* -- replies and errors -- always first; bounded by ``Limits.control_queue``
  (a client that sends requests but never reads the replies is closed with 4000);
* the latest *lobby* list, if one is pending (a newer one replaces it);
* *data* -- snapshots, patches, events, presence, ``table_closed`` -- bounded by
  ``Limits.outbound_queue``.  When it overflows (a slow reader), every pending push is
  dropped and replaced by one fresh snapshot per table, taken when it is written
  (the snapshot given to :meth:`Outbox.take`); a reader that overflows more than
  ``max_overflows_per_minute`` times is closed with 4000 instead.

A table's pushes carry versions: a patch whose ``from`` is not the version last written
for that table was covered by a later snapshot and is skipped, so nothing arrives twice
or out of order.  Under ``batch`` (hello's capability) everything pending goes out as
one frame, assembled from the frames as already encoded (``batching``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from tablehub.protocol import Codec, Frames
from tablehub.server import metrics
from tablehub.server.config import Limits
from tablehub.server.sessions import batching
from tablehub.server.sessions.limits import WindowCounter

Push = tuple[str, int, Frames | None, str]
"""(table, version, frames, kind); kind is snapshot | patch | event | presence | closed
| refresh (a snapshot to take when written, frames None)."""

Snapshot = Callable[[str], tuple[int, Frames] | None]
"""The current snapshot of a followed table for this connection: (version, frames)."""


class Outbox:
    __slots__ = (
        "_control",
        "_data",
        "_lobby",
        "_overflows",
        "_sent",
        "batching",
        "codec",
        "limits",
    )

    def __init__(self, codec: Codec, limits: Limits) -> None:
        self.codec = codec
        self.limits = limits
        self.batching = False
        self._control: deque[bytes | str] = deque()
        self._lobby: Frames | None = None
        self._data: deque[Push] = deque()
        self._sent: dict[str, int | None] = {}
        """Followed tables -> the version last written (None before the first push)."""
        self._overflows = WindowCounter()

    # -- following tables -----------------------------------------------------------------

    def follow(self, table: str, written: int | None = None) -> None:
        """Take ``table``'s pushes from now on (``written``: the version the client has)."""
        self._sent[table] = written

    def unfollow(self, table: str) -> None:
        self._sent.pop(table, None)

    def following(self, table: str) -> bool:
        return table in self._sent

    # -- putting in --------------------------------------------------------------------

    def control(self, frame: bytes | str) -> bool:
        """Queue a reply; False when the replies are not being read (close 4000)."""
        if len(self._control) >= self.limits.control_queue:
            return False
        self._control.append(frame)
        return True

    def lobby(self, frames: Frames) -> None:
        self._lobby = frames

    def push(self, table: str, version: int, frames: Frames | None, kind: str) -> bool:
        """Queue a push of a followed table; False when this reader overflowed too often
        (close 4000)."""
        if len(self._data) >= self.limits.outbound_queue:
            if not self.refresh():
                return False
            if kind in ("patch", "event"):
                return True  # covered by the fresh snapshot
        self._data.append((table, version, frames, kind))
        return True

    def closed(self, table: str, frames: Frames) -> None:
        """The table is gone: its ``table_closed`` push, and no more of its pushes."""
        self._sent.pop(table, None)
        self._data.append((table, -1, frames, "closed"))

    def refresh(self) -> bool:
        """Replace the pending pushes with a fresh snapshot of every followed table (an
        overflow, or a reader that fell too far behind); False when this reader
        overflowed too often (close 4000)."""
        metrics.SNAPSHOT_FALLBACKS.inc()
        if self._overflows.hit() > self.limits.max_overflows_per_minute:
            return False
        closed = [item for item in self._data if item[3] == "closed"]
        self._data.clear()
        self._data.extend(closed)  # a close notice is never covered by a snapshot
        for table in self._sent:
            self._data.append((table, -1, None, "refresh"))
        return True

    def clear(self) -> None:
        self._control.clear()
        self._data.clear()
        self._lobby = None
        self._sent.clear()

    # -- taking out --------------------------------------------------------------------

    @property
    def pushes_queued(self) -> int:
        return len(self._data)

    @property
    def pending(self) -> bool:
        return bool(self._control or self._data) or self._lobby is not None

    def take_control(self) -> bytes | str | None:
        """The next queued reply (a closing connection writes only those)."""
        return self._control.popleft() if self._control else None

    def take(self, snapshot: Snapshot) -> bytes | str | None:
        """The next frame to write: everything pending as one batch frame under
        ``batching``, else the next message's; None when that needs no frame any more.
        ``snapshot`` gives the fresh snapshots that replace an overflowed backlog."""
        if self.batching:
            batch = batching.collect(lambda: self._next_frame(snapshot), lambda: self.pending)
            return batching.batch_frame(self.codec, batch) if batch else None
        return self._next_frame(snapshot)

    def _next_frame(self, snapshot: Snapshot) -> bytes | str | None:
        if self._control:
            return self._control.popleft()
        if self._lobby is not None:
            lobby, self._lobby = self._lobby, None
            return lobby.encoded(self.codec)
        table, version, frames, kind = self._data.popleft()
        if kind == "closed":
            assert frames is not None
            return frames.encoded(self.codec)
        if table not in self._sent:
            return None
        if kind == "refresh":
            fresh = snapshot(table)
            if fresh is None:
                return None
            version, frames = fresh
            kind = "snapshot"
        assert frames is not None
        if kind == "snapshot":
            self._sent[table] = version
        elif kind == "patch":
            if frames.msg["from"] != self._sent[table]:
                return None  # already covered by a later snapshot
            self._sent[table] = version
        metrics.counter_child(metrics.PUSHES, kind).inc()
        return frames.encoded(self.codec)
