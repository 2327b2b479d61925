"""SimClient: one simulated protocol-v1 client (requests, mirrors, acts, reconnects).

Theory of operation: a :class:`~loadtest.wire.Wire` delivers each frame to
``_on_frame`` with its arrival time.  Replies (``ok``/``error``) are matched to the
pending request with the same ``id`` and handed to that request's callback -- a reply
whose ``id`` is not pending (a duplicate, or an answer to nothing) is counted as
``replies_unexpected``.  ``snapshot`` and ``patch`` go through the worker's
:class:`~loadtest.mirror.Verifier`; a gap or a hash mismatch sends ``resync``.  Every
time a mirror advances, acts of *other* clients waiting for this client to see their
version are resolved (act→patch latency: the actor sends, another seat sees it).

The client asks for the ``batch`` capability; a batch frame is cut into its messages
(``batches.py``), each handled as a frame of its own.  ``create_table``, ``join``
(without a token) and ``act`` carry an idempotency key, and an error carrying
``retry_ms`` (``overloaded``, ``unavailable``) is sent again with the same key after a
jittered exponential backoff (counted as ``retries``; only the final answer counts as
the request's reply).

When the connection drops without us asking, requests pending on it can never be
answered: their callbacks get a synthetic ``error`` with code ``disconnected`` (counted
as ``acts_lost`` for acts, never as an answered act), and the client reconnects with a
``hello`` that resumes its seats (token) and spectated tables (version it holds).
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from tablehub.clients.cli.connection import RETRY_TRIES, retry_delay_s
from tablehub.loadtest import batches
from tablehub.loadtest.context import WorkerContext
from tablehub.loadtest.mirror import Mirror
from tablehub.loadtest.wire import Wire, WireError
from tablehub.protocol.codec import PROTOCOL_VERSION

ReplyHandler = Callable[[dict[str, Any], float], None]
UpdateHandler = Callable[["SimClient", str, float], None]

ARRIVALS_KEPT = 128
KEYED = frozenset({"create_table", "join", "act"})
"""Requests sent with an idempotency key (a join with a token needs none)."""


class RequestFailed(Exception):
    """An ``error`` reply to :meth:`SimClient.call` (``code`` is the wire code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class _Waiter:
    """Acts waiting for this client to see their version: version -> send times."""

    __slots__ = ("arrivals", "versions", "waiting")

    def __init__(self) -> None:
        self.versions: list[int] = []  # versions reached, ascending (bounded)
        self.arrivals: list[float] = []  # when each was reached
        self.waiting: dict[int, list[float]] = {}


class SimClient:
    def __init__(self, ctx: WorkerContext, name: str, room: str | None = None) -> None:
        self.ctx = ctx
        self.name = name
        self.url = ctx.url if room is None else with_room(ctx.url, room)
        self.wire: Wire | None = None
        self.mirrors: dict[str, Mirror] = {}
        self.seats: dict[str, tuple[int, str]] = {}  # table -> (seat, token)
        self.on_update: UpdateHandler | None = None
        self.on_reconnected: Callable[[SimClient], None] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, float, ReplyHandler | None, bool]] = {}
        """id -> (kind, sent, handler, whether an error reply is counted on arrival)"""
        self._acts_waiting = 0  # acts refused with retry_ms, waiting to be sent again
        self._seen: dict[str, _Waiter] = {}
        self._closing = False
        self._connected = False
        self._reconnecting = False

    # -- connecting -------------------------------------------------------------------

    async def connect(self, resume: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Open the socket and say hello; raises WireError / RequestFailed.

        A connection whose hello fails (error, timeout) is aborted: it never counts as
        held and never triggers a reconnect of its own.
        """
        ctx = self.ctx
        wire = await Wire.open(
            self.url, ctx.codec.name, self._on_frame, self._on_closed, ctx.connect_timeout
        )
        self.wire = wire
        hello: dict[str, Any] = {"v": PROTOCOL_VERSION, "name": self.name, "caps": ["batch"]}
        if resume:
            hello["resume"] = resume
        try:
            reply = await asyncio.wait_for(self.call("hello", **hello), ctx.connect_timeout)
        except (RequestFailed, TimeoutError) as err:
            wire.on_closed = _ignore_close
            wire.abort()
            self._pending.clear()
            if isinstance(err, TimeoutError):
                raise RequestFailed("timeout", "no reply to hello") from None
            raise
        self._connected = True
        ctx.stats.connection_opened(time.perf_counter())
        return reply

    async def close(self) -> None:
        """Close on purpose (no reconnect); returns when the socket is gone or after 5 s."""
        self._closing = True
        wire = self.wire
        if wire is None or not self._connected:
            return
        done = asyncio.get_running_loop().create_future()
        previous = wire.on_closed

        def closed(code: int | None, reason: str) -> None:
            previous(code, reason)
            if not done.done():
                done.set_result(None)

        wire.on_closed = closed
        wire.close()
        try:
            await asyncio.wait_for(done, 5)
        except TimeoutError:
            wire.abort()

    @property
    def connected(self) -> bool:
        return self._connected and self.wire is not None and self.wire.is_open

    # -- requests ---------------------------------------------------------------------

    def request(
        self, kind: str, handler: ReplyHandler | None, counted: bool = True, **fields: Any
    ) -> int | None:
        """Send a request; ``handler(reply, t)`` is called with its one reply (an error
        is counted by code on arrival unless ``counted`` is False).

        Returns the request id, or None when the connection is not open (nothing sent).
        """
        wire = self.wire
        if wire is None or not wire.is_open:
            return None
        request_id = next(self._ids)
        now = time.perf_counter()
        self._pending[request_id] = (kind, now, handler, counted)
        wire.send(self.ctx.codec.encode({"t": kind, "id": request_id, **fields}))
        self.ctx.stats.count("requests_sent", now)
        return request_id

    def call(self, kind: str, **fields: Any) -> Awaitable[dict[str, Any]]:
        """A request as an awaitable; an ``error`` reply raises RequestFailed."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

        def handler(reply: dict[str, Any], t: float) -> None:
            if future.done():
                return
            if reply["t"] == "error":
                future.set_exception(RequestFailed(reply["code"], reply.get("message", "")))
            else:
                future.set_result(reply)

        if not self.retrying(kind, handler, **fields):
            future.set_exception(RequestFailed("disconnected", "connection is not open"))
        return future

    def retrying(self, kind: str, handler: ReplyHandler, **fields: Any) -> bool:
        """Send a request that is sent again, with the same idempotency key, while the
        answer is an error carrying ``retry_ms`` (at most ``RETRY_TRIES`` tries);
        ``handler`` gets the final answer.  False when nothing could be sent."""
        if kind in KEYED and "token" not in fields:
            fields["key"] = secrets.token_urlsafe(24)
        stats = self.ctx.stats
        tries = 1

        def answered(reply: dict[str, Any], t: float) -> None:
            nonlocal tries
            retry_ms = reply.get("retry_ms") if reply["t"] == "error" else None
            if isinstance(retry_ms, int) and tries < RETRY_TRIES and not self.ctx.stopping:
                stats.count("retries", t)
                stats.counts[f"retries.{reply['code']}"] += 1
                if kind == "act":
                    self._acts_waiting += 1
                delay = retry_delay_s(retry_ms, tries - 1)
                tries += 1
                asyncio.get_running_loop().call_later(delay, send_again)
                return
            if reply["t"] == "error" and kind != "act":
                stats.errors[f"{kind}:{reply.get('code')}"] += 1
            handler(reply, t)

        def send_again() -> None:
            if kind == "act":
                self._acts_waiting -= 1
            if self.request(kind, answered, False, **fields) is None:
                lost = {"t": "error", "code": "disconnected", "message": "connection is not open"}
                handler(lost, time.perf_counter())

        return self.request(kind, answered, False, **fields) is not None

    def act(
        self,
        table: str,
        action: dict[str, Any],
        observer: SimClient | None,
        then: Callable[[dict[str, Any], float, float], None],
    ) -> bool:
        """Send an act; ``then(reply, sent, t)`` gets its one reply.

        Latencies: act→reply here; act→patch when ``observer`` (another seat) reaches
        the version of the reply.
        """
        stats = self.ctx.stats
        sent = time.perf_counter()

        def replied(reply: dict[str, Any], t: float) -> None:
            if reply["t"] == "ok":
                stats.count("acts_ok", t)
                stats.latency("act_reply", sent, t)
                if observer is not None:
                    observer.expect(table, int(reply["version"]), sent)
            elif reply.get("code") == "disconnected":
                stats.count("acts_lost", t)
            else:
                stats.count("acts_error", t)
                stats.errors[str(reply.get("code"))] += 1
            then(reply, sent, t)

        if not self.retrying("act", replied, table=table, action=action):
            return False
        stats.count("acts_sent", sent)
        return True

    # -- act→patch latency ----------------------------------------------------------

    def expect(self, table: str, version: int, sent: float) -> None:
        """Record act→patch latency when this client's mirror reaches ``version``."""
        seen = self._seen.get(table)
        if seen is None:
            seen = self._seen[table] = _Waiter()
        mirror = self.mirrors.get(table)
        if mirror is not None and mirror.version >= version:
            i = bisect.bisect_left(seen.versions, version)
            if i < len(seen.arrivals):
                self.ctx.stats.latency("act_patch", sent, seen.arrivals[i])
            else:
                self.ctx.stats.count("act_patch_unmeasured", sent)
            return
        seen.waiting.setdefault(version, []).append(sent)

    def _reached(self, table: str, version: int, t: float) -> None:
        seen = self._seen.get(table)
        if seen is None:
            seen = self._seen[table] = _Waiter()
        seen.versions.append(version)
        seen.arrivals.append(t)
        if len(seen.versions) > ARRIVALS_KEPT:
            del seen.versions[: ARRIVALS_KEPT // 2]
            del seen.arrivals[: ARRIVALS_KEPT // 2]
        if seen.waiting:
            for v in [v for v in seen.waiting if v <= version]:
                for sent in seen.waiting.pop(v):
                    self.ctx.stats.latency("act_patch", sent, t)

    def forget(self, table: str) -> None:
        """Stop tracking a table (after leave)."""
        self.mirrors.pop(table, None)
        self.seats.pop(table, None)
        seen = self._seen.pop(table, None)
        if seen is not None and seen.waiting:
            n = sum(len(v) for v in seen.waiting.values())
            self.ctx.stats.count("act_patch_unmeasured", time.perf_counter(), n)

    # -- inbound ----------------------------------------------------------------------

    def _on_frame(self, frame: bytes | str, t: float) -> None:
        ctx = self.ctx
        ctx.stats.count("frames_in", t)
        parts = batches.split(ctx.codec, frame, ctx.decode)
        if parts and parts[0][0] is not frame:
            ctx.stats.count("batches_in", t)
        for part, msg in parts:
            self._on_message(part, msg, t)

    def _on_message(self, frame: bytes | str, msg: dict[str, Any], t: float) -> None:
        """One message (``frame``: its bytes, for the verifier's memo)."""
        ctx = self.ctx
        stats = ctx.stats
        kind = msg["t"]
        if kind == "ok" or kind == "error":
            request_id: int = msg.get("id", -1)
            pending = self._pending.pop(request_id, None)
            if pending is None:
                stats.count("replies_unexpected", t)
                return
            request_kind, _sent, handler, counted = pending
            if kind == "error" and request_kind != "act" and counted:
                stats.errors[f"{request_kind}:{msg.get('code')}"] += 1
            if handler is not None:
                handler(msg, t)
            return
        stats.count(kind, t)
        if kind == "patch" or kind == "event":
            stats.counts[f"{kind}_bytes"] += len(frame)
        if kind == "patch":
            table = msg["table"]
            mirror = self.mirrors.get(table)
            if mirror is None:
                return
            if msg["from"] == -1:
                stats.count("patches_from_empty", t)  # see Mirror: worth telling the hub
            outcome = ctx.verifier.patch(mirror, frame, msg)
            if outcome == "ok":
                self._advanced(table, mirror, t)
            elif outcome != "stale":
                stats.count("hash_mismatches" if outcome == "mismatch" else "gaps", t)
                self._resync(table, mirror)
        elif kind == "snapshot":
            table = msg["table"]
            mirror = self.mirrors.get(table)
            if mirror is None:
                return
            if not ctx.verifier.snapshot(mirror, frame, msg):
                stats.count("hash_mismatches", t)
            self._advanced(table, mirror, t)
        elif kind == "table_closed":
            stats.count("tables_closed", t)

    def _advanced(self, table: str, mirror: Mirror, t: float) -> None:
        self._reached(table, mirror.version, t)
        if self.on_update is not None:
            self.on_update(self, table, t)

    def _resync(self, table: str, mirror: Mirror) -> None:
        fields: dict[str, Any] = {"table": table}
        if mirror.version >= 0:
            fields["version"] = mirror.version
        self.request("resync", None, **fields)
        self.ctx.stats.count("resyncs", time.perf_counter())

    # -- connection loss --------------------------------------------------------------

    def _on_closed(self, code: int | None, reason: str) -> None:
        stats = self.ctx.stats
        now = time.perf_counter()
        was_connected = self._connected
        if was_connected:
            self._connected = False
            stats.connection_closed()
        pending, self._pending = self._pending, {}
        lost = {"t": "error", "code": "disconnected", "message": "connection closed"}
        for _kind, _sent, handler, _counted in pending.values():
            if handler is not None:
                handler(lost, now)
        if self._closing or not was_connected:
            return
        stats.count("disconnects", now)
        stats.close_codes[str(code)] += 1
        if not self._reconnecting:
            self._reconnecting = True
            asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        try:
            await self._reconnect_loop()
        finally:
            self._reconnecting = False

    async def _reconnect_loop(self) -> None:
        resume: list[dict[str, Any]] = []
        for table, mirror in self.mirrors.items():
            item: dict[str, Any] = {"table": table}
            if table in self.seats:
                item["seat"], item["token"] = self.seats[table]
            if mirror.version >= 0:
                item["version"] = mirror.version
            resume.append(item)
        delay = 0.2
        while not self._closing and not self.ctx.stopping:
            await asyncio.sleep(delay * (0.5 + self.ctx.rng.random()))
            try:
                await self.connect(resume=resume[:16])
            except (WireError, RequestFailed, OSError):
                delay = min(delay * 2, 5.0)
                continue
            self.ctx.stats.count("reconnects", time.perf_counter())
            if self.on_reconnected is not None:
                self.on_reconnected(self)
            return

    def pending_acts(self) -> int:
        """Acts sent and not answered yet (waiting for a retry included)."""
        return self._acts_waiting + sum(1 for p in self._pending.values() if p[0] == "act")


def _ignore_close(code: int | None, reason: str) -> None:
    """on_closed of a connection given up during its hello."""


def with_room(url: str, room: str) -> str:
    """``url`` naming a room (protocol/README.md: a balancer keeps a room on one hub)."""
    return f"{url}{'&' if '?' in url else '?'}room={quote(room)}"


async def connect_client(
    ctx: WorkerContext, name: str, room: str | None = None
) -> SimClient | None:
    """A connected client, or None (counted as ``connect_failures``) on failure."""
    client = SimClient(ctx, name, room)
    try:
        await client.connect()
    except (WireError, RequestFailed, OSError) as err:
        ctx.stats.count("connect_failures", time.perf_counter())
        ctx.stats.errors[f"connect:{type(err).__name__}"] += 1
        if client.wire is not None:
            client.wire.abort()
        return None
    return client
