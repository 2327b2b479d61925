"""Session: the protocol of one connection, sans I/O (in the manner of websockets'
``ServerProtocol``).

Theory of operation: the connection hands every inbound frame to :meth:`Session.receive`
and writes whatever the session's :class:`Outbox` holds; the session never touches a
socket, a task or a future.  A frame goes through the :class:`Gate` (decoding, ``hello``
first, the schemas, the rate limit), then the dispatch table (:data:`HANDLERS`), whose
handlers answer with :meth:`reply` / :meth:`fail`.  Table commands go to the hub with a
callback (``HubApi.send``): when this process runs the table, the act is decided,
committed and answered within the same pass, and the reply is queued from the
callback.  Only requests that wait for I/O (a table to load, the store's listing, a
resume) run as a coroutine, handed to the connection (:meth:`Link.run`).

Every inbound frame has exactly one documented outcome (protocol/README.md "Close
codes" and "Limits"): a reply, or a close.  Per-connection limits (tables followed,
unused tables created, requests pending) are refused with an error, never by silence.
One connection per seat: a connection that presents a seat's token takes the seat
over, and the one that held it is closed with 4001.
"""

from __future__ import annotations

import enum
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from tablehub.protocol import Codec, Frames, schema_fingerprint
from tablehub.protocol.codec import PROTOCOL_VERSION, EncodeError, action_problem
from tablehub.protocol.legal import PLAIN
from tablehub.server import metrics
from tablehub.server.config import Limits
from tablehub.server.ops.faults import client_fault
from tablehub.server.sessions import batching
from tablehub.server.sessions.gate import Close, Gate, Refusal
from tablehub.server.sessions.hub_api import HubApi, TableView
from tablehub.server.sessions.limits import WindowCounter
from tablehub.server.sessions.outbox import Outbox
from tablehub.server.sessions.refusal import SessionRefusal
from tablehub.server.tables.core import Act, AddBot, Command, Join, Legal
from tablehub.server.tables.errors import TableError, unavailable
from tablehub.server.tables.journal import StoreUnavailable
from tablehub.server.tables.legal_cache import ok_frame

log = logging.getLogger("tablehub.session")

SERVER_NAME = "tablehub/0.1"
CLOSE_FAULTS = {
    1003: "sent a frame of the wrong kind",
    1007: "sent a frame that is not valid msgpack or JSON",
    1009: "sent a frame that is too large",
}
"""The gate's closes, in words for the log."""
SERVER_SIDE = frozenset({"overloaded", "unavailable", "internal_error"})
"""Error codes that say something about the server, not the request."""
REPLAYS_AT_ONCE = 2
"""``record`` and ``replay`` requests one connection may have under way (the hub also
bounds them all: hub/replays.py ``Builds``)."""
REPLAY_RETRY_MS = 500
_ids = itertools.count(1)

Message = dict[str, Any]


class Link(Protocol):
    """What a session asks of its connection."""

    def wake(self) -> None:
        """Frames are queued in the outbox: write them (at the end of this loop turn)."""

    def close(self, code: int, reason: str) -> None:
        """Write the queued replies, then close with ``code``."""

    def run(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run a request that waits for I/O; its failure is the session's to report."""


class SessionState(enum.Enum):
    OPEN = "open"  # accepted, waiting for hello
    READY = "ready"  # hello done
    CLOSED = "closed"


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
        limits: Limits,
        link: Link,
        holders: SeatHolders | None = None,
    ) -> None:
        self.id = next(_ids)
        self.hub = hub
        self.codec = codec
        self.limits = limits
        self.link = link
        self.gate = Gate(codec, limits)
        self.out = Outbox(codec, limits)
        self.state = SessionState.OPEN
        self.closing: tuple[int, str] | None = None
        """The close decided (code, reason): further frames are ignored."""
        self.name = ""
        self.seats: dict[str, int] = {}  # table -> seat held by this connection
        self.watching: dict[str, int | None] = {}  # table -> audience (seat or None)
        self._games: dict[str, str] = {}  # game id of each followed table (acts check it)
        self._errors = WindowCounter()
        self._holders = holders if holders is not None else SeatHolders()
        self._pending = 0  # requests waiting for a table's answer
        self._replaying = 0  # record and replay requests under way (REPLAYS_AT_ONCE)
        self.created: set[str] = set()  # tables this connection created (may add bots)
        self._unused: list[str] = []  # of those, the ones nobody had sat at when last seen
        self._closed_tables: set[str] = set()  # tables whose table_closed was queued

    # -- inbound -----------------------------------------------------------------------

    def receive(self, frame: bytes | str) -> None:
        """One inbound frame: its reply, its request to the hub, or a close."""
        if self.closing is not None or self.state is SessionState.CLOSED:
            return
        verdict = self.gate.check(frame, self.state is SessionState.READY)
        if isinstance(verdict, Close):
            client_fault(CLOSE_FAULTS.get(verdict.code, "broke the protocol"), verdict.reason)
            self.close(verdict.code, verdict.reason)
            return
        metrics.MESSAGES_IN.inc()
        if isinstance(verdict, Refusal):
            self.fail(verdict.request_id, verdict.code, verdict.message)
            return
        request_id = verdict["id"]
        try:
            HANDLERS[verdict["t"]](self, verdict)
        except (TableError, SessionRefusal) as err:
            self._fail_with(request_id, err)
        except StoreUnavailable:
            self._fail_with(request_id, unavailable())

    def _later(self, request_id: Any, work: Callable[[], Awaitable[None]]) -> None:
        """Run a request that waits for I/O; its refusal is its error reply, a server
        fault is logged and closes the connection with 1011."""

        async def guarded() -> None:
            try:
                await work()
            except (TableError, SessionRefusal) as err:
                self._fail_with(request_id, err)
            except StoreUnavailable:
                self._fail_with(request_id, unavailable())
            except Exception:
                log.exception("session %d: request %r failed", self.id, request_id)
                self.close(1011, "server error")

        self.link.run(guarded)

    # -- outbound --------------------------------------------------------------------

    def reply(self, request_id: Any, **fields: Any) -> None:
        self._control({"t": "ok", "id": request_id, **fields})

    def fail(self, request_id: Any, code: str, message: str, retry_ms: int | None = None) -> None:
        """An ``error`` reply; ``retry_ms`` (retryable errors) says when to try again."""
        metrics.counter_child(metrics.ERRORS, code).inc()
        msg = {"t": "error", "id": request_id, "code": code, "message": message}
        if retry_ms is not None:
            msg["retry_ms"] = retry_ms
        self._control(msg)
        if code in SERVER_SIDE:
            return  # the server's state, not the client's mistake: never held against it
        if self._errors.hit() > self.limits.max_errors_per_minute:
            self.close(1008, "too many bad requests")

    def _fail_with(self, request_id: Any, err: TableError | SessionRefusal) -> None:
        self.fail(request_id, err.code, err.message, err.retry_ms)

    def _control(self, msg: Message) -> None:
        if self.state is SessionState.CLOSED:
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
        self._queue_control(frame)

    def reply_result(self, request_id: Any, result: dict[str, Any]) -> None:
        """An ``ok`` carrying a command's result (``legal``), its fields' encoding
        reused when the table kept it (tables/legal_cache.py)."""
        try:
            frame = ok_frame(result, self.codec, request_id)
        except EncodeError:
            self.reply(request_id, **result)  # says why, in the log and to the client
            return
        self._queue_control(frame)

    def _queue_control(self, frame: bytes | str) -> None:
        """Queue an encoded reply (unless the connection is closed)."""
        if self.state is SessionState.CLOSED:
            return
        if not self.out.control(frame):
            # Requests keep coming but their replies are not read: never grow for it.
            self.close(4000, "slow consumer: replies are not being read")
            return
        self.link.wake()

    def deliver_lobby(self, frames: Frames) -> None:
        """The latest table list replaces one not yet sent (lobby pushes never pile up)."""
        if self.state is SessionState.CLOSED:
            return
        self.out.lobby(frames)
        self.link.wake()

    def deliver_closed(self, table: str, frames: Frames) -> None:
        """Queue a ``table_closed`` push (from the lobby, or the table's feed) once."""
        if self.state is SessionState.CLOSED or table in self._closed_tables:
            return
        self._closed_tables.add(table)
        self.watching.pop(table, None)
        self._games.pop(table, None)
        self.seats.pop(table, None)
        self.out.closed(table, frames)
        self.link.wake()

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        """Queue a table push (called by feeds; never blocks)."""
        if self.state is SessionState.CLOSED or self.closing is not None:
            return
        if table not in self.watching:
            return
        if kind == "closed":
            self.deliver_closed(table, frames)
            return
        if not self.out.push(table, version, frames, kind):
            self.close(4000, "slow consumer")
            return
        self.link.wake()

    def fell_behind(self) -> None:
        """The connection has not taken a byte for ``Limits.stale_after_s``: what is
        pending is replaced by a fresh snapshot per table (or, too often, close 4000)."""
        if self.closing is not None or self.state is SessionState.CLOSED:
            return
        if not self.out.refresh():
            self.close(4000, "slow consumer")

    def fresh_snapshot(self, table: str) -> tuple[int, Frames] | None:
        """The current snapshot of a followed table (the outbox's refresh after an
        overflow): (version, frames), or None when it is not followed any more."""
        view = self.hub.loaded(table)
        if view is None or table not in self.watching:
            return None
        frames = view.snapshot(self.watching[table])
        return frames.msg["version"], frames  # a delayed table's spectators: theirs

    def close(self, code: int, reason: str) -> None:
        """Close the connection once the replies already queued are written (1008,
        4000, 4001, 1012 on the server's behalf; 1003, 1007, 1009 for a bad frame)."""
        if self.closing is None and self.state is not SessionState.CLOSED:
            self.closing = (code, reason)
            self.link.close(code, reason)

    def closed(self) -> None:
        """The connection is gone: leave every table and the lobby."""
        if self.state is SessionState.CLOSED:
            return
        self.state = SessionState.CLOSED
        for table in list(self.seats):
            self._unhold(table)
        for table in list(self.watching):
            self._unwatch(table)
        self.hub.unsubscribe_lobby(self)
        self.out.clear()

    # -- table commands --------------------------------------------------------------

    def _send(self, request_id: Any, table: str, command: Command, done: Done) -> None:
        """Run a table command (here or at the owning process): ``done`` gets its
        result (:data:`REPLY_VERSION`, :data:`REPLY_RESULT`: the usual ``ok``), an error
        is the request's error reply.

        At most ``max_pending_requests`` wait at once (refused with rate_limited: the
        client may send it again once some replies arrived)."""
        if self._pending >= self.limits.max_pending_requests:
            raise SessionRefusal("rate_limited", "too many requests waiting for their answer")
        self._pending += 1
        self.hub.send(table, command, _Answer(self, request_id, done))

    def _send_now(self, request_id: Any, table: str, command: Command, done: Done) -> None:
        """:meth:`_send` from a callback: a refusal is the request's error reply."""
        try:
            self._send(request_id, table, command, done)
        except (TableError, SessionRefusal) as err:
            self._fail_with(request_id, err)

    # -- handlers ------------------------------------------------------------------------

    def on_hello(self, msg: Message) -> None:
        if self.state is not SessionState.OPEN:
            raise SessionRefusal("bad_message", "hello was already done on this connection")
        if msg["v"] != PROTOCOL_VERSION:
            raise SessionRefusal(
                "unsupported_version", f"this server speaks protocol v{PROTOCOL_VERSION}"
            )
        self.name = msg["name"]
        self.state = SessionState.READY
        self.out.batching = batching.CAPABILITY in msg.get("caps", ())
        items = msg.get("resume", [])
        if not items:
            self._hello_reply(msg["id"], [])
            return

        async def resume() -> None:
            resumed = [await self._resume(item) for item in items]
            self._hello_reply(msg["id"], resumed)

        self._later(msg["id"], resume)

    def _hello_reply(self, request_id: Any, resumed: list[dict[str, Any]]) -> None:
        self.reply(
            request_id,
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
            self._check_room(table)
            seat = None
            if "token" in item:
                result = await self.hub.submit(
                    table, Join(self.name, item.get("seat"), item["token"])
                )
                seat = result["seat"]
                self._hold(table, seat)
            await self._rewatch(table, seat, item.get("version"))
            return {"table": table, "seat": seat, "ok": True}
        except (TableError, SessionRefusal) as err:
            failed = {"table": table, "seat": None, "ok": False, "code": err.code}
            if err.retry_ms is not None:  # the store away, say: join with the token later
                failed["retry_ms"] = err.retry_ms
            return failed

    def on_ping(self, msg: Message) -> None:
        self.reply(msg["id"])

    def on_list_games(self, msg: Message) -> None:
        self.reply(msg["id"], games=self.hub.games())

    def on_list_tables(self, msg: Message) -> None:
        async def listed() -> None:
            self.reply(msg["id"], tables=await self.hub.tables(msg.get("game")))

        self._later(msg["id"], listed)

    def on_subscribe_tables(self, msg: Message) -> None:
        if msg.get("unsubscribe"):
            self.hub.unsubscribe_lobby(self)
            self.reply(msg["id"])
            return
        self.hub.subscribe_lobby(self)
        self.on_list_tables({"id": msg["id"]})

    def on_create_table(self, msg: Message) -> None:
        async def create() -> None:
            if len(self._unused) >= self.limits.max_unused_tables_per_connection:
                await self._forget_used_tables()
            if len(self._unused) >= self.limits.max_unused_tables_per_connection:
                raise SessionRefusal(
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

        self._later(msg["id"], create)

    async def _forget_used_tables(self) -> None:
        """Drop the tables someone has sat at (or that are gone) from ``_unused``."""
        still = []
        for table in self._unused:
            if await self.hub.unused(table):
                still.append(table)
        self._unused = still

    def _with_table(self, request_id: Any, table: str, then: Callable[[TableView], None]) -> None:
        """``then(view)`` at once when the table is loaded here, else once it is."""
        view = self.hub.loaded(table)
        if view is not None:
            then(view)
            return

        async def load() -> None:
            then(await self.hub.table(table))

        self._later(request_id, load)

    def on_join(self, msg: Message) -> None:
        table = msg["table"]
        self._check_room(table)

        def loaded(view: TableView) -> None:
            def joined(result: dict[str, Any]) -> None:
                self._hold(table, result["seat"])
                self.reply(msg["id"], seat=result["seat"], token=result["token"])
                self._watch(table, result["seat"], view)

            command = Join(self.name, msg.get("seat"), msg.get("token"), key=msg.get("key"))
            self._send_now(msg["id"], table, command, joined)

        self._with_table(msg["id"], table, loaded)

    def on_add_bot(self, msg: Message) -> None:
        """Only the table's creator (this connection) or a player seated at it."""
        table = msg["table"]

        def loaded(view: TableView) -> None:
            if table not in self.seats and table not in self.created:
                self.fail(
                    msg["id"],
                    "unauthorized",
                    "only the table's creator or a seated player may add bots",
                )
                return
            command = AddBot(msg.get("seat"), msg.get("level"))
            self._send_now(
                msg["id"], table, command, lambda result: self.reply(msg["id"], seat=result["seat"])
            )

        self._with_table(msg["id"], table, loaded)

    def on_spectate(self, msg: Message) -> None:
        table = msg["table"]
        self._check_room(table)

        def loaded(view: TableView) -> None:
            self._unhold(table)
            # the version spectators see (a table may delay them: never a newer one)
            self.reply(msg["id"], version=view.snapshot(None).msg["version"])
            self._watch(table, None, view)

        self._with_table(msg["id"], table, loaded)

    def on_act(self, msg: Message) -> None:
        table = msg["table"]
        seat = self.seats.get(table)
        if seat is None:
            self._unseated(msg["id"], table, "join this table (with your seat token) to act")
            return
        if msg.get("seat", seat) != seat:
            raise SessionRefusal(
                "unauthorized", f"you hold seat {seat + 1}, not seat {msg['seat'] + 1}"
            )
        game_id = self._games.get(table)
        if game_id is None:
            view = self.hub.loaded(table)
            if view is None:
                raise SessionRefusal("unknown_table", f"no table {table!r} here any more")
            game_id = view.game_id
        # Junk never reaches the engine or the log (protocol/v1/games/<game>/action.json).
        problem = action_problem(game_id, msg["action"])
        if problem is not None:
            raise SessionRefusal("bad_action", problem)
        metrics.ACTS.inc()
        self._send(msg["id"], table, Act(seat, msg["action"], key=msg.get("key")), REPLY_VERSION)

    def on_legal(self, msg: Message) -> None:
        table = msg["table"]
        seat = self.seats.get(table)
        if seat is None:
            self._unseated(msg["id"], table, "join this table to ask for your legal actions")
            return
        # answered by the table's owner; with `partial`, the next step (protocol/README.md
        # "Staged legal"); `form` "compact" asks for the grouped list ("Compact legal"),
        # "grid" for positions as bit masks ("Grid legal"), "layered" for masks that may
        # stack layers ("Layered grid legal"); the schema checked its value
        command = Legal(seat, msg.get("partial"), msg.get("form", PLAIN))
        self._send(msg["id"], table, command, REPLY_RESULT)

    def _unseated(self, request_id: Any, table: str, words: str) -> None:
        """A seat's request from a connection not seated there: ``unauthorized``, or
        ``unknown_table`` when there is no such table (the error catalogue)."""
        if self.hub.loaded(table) is not None:
            raise SessionRefusal("unauthorized", words)

        async def refuse() -> None:
            await self.hub.table(table)  # unknown_table when there is none
            raise SessionRefusal("unauthorized", words)

        self._later(request_id, refuse)

    def on_resync(self, msg: Message) -> None:
        table = msg["table"]
        if table not in self.watching:
            raise SessionRefusal("unknown_table", "join or spectate this table first")

        async def resync() -> None:
            view = await self.hub.table(table)
            frames = await self.hub.catch_up(table, self.watching[table], msg.get("version", -1))
            # the version the push brings the client to (delayed spectators: theirs)
            self.reply(msg["id"], version=frames.msg.get("to", frames.msg.get("version")))
            self._catch_up(table, view.version, frames)

        self._later(msg["id"], resync)

    def on_record(self, msg: Message) -> None:
        async def recorded() -> None:
            self.reply(msg["id"], record=await self.hub.replays.record(msg["table"]))

        self._replaying_later(msg["id"], recorded)

    def on_replay(self, msg: Message) -> None:
        """A table's views version by version (hub/replays.py says whose may be seen)."""
        table = msg["table"]
        seat = msg.get("seat")

        async def replayed() -> None:
            held = self.seats.get(table)
            found = await self.hub.replays.replay(
                table, seat, msg.get("from", 0), held, msg.get("all_seeing", False)
            )
            self.reply(msg["id"], **found)

        self._replaying_later(msg["id"], replayed)

    def _replaying_later(self, request_id: Any, work: Callable[[], Awaitable[None]]) -> None:
        """A ``record`` or ``replay`` request (each rebuilds views from a whole game's
        log): REPLAYS_AT_ONCE under way per connection, more refused ``overloaded``."""
        if self._replaying >= REPLAYS_AT_ONCE:
            raise SessionRefusal(
                "overloaded",
                "wait for the answer to your other replay or record request",
                REPLAY_RETRY_MS,
            )
        self._replaying += 1

        async def counted() -> None:
            try:
                await work()
            finally:
                self._replaying -= 1

        self._later(request_id, counted)

    def on_leave(self, msg: Message) -> None:
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
            raise SessionRefusal(
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
        self.close(4001, f"seat {seat + 1} at table {table} was taken over by another connection")

    def _watch(self, table: str, seat: int | None, view: TableView, snapshot: bool = True) -> None:
        """Follow a table; a snapshot follows unless ``snapshot`` is off."""
        if self.state is SessionState.CLOSED:
            return
        self.watching[table] = seat
        self._games[table] = view.game_id
        self.out.follow(table)
        view.subscribe(self, seat, send_snapshot=snapshot)
        self.hub.presence_changed()

    async def _rewatch(self, table: str, seat: int | None, version: int | None) -> None:
        """Follow again after a reconnect: what was missed since ``version`` follows
        (one patch, or a snapshot).  Live patches queued meanwhile are dropped by the
        outbox's version check, so nothing arrives twice or out of order."""
        view = await self.hub.table(table)
        if version is None:
            self._watch(table, seat, view)
            return
        self._watch(table, seat, view, snapshot=False)
        frames = await self.hub.catch_up(table, seat, version)
        self._catch_up(table, view.version, frames)

    def _catch_up(self, table: str, version: int, frames: Frames) -> None:
        """Queue a catch-up patch (or snapshot) as the next push of ``table``; it brings
        the client to its own version (behind ``version`` for delayed spectators)."""
        if table not in self.watching:
            return
        msg = frames.msg
        version = msg["to"] if msg["t"] == "patch" else msg["version"]
        self.out.follow(table, frames.msg.get("from"))
        self.deliver(table, version, frames, str(frames.msg["t"]))

    def _unwatch(self, table: str) -> None:
        if self.watching.pop(table, "absent") == "absent":
            return
        self._games.pop(table, None)
        self.out.unfollow(table)
        view = self.hub.loaded(table)
        if view is not None:
            view.unsubscribe(self)
        self.hub.presence_changed()


REPLY_VERSION = "version"
"""A command whose ``ok`` carries the new ``version`` (an act; its latency is measured)."""
REPLY_RESULT = "result"
"""A command whose ``ok`` carries its result's fields (``legal``)."""
Done = Callable[[Any], None] | str


class _Answer:
    """A table command's answer for a session: the reply, or what to do with the result
    (an object per request, no closure chain)."""

    __slots__ = ("done", "request_id", "session", "started")

    def __init__(self, session: Session, request_id: Any, done: Done) -> None:
        self.session = session
        self.request_id = request_id
        self.done = done
        self.started = time.perf_counter()

    def __call__(self, value: Any, error: TableError | None) -> None:
        session, self.session = self.session, None  # type: ignore[assignment]
        if session is None:
            return
        session._pending -= 1
        if error is not None:
            session._fail_with(self.request_id, error)
        elif self.done == REPLY_VERSION:
            metrics.ACT_LATENCY.observe(time.perf_counter() - self.started)
            session.reply(self.request_id, version=value["version"])
        elif self.done == REPLY_RESULT:
            session.reply_result(self.request_id, value)
        else:
            assert callable(self.done)
            self.done(value)


HANDLERS: dict[str, Callable[[Session, Message], None]] = {
    "hello": Session.on_hello,
    "ping": Session.on_ping,
    "list_games": Session.on_list_games,
    "list_tables": Session.on_list_tables,
    "subscribe_tables": Session.on_subscribe_tables,
    "create_table": Session.on_create_table,
    "join": Session.on_join,
    "add_bot": Session.on_add_bot,
    "spectate": Session.on_spectate,
    "act": Session.on_act,
    "legal": Session.on_legal,
    "resync": Session.on_resync,
    "leave": Session.on_leave,
    "record": Session.on_record,
    "replay": Session.on_replay,
}
"""The dispatch table: every client message type of protocol v1 and its handler."""
