"""A protocol-v1 client on ``websockets``: requests, live table views, resync, resume.

Used by the CLI, the tests and the load generator; depends on ``protocol`` only
(never on ``server``), so it doubles as the reference for third-party clients.

Theory of operation: one reader task receives every frame.  ``ok``/``error`` resolve
the request future with the same ``id``; ``snapshot`` replaces a table's mirrored
view; ``patch`` is applied (RFC 6902, ``jsonpatch``) when its ``from`` is the version
we hold, and its ``hash`` is checked -- on a gap or a mismatch the client sends
``resync`` with the version it has.  Waiters are woken on every change.  The client
asks for the ``batch`` capability: a ``batch`` frame is taken apart and its messages
handled in order, as if each had come alone.

Retries (protocol/README.md "Idempotent requests and retries"): ``create_table``,
``join`` and ``act`` carry a fresh idempotency ``key``; an error that carries
``retry_ms`` (``overloaded``, ``unavailable``) is retried with the same key after that
long, backing off exponentially with jitter (at most 5 s a wait, :data:`RETRY_TRIES`
tries), and ``on_wait`` is told in words while the client waits.

``legal`` asks in the cheapest form first, the layered grid (protocol/README.md "Layered
grid legal").  A hub older than a form refuses it as ``bad_message`` (the value is not in
its schema), so on that refusal the client asks again in the next cheaper form (layered,
grid, compact, then plain: no ``form`` field) and keeps the form that was taken for the
connection's later asks.  Any other error, ``bad_message`` to the plain ask, and
``bad_message`` to an ask that this revision's own schema refuses without its form too
(a malformed table id), is raised as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import os
import random
import secrets
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import fastjsonschema
import jsonpatch
import websockets
from websockets.asyncio.client import ClientConnection

from tablehub.protocol import SUBPROTOCOLS, Codec
from tablehub.protocol.codec import PROTOCOL_VERSION, V1_DIR
from tablehub.protocol.legal import COMPACT, GRID, LAYERED, PLAIN, listed_actions
from tablehub.protocol.viewhash import view_hash

log = logging.getLogger("tablehub.client")

RATE_LIMIT_RETRIES = 6
RETRY_TRIES = 8
"""Tries of a request the server asked to send again later (errors with ``retry_ms``)."""
RETRY_MAX_S = 5.0
CAPS = ["batch"]
WAIT_REASONS = {
    "overloaded": "the server is busy",
    "unavailable": "the server cannot reach its storage right now",
}
DOING = {
    "act": "sending your move",
    "legal": "asking for your choices",
    "join": "taking the seat",
    "create_table": "creating the table",
}


LEGAL_FORMS = (LAYERED, GRID, COMPACT, PLAIN)
"""The forms ``legal`` asks in, cheapest first: each next one is what a hub that refuses
the one before (``bad_message``: older than it) is asked in."""


CAFILE_ENV = "TABLEHUB_CAFILE"
"""A CA file (PEM) trusted for ``wss://`` besides the system's CAs: ``--cafile``."""


@functools.cache
def _tls_context(cafile: str | None) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if cafile:
        context.load_verify_locations(cafile)
    return context


def tls_for(url: str, cafile: str | None = None) -> ssl.SSLContext | None:
    """The TLS context of a ``wss://`` URL (None for ``ws://``): the system's CAs, plus
    ``cafile`` (default: the file named by ``TABLEHUB_CAFILE``), e.g. the throwaway
    certificate of ``tablehub cluster``."""
    if not url.startswith("wss://"):
        return None
    return _tls_context(cafile or os.environ.get(CAFILE_ENV) or None)


def new_key() -> str:
    """A fresh idempotency key: a random secret of 32 URL-safe characters."""
    return secrets.token_urlsafe(24)


def retry_delay_s(retry_ms: int, attempt: int) -> float:
    """How long to wait before try ``attempt + 2``: ``retry_ms`` doubled per earlier
    retry, with up to 50 % jitter (so clients refused together do not come back
    together), capped at :data:`RETRY_MAX_S`."""
    return min(RETRY_MAX_S, retry_ms / 1000 * 2.0**attempt * random.uniform(1.0, 1.5))


def waiting_words(kind: str, code: str, delay_s: float, attempt: int) -> str:
    """What a player is told while a request waits for its retry."""
    reason = WAIT_REASONS.get(code, "the server asked to wait a moment")
    doing = DOING.get(kind, "asking")
    return f"{reason}: {doing} again in {delay_s:.1f} s (try {attempt + 2} of {RETRY_TRIES})"


class ServerError(Exception):
    """An ``error`` reply: ``code`` is the stable wire code; ``retry_ms`` is set when
    the server asked for the request again later (and the retries ran out)."""

    def __init__(self, code: str, message: str, retry_ms: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_ms = retry_ms


@dataclass
class TableMirror:
    """The client's copy of one table's view."""

    version: int = -1
    view: dict[str, Any] = field(default_factory=dict)
    hash: str = ""
    presence: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    resyncs: int = 0
    mismatches: int = 0
    snapshots: int = 0


def _with_tls(url: str, ws_options: dict[str, Any]) -> dict[str, Any]:
    context = tls_for(url)
    if context is None or "ssl" in ws_options:
        return ws_options
    return {**ws_options, "ssl": context}


@functools.cache
def _legal_schema() -> Callable[[Any], Any]:
    """This revision's schema of ``legal``, compiled for the client's own check (not the
    hub's door: a hub in the same process may be narrowed to an older revision's)."""
    return fastjsonschema.compile(json.loads((V1_DIR / "legal.json").read_text()))


def _plain_legal_ok(table: str) -> bool:
    """Whether the plain ``legal`` ask for ``table`` is well formed by this revision's
    schema (the ask every hub revision takes)."""
    try:
        _legal_schema()({"t": "legal", "id": 0, "table": table})
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


class Connection:
    def __init__(self, ws: ClientConnection, codec: Codec, name: str) -> None:
        self.ws = ws
        self.codec = codec
        self.name = name
        self.tables: dict[str, TableMirror] = {}
        self.seats: dict[str, int] = {}
        self.tokens: dict[str, str] = {}
        self.hello: dict[str, Any] = {}
        self.lobby: list[dict[str, Any]] = []
        self.closed: asyncio.Future[tuple[int | None, str]] = (
            asyncio.get_running_loop().create_future()
        )
        self.on_message: Callable[[dict[str, Any]], None] | None = None
        self.on_wait: Callable[[str], None] | None = None
        """Told, in words, when a request waits to be retried (else it is logged)."""
        self.legal_form = LEGAL_FORMS[0]
        """The form ``legal`` asks in: the cheapest this connection's hub has taken (the
        layered grid until a ``legal`` ask in it is refused as ``bad_message``)."""
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._changed = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())

    # -- connecting -------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        name: str,
        subprotocol: str = "tablehub.v1.msgpack",
        resume: list[dict[str, Any]] | None = None,
        **ws_options: Any,
    ) -> Connection:
        """Open ``url`` (``ws://`` or ``wss://``: :func:`tls_for` unless ``ssl`` is
        given) and say hello."""
        ws = await websockets.connect(
            url,
            subprotocols=[subprotocol],  # type: ignore[list-item]
            compression=None,
            max_size=2**24,
            **_with_tls(url, ws_options),
        )
        conn = cls(ws, SUBPROTOCOLS[subprotocol], name)
        hello: dict[str, Any] = {"v": PROTOCOL_VERSION, "name": name, "caps": CAPS}
        if resume:
            hello["resume"] = resume
        conn.hello = await conn.request("hello", **hello)
        return conn

    async def reconnect(self, url: str, **ws_options: Any) -> Connection:
        """A new connection that resumes every table of this one (seats by token,
        spectating again otherwise) from the versions held; mirrors carry over so the
        missed versions arrive as patches."""
        resume: list[dict[str, Any]] = []
        for table, mirror in self.tables.items():
            item: dict[str, Any] = {"table": table}
            if table in self.tokens:
                item["token"] = self.tokens[table]
            if mirror.version >= 0:
                item["version"] = mirror.version
            resume.append(item)
        if not self.closed.done():
            await self.close()
        ws = await websockets.connect(
            url,
            subprotocols=[self.codec.name],  # type: ignore[list-item]
            compression=None,
            max_size=2**24,
            **_with_tls(url, ws_options),
        )
        conn = type(self)(ws, self.codec, self.name)
        conn.tables, conn.tokens = self.tables, self.tokens
        conn.on_wait = self.on_wait
        conn.hello = await conn.request(
            "hello", v=PROTOCOL_VERSION, name=self.name, caps=CAPS, resume=resume
        )
        for result in conn.hello["resumed"]:
            table = result["table"]
            if result["ok"] and result["seat"] is not None:
                conn.seats[table] = result["seat"]
            elif "retry_ms" in result:
                # refused for now (the store away, say): the seat back by its token (or
                # the table watched again) after retry_ms, sent again as any request
                await asyncio.sleep(result["retry_ms"] / 1000)
                with contextlib.suppress(ServerError):  # still refused: as a failed resume
                    if table in self.tokens:
                        await conn.join(table, token=self.tokens[table])
                    else:
                        await conn.spectate(table)
        return conn

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    # -- requests ---------------------------------------------------------------------

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return its reply as it came (``ok`` or ``error``): no
        retry, no exception for an error (for programs that handle each answer)."""
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self.ws.send(self.codec.encode({"t": kind, "id": request_id, **fields}))
            return await future
        finally:
            self._pending.pop(request_id, None)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request and wait for its reply; ``error`` raises ServerError.

        A ``rate_limited`` reply means the server dropped the request unprocessed, so it
        is sent again after a backoff (up to ``RATE_LIMIT_RETRIES`` times); an error with
        ``retry_ms`` is sent again, unchanged (its ``key`` too), as the module says."""
        later = 0  # retries the server asked for with retry_ms
        limited = 0
        while True:
            reply = await self.ask(kind, **fields)
            if reply["t"] != "error":
                return reply
            if isinstance(reply.get("retry_ms"), int) and later + 1 < RETRY_TRIES:
                delay = retry_delay_s(reply["retry_ms"], later)
                self._tell(waiting_words(kind, reply["code"], delay, later))
                later += 1
            elif reply["code"] == "rate_limited" and limited < RATE_LIMIT_RETRIES:
                delay = min(1.0, 0.05 * 2**limited)
                limited += 1
            else:
                raise ServerError(reply["code"], reply["message"], reply.get("retry_ms"))
            await asyncio.sleep(delay)

    def _tell(self, words: str) -> None:
        if self.on_wait is not None:
            self.on_wait(words)
        else:
            log.info("%s", words)

    async def create_table(self, game: str, seats: int, **options: Any) -> str:
        reply = await self.request(
            "create_table", game=game, seats=seats, options=options, key=new_key()
        )
        table: str = reply["table"]
        return table

    async def join(self, table: str, seat: int | None = None, token: str | None = None) -> int:
        fields: dict[str, Any] = {"table": table}
        if seat is not None:
            fields["seat"] = seat
        if token is not None:
            fields["token"] = token
        else:  # a token is its own retry guarantee; a fresh seat needs the key
            fields["key"] = new_key()
        self.tables.setdefault(table, TableMirror())
        reply = await self.request("join", **fields)
        self.seats[table] = reply["seat"]
        self.tokens[table] = reply["token"]
        return int(reply["seat"])

    async def spectate(self, table: str) -> None:
        self.tables.setdefault(table, TableMirror())
        await self.request("spectate", table=table)

    async def act(self, table: str, action: dict[str, Any]) -> int:
        reply = await self.request("act", table=table, action=action, key=new_key())
        return int(reply["version"])

    async def legal(self, table: str) -> list[dict[str, Any]]:
        """Every action legal for our seat now, asked as :meth:`legal_reply` asks and
        expanded from whichever form the reply came in."""
        return listed_actions(await self.legal_reply(table))

    async def legal_reply(self, table: str) -> dict[str, Any]:
        """The ``legal`` reply for our seat now, asked in :attr:`legal_form` -- the layered
        grid form (protocol/README.md "Layered grid legal"; a game without one answers in
        its grid, compact or plain form) until this connection's hub refuses it.

        A ``bad_message`` to an ask with a form is a hub older than that form: the ask
        is sent again in the next cheaper one (:data:`LEGAL_FORMS`; the plain ask has no
        ``form`` field), and the form the hub took is kept for later asks.  Any other
        error, ``bad_message`` to the plain ask, and ``bad_message`` to an ask whose
        plain form this revision's schema refuses too (a malformed table id: no older
        hub takes it either) raise ServerError as before."""
        form = self.legal_form
        while True:
            fields = {"table": table} if form == PLAIN else {"table": table, "form": form}
            try:
                reply = await self.request("legal", **fields)
            except ServerError as err:
                if err.code != "bad_message" or form == PLAIN or not _plain_legal_ok(table):
                    raise
                form = LEGAL_FORMS[LEGAL_FORMS.index(form) + 1]
                continue
            self.legal_form = form
            return reply

    async def legal_step(self, table: str, partial: dict[str, Any]) -> dict[str, Any]:
        """Staged ``legal`` (protocol/README.md "Staged legal"): the next field of
        ``partial`` and its choices -- the reply's ``field``, ``choices``, ``complete``
        and ``version``."""
        return await self.request("legal", table=table, partial=partial)

    # -- waiting for table state ------------------------------------------------------

    async def wait_for(
        self,
        table: str,
        predicate: Callable[[TableMirror], bool],
        timeout: float = 30.0,
    ) -> TableMirror:
        """Wait until the table's mirror satisfies ``predicate``."""

        async with asyncio.timeout(timeout), self._changed:
            while True:
                mirror = self.tables.get(table)
                if mirror is not None and mirror.version >= 0 and predicate(mirror):
                    return mirror
                if self.closed.done():
                    raise ConnectionError(f"connection closed: {self.closed.result()}")
                await self._changed.wait()

    async def wait_version(self, table: str, version: int, timeout: float = 30.0) -> TableMirror:
        return await self.wait_for(table, lambda m: m.version >= version, timeout)

    # -- the reader -------------------------------------------------------------------

    async def _read(self) -> None:
        code: int | None = None
        reason = ""
        try:
            async for frame in self.ws:
                msg = self.codec.decode(frame)
                await self._dispatch(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            code, reason = self.ws.close_code, self.ws.close_reason or ""
            if not self.closed.done():
                self.closed.set_result((code, reason))
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError(f"connection closed ({code} {reason})"))
            async with self._changed:
                self._changed.notify_all()

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("t")
        if kind == "batch":  # several messages in one frame: each in turn, never nested
            for item in msg["m"]:
                if item.get("t") != "batch":
                    await self._dispatch(item)
            return
        if kind in ("ok", "error"):
            future = self._pending.get(msg.get("id"))  # type: ignore[arg-type]
            if future is not None and not future.done():
                future.set_result(msg)
        elif kind == "snapshot":
            mirror = self.tables.setdefault(msg["table"], TableMirror())
            mirror.view, mirror.version, mirror.hash = msg["view"], msg["version"], msg["hash"]
            mirror.snapshots += 1
            if view_hash(mirror.view) != mirror.hash:
                mirror.mismatches += 1
        elif kind == "patch":
            await self._on_patch(msg)
        elif kind == "event":
            self.tables.setdefault(msg["table"], TableMirror()).events.extend(msg["events"])
        elif kind == "presence":
            self.tables.setdefault(msg["table"], TableMirror()).presence = msg
        elif kind == "tables":
            self.lobby = msg["tables"]
        if self.on_message is not None:
            self.on_message(msg)
        async with self._changed:
            self._changed.notify_all()

    async def _on_patch(self, msg: dict[str, Any]) -> None:
        mirror = self.tables.setdefault(msg["table"], TableMirror())
        if msg["from"] != mirror.version:
            if msg["to"] > mirror.version:
                await self._resync(msg["table"], mirror)
            return
        view = jsonpatch.apply_patch(mirror.view, msg["ops"], in_place=False)
        if view_hash(view) != msg["hash"]:
            mirror.mismatches += 1
            await self._resync(msg["table"], mirror)
            return
        mirror.view, mirror.version, mirror.hash = view, msg["to"], msg["hash"]

    async def _resync(self, table: str, mirror: TableMirror) -> None:
        mirror.resyncs += 1
        request_id = next(self._ids)  # reply is not awaited (we are the reader)
        fields: dict[str, Any] = {"t": "resync", "id": request_id, "table": table}
        if mirror.version >= 0:
            fields["version"] = mirror.version
        await self.ws.send(self.codec.encode(fields))
