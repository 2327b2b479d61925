"""Session: one WebSocket connection -- decode, validate, rate-limit, dispatch, send.

Theory of operation: ``run`` reads frames until the peer goes away.  Each frame is
decoded by the negotiated codec and validated against protocol v1; requests go to
the handlers below, which answer through :meth:`reply` / :meth:`fail`.  Requests that
need a table actor (``act``, ``join``…) do not block the read loop: the reply is sent
from the command future's callback, so every request gets exactly one reply.

Outbound traffic has two queues: *control* (replies and errors) goes first and is
bounded (a client that sends requests but never reads the replies is closed with
4000); then the latest lobby list, if one is pending (a newer one replaces it); then
*data* (snapshots, patches, events, presence) is bounded by ``Limits.outbound_queue``.
Whatever is queued during one turn of the event loop is written at the end of it by
one callback, straight to the transport (``write_now``) when it takes the frames
without waiting -- one frame for all of it under ``batch``; a writer task takes over
only when the transport is paused (a full buffer) or the connection is closing, so
the common case costs no task switch per frame.  When the data
queue overflows (a slow reader), everything pending in it is dropped and replaced
by one fresh snapshot per table, taken when the writer gets to it; a reader that
overflows too often is closed with 4000.  A message that cannot be encoded never
stops the writer: a reply becomes an ``internal_error`` reply, a push closes with 1011.

Every inbound frame has exactly one documented outcome (protocol/README.md "Close
codes" and "Limits"): a reply, or a close.  Per-connection limits (tables watched,
unused tables created, requests pending) are refused with an error, never by silence.
One connection per seat: a connection that presents a seat's token takes the seat
over, and the one that held it is closed with 4001.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from tablehub.protocol import (
    Codec,
    DecodeError,
    Frames,
    ProtocolError,
    schema_fingerprint,
    validate_inbound,
)
from tablehub.protocol.codec import (
    PROTOCOL_VERSION,
    EncodeError,
    action_problem,
    request_id_of,
)
from tablehub.server import metrics
from tablehub.server.config import Limits
from tablehub.server.sessions import batching
from tablehub.server.sessions.hub_api import HubApi, TableView
from tablehub.server.sessions.limits import TokenBucket, WindowCounter
from tablehub.server.tables.actor import Act, AddBot, Command, Join, Legal
from tablehub.server.tables.errors import TableError, unavailable
from tablehub.server.tables.journal import StoreUnavailable

log = logging.getLogger("tablehub.session")

SERVER_NAME = "tablehub/0.1"
SERVER_SIDE = frozenset({"overloaded", "unavailable", "internal_error"})
"""Error codes that say something about the server, not the request."""
_ids = itertools.count(1)

SendFrame = Callable[[bytes | str], Awaitable[None]]
WriteNow = Callable[[bytes | str], bool]
"""Write one frame without waiting if the transport takes it now; False if not."""
Close = Callable[[int, str], Awaitable[None]]


class SessionState(enum.Enum):
    OPEN = "open"  # accepted, waiting for hello
    READY = "ready"  # hello done
    CLOSED = "closed"


class Closing(Exception):
    """Close the connection with a WebSocket close code and reason."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class SeatHolders:
    """Which connection of this process holds each (table, seat): one live connection
    per seat.  Shared by the sessions of one hub process."""

    def __init__(self) -> None:
        self._holders: dict[tuple[str, int], Session] = {}

    def claim(self, table: str, seat: int, session: Session) -> Session | None:
        """Make ``session`` the seat's connection; the one it replaces, if any."""
        previous = self._holders.get((table, seat))
        self._holders[(table, seat)] = session
        return previous if previous is not session else None

    def release(self, table: str, seat: int, session: Session) -> None:
        if self._holders.get((table, seat)) is session:
            del self._holders[(table, seat)]


class Session:
    def __init__(
        self,
        hub: HubApi,
        codec: Codec,
        send: SendFrame,
        close: Close,
        limits: Limits,
        holders: SeatHolders | None = None,
        write_now: WriteNow | None = None,
    ) -> None:
        self.id = next(_ids)
        self.hub = hub
        self.codec = codec
        self._send = send
        self._write_now = write_now
        self._writer_idle = False  # the writer task waits for work (callbacks may write)
        self._write_due = False  # a write callback is scheduled for this loop turn
        self._unsent: bytes | str | None = None  # taken, refused by write_now: first out
        self._close = close
        self.limits = limits
        self.state = SessionState.OPEN
        self.name = ""
        self.seats: dict[str, int] = {}  # table -> seat held by this connection
        self.watching: dict[str, int | None] = {}  # table -> audience (seat or None)
        self._control: deque[bytes | str] = deque()
        self._lobby: Frames | None = None
        self._data: deque[tuple[str, int, Frames | None, str]] = deque()
        self._sent_version: dict[str, int | None] = {}
        self._wake = asyncio.Event()
        self._bucket = TokenBucket(limits.messages_per_second, limits.burst)
        self._errors = WindowCounter()
        self._overflows = WindowCounter()
        self._closing: Closing | None = None
        self._holders = holders if holders is not None else SeatHolders()
        self._pending = 0  # requests waiting for a table's answer
        self.created: set[str] = set()  # tables this connection created (may add bots)
        self._unused: list[str] = []  # of those, the ones nobody had sat at when last seen
        self._closed_tables: set[str] = set()  # tables whose table_closed was queued
        self._batching = False  # hello.caps named "batch": one frame per flush
        self._games: dict[str, str] = {}  # game id of each watched table (acts check it)

    # -- outbound --------------------------------------------------------------------

    def reply(self, request_id: Any, **fields: Any) -> None:
        self._push_control({"t": "ok", "id": request_id, **fields})

    def fail(self, request_id: Any, code: str, message: str, retry_ms: int | None = None) -> None:
        """An ``error`` reply; ``retry_ms`` (retryable errors) says when to try again."""
        metrics.counter_child(metrics.ERRORS, code).inc()
        msg = {"t": "error", "id": request_id, "code": code, "message": message}
        if retry_ms is not None:
            msg["retry_ms"] = retry_ms
        self._push_control(msg)
        if code in SERVER_SIDE:
            return  # the server's state, not the client's mistake: never held against it
        if self._errors.hit() > self.limits.max_errors_per_minute:
            self._abort(Closing(1008, "too many bad requests"))

    def _push_control(self, msg: dict[str, Any]) -> None:
        if self.state is SessionState.CLOSED:
            return
        if len(self._control) >= self.limits.control_queue:
            # Requests keep coming but their replies are not read: never grow for it.
            self._abort(Closing(4000, "slow consumer: replies are not being read"))
            return
        try:
            frame = self.codec.encode(msg)
        except EncodeError:
            log.exception("session %d: reply not encodable", self.id)
            metrics.ERRORS.labels("internal_error").inc()
            frame = self.codec.encode(
                {
                    "t": "error",
                    "id": msg.get("id"),
                    "code": "internal_error",
                    "message": "the server could not write its answer",
                }
            )
        self._control.append(frame)
        self._kick()

    def deliver_lobby(self, frames: Frames) -> None:
        """The latest table list replaces one not yet sent (lobby pushes never pile up)."""
        if self.state is SessionState.CLOSED:
            return
        self._lobby = frames
        self._kick()

    def deliver_closed(self, table: str, frames: Frames) -> None:
        """Queue a ``table_closed`` push (from the lobby, or the table's feed) once."""
        if self.state is SessionState.CLOSED or table in self._closed_tables:
            return
        self._closed_tables.add(table)
        self.watching.pop(table, None)
        self.seats.pop(table, None)
        self._sent_version.pop(table, None)
        self._data.append((table, -1, frames, "closed"))
        self._kick()

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        """Queue a table push (called by feeds; never blocks)."""
        if self.state is SessionState.CLOSED or self._closing is not None:
            return
        if table not in self.watching:
            return
        if kind == "closed":
            self.deliver_closed(table, frames)
            return
        if len(self._data) >= self.limits.outbound_queue:
            self._overflow()
            if kind in ("patch", "event"):
                return  # covered by the fresh snapshot
        self._data.append((table, version, frames, kind))
        self._kick()

    def _overflow(self) -> None:
        metrics.SNAPSHOT_FALLBACKS.inc()
        if self._overflows.hit() > self.limits.max_overflows_per_minute:
            self._abort(Closing(4000, "slow consumer"))
            return
        closed = [item for item in self._data if item[3] == "closed"]
        self._data.clear()
        self._data.extend(closed)  # a close notice is never covered by a snapshot
        for table in self.watching:
            self._data.append((table, -1, None, "refresh"))

    def _kick(self) -> None:
        """Something was queued: write it at the end of this loop turn, from a callback
        while the writer task is idle, else by the writer task."""
        if self._write_now is None or not self._writer_idle:
            self._wake.set()
        elif not self._write_due:
            self._write_due = True
            asyncio.get_running_loop().call_soon(self._write_queued)

    def _write_queued(self) -> None:
        """Write everything queued straight to the transport; hand over to the writer
        task what the transport does not take now (or anything, while closing)."""
        self._write_due = False
        if (
            not self._writer_idle
            or self._unsent is not None  # the writer has a refused frame to send first
            or self._closing is not None
            or self.state is SessionState.CLOSED
        ):
            self._wake.set()
            return
        assert self._write_now is not None
        try:
            while self._has_pending():
                frame = self._take_frame()
                if frame is not None and not self._write_now(frame):
                    self._unsent = frame
                    self._wake.set()
                    return
        except EncodeError:
            log.exception("session %d: push not encodable", self.id)
            self._abort(Closing(1011, "server error: a message could not be written"))

    def _take_frame(self) -> bytes | str | None:
        """The next frame to write: every queued message as one batch frame under
        ``batch``, else the next message's; None when that needs no frame any more."""
        if self._batching:
            batch = batching.collect(self._next_frame, self._has_pending)
            return batching.batch_frame(self.codec, batch) if batch else None
        return self._next_frame()

    async def writer(self) -> None:
        """Drain what the write callbacks could not: the queues, control first, then
        data, while the transport is paused; and the close.

        Ends when the peer is gone (the transport refuses frames) or after closing;
        a server message that cannot be encoded closes with 1011 instead of stopping
        the writer silently."""
        try:
            await self._write()
        except (OSError, RuntimeError):
            return  # the peer went away (uvicorn: ClientDisconnected, or closed already)
        except EncodeError:
            log.exception("session %d: push not encodable", self.id)
            await self._close(1011, "server error: a message could not be written")

    async def _write(self) -> None:
        while True:
            if self._unsent is not None:
                unsent, self._unsent = self._unsent, None
                await self._send(unsent)
            idle = not self._control and not self._data and self._lobby is None
            if idle and self._closing is None:
                self._wake.clear()
                self._writer_idle = True
                try:
                    await self._wake.wait()
                finally:
                    self._writer_idle = False
                continue
            if self._closing is not None:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.limits.close_flush_s):
                        while self._control:
                            await self._send(self._control.popleft())
                await self._close(self._closing.code, self._closing.reason)
                return
            frame = self._take_frame()
            if frame is not None:
                await self._send(frame)

    def _has_pending(self) -> bool:
        return bool(self._control or self._data) or self._lobby is not None

    def _next_frame(self) -> bytes | str | None:
        """Take the next queued message (replies, then the lobby, then table pushes);
        its frame, or None when it needs none any more."""
        if self._control:
            return self._control.popleft()
        if self._lobby is not None:
            lobby, self._lobby = self._lobby, None
            return lobby.encoded(self.codec)
        table, version, frames, kind = self._data.popleft()
        return self._data_frame(table, version, frames, kind)

    def _data_frame(
        self, table: str, version: int, frames: Frames | None, kind: str
    ) -> bytes | str | None:
        if kind == "closed":
            assert frames is not None
            return frames.encoded(self.codec)
        if table not in self.watching:
            return None
        sent = self._sent_version.get(table)  # None until a snapshot or catch-up went out
        if kind == "refresh":
            view = self.hub.loaded(table)
            if view is None:
                return None
            frames = view.snapshot(self.watching[table])
            version = view.version
            kind = "snapshot"
        assert frames is not None
        if kind == "snapshot":
            self._sent_version[table] = version
        elif kind == "patch":
            if frames.msg["from"] != sent:
                return None  # already covered by a later snapshot
            self._sent_version[table] = version
        metrics.counter_child(metrics.PUSHES, kind).inc()
        return frames.encoded(self.codec)

    def go_away(self, code: int, reason: str) -> None:
        """Close the connection on the server's behalf (e.g. 1012: reconnect elsewhere)
        once the replies already queued are written."""
        self._abort(Closing(code, reason))

    def _abort(self, closing: Closing) -> None:
        if self._closing is None:
            self._closing = closing
            self._wake.set()

    # -- inbound -----------------------------------------------------------------------

    async def handle_frame(self, frame: bytes | str) -> None:
        """One inbound frame; raises Closing when the frame itself breaks the protocol.

        After an abuse close was decided (1008, 4000) further frames are ignored while
        the writer flushes the pending replies and closes."""
        if self._closing is not None:
            return
        if self.codec.binary != isinstance(frame, bytes):
            raise Closing(
                1003,
                f"{'text' if self.codec.binary else 'binary'} frame "
                f"on the {self.codec.name} subprotocol",
            )
        if len(frame) > self.limits.max_frame_bytes:
            raise Closing(1009, "frame too large")
        # Errors are turned into values, never kept or re-raised from here: an exception
        # held by this frame would tie the frame (and ``frame``'s bytes) into a cycle
        # that only a full collection frees -- rare under the hub's GC settings.
        raw: Any = None
        refused: tuple[str, str] | None = None  # (code, message) for an error reply
        request_id: Any = None
        undecodable = ""
        try:
            raw = self.codec.decode(frame)
        except DecodeError as err:
            undecodable = str(err)
        except ProtocolError as err:  # too deep for the decoder: nothing of it is readable
            refused = (err.code, err.message)
        if undecodable:
            raise Closing(1007, undecodable)
        metrics.MESSAGES_IN.inc()
        if self.state is SessionState.OPEN and not (
            isinstance(raw, dict) and raw.get("t") == "hello"
        ):
            self.fail(request_id_of(raw), "hello_required", "the first message must be hello")
            return
        if refused is not None:
            self.fail(None, *refused)
            return
        try:
            msg = validate_inbound(raw)
        except ProtocolError as err:
            refused, request_id = (err.code, err.message), err.request_id
        if refused is not None:
            self.fail(request_id, *refused)
            return
        if not self._bucket.take():
            self.fail(msg["id"], "rate_limited", "too many messages; slow down")
            return
        kind = msg["t"]
        handler = getattr(self, f"on_{kind}")
        try:
            await handler(msg)
        except StoreUnavailable:
            self._fail_with(msg["id"], unavailable())
        except TableError as err:
            self._fail_with(msg["id"], err)

    def _fail_with(self, request_id: Any, err: TableError) -> None:
        self.fail(request_id, err.code, err.message, err.retry_ms)

    def _submit(self, table: str, command: Command) -> asyncio.Future[Any]:
        """Run a table command (here or at the owning process) without blocking reads.

        At most ``max_pending_requests`` wait at once (refused with rate_limited: the
        client may send it again once some replies arrived)."""
        if self._pending >= self.limits.max_pending_requests:
            raise TableError("rate_limited", "too many requests waiting for their answer")
        self._pending += 1
        future = asyncio.ensure_future(self.hub.submit(table, command))
        future.add_done_callback(self._settled)
        return future

    def _settled(self, future: asyncio.Future[Any]) -> None:
        self._pending -= 1

    def _answer(
        self, request_id: Any, future: asyncio.Future[Any], then: Callable[[Any], None]
    ) -> None:
        """Reply when a table command completes: ok (after ``then``) or its error."""

        def done(fut: asyncio.Future[Any]) -> None:
            if fut.cancelled():
                self.fail(request_id, "overloaded", "the server is shutting down; retry", 1000)
                return
            err = fut.exception()
            if err is None:
                then(fut.result())
            elif isinstance(err, TableError):
                self._fail_with(request_id, err)
            elif isinstance(err, StoreUnavailable):
                self._fail_with(request_id, unavailable())
            else:
                log.error("request %r failed: %r", request_id, err)
                self.fail(request_id, "internal_error", "internal error")

        future.add_done_callback(done)

    # -- handlers ------------------------------------------------------------------------

    async def on_hello(self, msg: dict[str, Any]) -> None:
        if self.state is not SessionState.OPEN:
            raise TableError("bad_message", "hello was already done on this connection")
        if msg["v"] != PROTOCOL_VERSION:
            raise TableError(
                "unsupported_version", f"this server speaks protocol v{PROTOCOL_VERSION}"
            )
        self.name = msg["name"]
        self.state = SessionState.READY
        self._batching = batching.CAPABILITY in msg.get("caps", ())
        resumed = []
        for item in msg.get("resume", []):
            resumed.append(await self._resume(item))
        self.reply(
            msg["id"],
            server=SERVER_NAME,
            v=PROTOCOL_VERSION,
            schema=schema_fingerprint(),
            session=str(self.id),
            resumed=resumed,
            rooms=self.hub.shared,
        )

    async def _resume(self, item: dict[str, Any]) -> dict[str, Any]:
        table = item["table"]
        try:
            if "token" in item:
                self._check_room(table)
                result = await self.hub.submit(
                    table, Join(self.name, item.get("seat"), item["token"])
                )
                self._hold(table, result["seat"])
                await self._rewatch(table, result["seat"], item.get("version"))
                return {"table": table, "seat": result["seat"], "ok": True}
            self._check_room(table)
            await self._rewatch(table, None, item.get("version"))
            return {"table": table, "seat": None, "ok": True}
        except TableError as err:
            return {"table": table, "seat": None, "ok": False, "code": err.code}

    async def on_ping(self, msg: dict[str, Any]) -> None:
        self.reply(msg["id"])

    async def on_list_games(self, msg: dict[str, Any]) -> None:
        self.reply(msg["id"], games=self.hub.games())

    async def on_list_tables(self, msg: dict[str, Any]) -> None:
        self.reply(msg["id"], tables=await self.hub.tables(msg.get("game")))

    async def on_subscribe_tables(self, msg: dict[str, Any]) -> None:
        if msg.get("unsubscribe"):
            self.hub.unsubscribe_lobby(self)
            self.reply(msg["id"])
            return
        self.hub.subscribe_lobby(self)
        self.reply(msg["id"], tables=await self.hub.tables())

    async def on_create_table(self, msg: dict[str, Any]) -> None:
        if len(self._unused) >= self.limits.max_unused_tables_per_connection:
            await self._forget_used_tables()
        if len(self._unused) >= self.limits.max_unused_tables_per_connection:
            raise TableError(
                "limit_reached",
                f"you already have {len(self._unused)} tables nobody has sat at yet: "
                "use or wait for those first",
            )
        table = await self.hub.create_table(
            msg["game"], msg["seats"], msg.get("options"), msg.get("name", ""), msg.get("key")
        )
        self.created.add(table)
        if table not in self._unused:  # a keyed retry answers a table made before
            self._unused.append(table)
        self.reply(msg["id"], table=table)

    async def _forget_used_tables(self) -> None:
        """Drop the tables someone has sat at (or that are gone) from ``_unused``."""
        still = []
        for table in self._unused:
            if await self.hub.unused(table):
                still.append(table)
        self._unused = still

    async def on_join(self, msg: dict[str, Any]) -> None:
        table = msg["table"]
        self._check_room(table)
        view = await self.hub.table(table)

        def joined(result: dict[str, Any]) -> None:
            self._hold(table, result["seat"])
            self.reply(msg["id"], seat=result["seat"], token=result["token"])
            self._watch(table, result["seat"], view)

        command = Join(self.name, msg.get("seat"), msg.get("token"), key=msg.get("key"))
        self._answer(msg["id"], self._submit(table, command), joined)

    async def on_add_bot(self, msg: dict[str, Any]) -> None:
        """Only the table's creator (this connection) or a player seated at it."""
        await self.hub.table(msg["table"])
        if msg["table"] not in self.seats and msg["table"] not in self.created:
            raise TableError(
                "unauthorized", "only the table's creator or a seated player may add bots"
            )
        future = self._submit(msg["table"], AddBot(msg.get("seat"), msg.get("level")))
        self._answer(msg["id"], future, lambda result: self.reply(msg["id"], seat=result["seat"]))

    async def on_spectate(self, msg: dict[str, Any]) -> None:
        table = msg["table"]
        self._check_room(table)
        view = await self.hub.table(table)
        self._unhold(table)
        self.reply(msg["id"], version=view.version)
        self._watch(table, None, view)

    async def on_act(self, msg: dict[str, Any]) -> None:
        table = msg["table"]
        seat = self.seats.get(table)
        if seat is None:
            raise TableError("unauthorized", "join this table (with your seat token) to act")
        if msg.get("seat", seat) != seat:
            raise TableError("unauthorized", f"you hold seat {seat}, not seat {msg['seat']}")
        game_id = self._games.get(table)
        if game_id is None:
            game_id = (await self.hub.table(table)).game_id
        # Junk never reaches the engine or the log (protocol/v1/games/<game>/action.json).
        problem = action_problem(game_id, msg["action"])
        if problem is not None:
            raise TableError("bad_action", problem)
        metrics.ACTS.inc()
        started = time.perf_counter()

        def acted(result: dict[str, Any]) -> None:
            metrics.ACT_LATENCY.observe(time.perf_counter() - started)
            self.reply(msg["id"], version=result["version"])

        command = Act(seat, msg["action"], key=msg.get("key"))
        self._answer(msg["id"], self._submit(table, command), acted)

    async def on_legal(self, msg: dict[str, Any]) -> None:
        table = msg["table"]
        seat = self.seats.get(table)
        if seat is None:
            raise TableError("unauthorized", "join this table to ask for your legal actions")
        # answered by the table's owner; with `partial`, the next step (protocol/README.md
        # "Staged legal")
        future = self._submit(table, Legal(seat, msg.get("partial")))
        self._answer(msg["id"], future, lambda result: self.reply(msg["id"], **result))

    async def on_resync(self, msg: dict[str, Any]) -> None:
        table = msg["table"]
        if table not in self.watching:
            raise TableError("unknown_table", "join or spectate this table first")
        view = await self.hub.table(table)
        self.reply(msg["id"], version=view.version)
        frames = await self.hub.catch_up(table, self.watching[table], msg.get("version", -1))
        self._sent_version[table] = frames.msg.get("from")
        self.deliver(table, view.version, frames, str(frames.msg["t"]))

    async def on_leave(self, msg: dict[str, Any]) -> None:
        table = msg["table"]
        self._unwatch(table)
        self._unhold(table)
        self.reply(msg["id"])

    # -- subscriptions ---------------------------------------------------------------------

    def _check_room(self, table: str) -> None:
        if (
            table not in self.watching
            and len(self.watching) >= self.limits.max_tables_per_connection
        ):
            raise TableError(
                "limit_reached",
                f"one connection may follow at most {self.limits.max_tables_per_connection} "
                "tables: leave one first",
            )

    def _hold(self, table: str, seat: int) -> None:
        """This connection now holds ``seat``; the one that held it is told and closed."""
        if self.seats.get(table) not in (None, seat):
            self._unhold(table)
        self.seats[table] = seat
        previous = self._holders.claim(table, seat, self)
        if previous is not None:
            previous.seat_taken_over(table, seat)

    def _unhold(self, table: str) -> None:
        seat = self.seats.pop(table, None)
        if seat is not None:
            self._holders.release(table, seat, self)

    def seat_taken_over(self, table: str, seat: int) -> None:
        """Another connection presented this seat's token: it has the seat now."""
        self.seats.pop(table, None)
        self._unwatch(table)
        self._abort(
            Closing(4001, f"seat {seat + 1} at table {table} was taken over by another connection")
        )

    def _watch(self, table: str, seat: int | None, view: TableView) -> None:
        """Subscribe to a table; a snapshot follows."""
        self.watching[table] = seat
        self._games[table] = view.game_id
        self._sent_version.pop(table, None)
        view.subscribe(self, seat)
        self.hub.presence_changed()

    async def _rewatch(self, table: str, seat: int | None, version: int | None) -> None:
        """Subscribe again after a reconnect: what was missed since ``version`` follows
        (one patch, or a snapshot).  Live patches queued meanwhile are dropped by the
        writer's version check, so nothing arrives twice or out of order."""
        if version is None:
            self._watch(table, seat, await self.hub.table(table))
            return
        view = await self.hub.table(table)
        self.watching[table] = seat
        self._games[table] = view.game_id
        self._sent_version.pop(table, None)
        view.subscribe(self, seat, send_snapshot=False)
        self.hub.presence_changed()
        frames = await self.hub.catch_up(table, seat, version)
        self._sent_version[table] = frames.msg.get("from")
        self.deliver(table, view.version, frames, str(frames.msg["t"]))

    def _unwatch(self, table: str) -> None:
        if self.watching.pop(table, "absent") == "absent":
            return
        self._games.pop(table, None)
        self._sent_version.pop(table, None)
        view = self.hub.loaded(table)
        if view is not None:
            view.unsubscribe(self)
        self.hub.presence_changed()

    def close_all(self) -> None:
        """The connection is gone: leave every table and the lobby."""
        self.state = SessionState.CLOSED
        for table in list(self.seats):
            self._unhold(table)
        for table in list(self.watching):
            self._unwatch(table)
        self.hub.unsubscribe_lobby(self)
        self._control.clear()
        self._data.clear()
