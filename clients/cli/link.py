"""Link: one table on one server, over a Connection that is re-opened when it drops.

``take_seat`` creates a table (optionally with bots) or joins one -- with the saved
seat token when there is one, which is how a crashed player gets the seat back -- and
``spectate`` watches one.  Server errors at this stage become :class:`CliError` with
an exit code and a message a person can act on.

While the game runs, :meth:`Link.next_change` hands over what arrived since the last
call -- every view version in order (recorded by a ``Connection.on_message`` hook, so
none is skipped while the caller was busy), game events, presence.  When the
connection drops it reconnects with ``hello`` ``resume`` (seat token, or spectator)
for up to ``RECONNECT_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import websockets

from tablehub.clients.cli.connection import Connection, ServerError, TableMirror
from tablehub.clients.cli.errors import (
    EXIT_BUG,
    EXIT_TABLE,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    CliError,
)
from tablehub.clients.cli.numbering import seat_words
from tablehub.clients.cli.tokens import SavedSeat, TokenStore
from tablehub.protocol.codec import action_problem
from tablehub.protocol.legal import listed_actions

RECONNECT_SECONDS = 30.0
SEAT_TAKEN_OVER = 4001
"""Close code: another connection took our seat (protocol/README.md "Settled points")."""

Notify = Callable[[str, dict[str, Any]], None]
"""Progress callback of :func:`take_seat`: ``notify(kind, fields)``, kind one of
``created``, ``stale_token``, ``joined``, ``bot``."""


@dataclass
class SeatRequest:
    """What ``tablehub play`` was asked for (see ``main.py`` for the flags)."""

    url: str
    name: str
    game: str = "nmbr9"
    seats: int = 2
    table: str | None = None
    seat: int | None = None
    bots: int = 0
    bot_level: str | None = None
    """A bot level id of the game (``list_games``); None = the game's default."""
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Change:
    """What arrived since the previous :meth:`Link.next_change`, in order of arrival."""

    mirror: TableMirror
    """The live mirror (it may already be ahead of ``views``)."""
    views: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """Every (version, view) received, oldest first."""
    events: list[tuple[int, list[dict[str, Any]]]] = field(default_factory=list)
    """Every (version, game events) received, oldest first."""
    presence: dict[str, Any] | None = None
    """The latest ``presence`` message, when one arrived."""
    reconnected: bool = False

    @property
    def view(self) -> bool:
        return bool(self.views)


def _unreachable(url: str, err: BaseException) -> CliError:
    if isinstance(err, ssl.SSLCertVerificationError):
        why = err.verify_message or "it cannot be checked"
        return CliError(
            EXIT_UNREACHABLE,
            f"the tablehub server at {url} showed a certificate this computer does not "
            f"trust ({why}); if it is yours, give its certificate file with --cafile",
        )
    detail = str(err) or type(err).__name__
    return CliError(EXIT_UNREACHABLE, f"cannot reach the tablehub server at {url}: {detail}")


async def connect(url: str, name: str, resume: list[dict[str, Any]] | None = None) -> Connection:
    """Open a connection; an unreachable server or a refused handshake is ``CliError(3)``."""
    try:
        return await Connection.connect(url, name, resume=resume, open_timeout=10)
    except ServerError as err:
        code = EXIT_USAGE if err.code == "bad_message" else EXIT_BUG
        raise CliError(code, f"the server refused hello: {err.message}", err.code) from None
    except (OSError, TimeoutError, websockets.InvalidHandshake, ConnectionError) as err:
        raise _unreachable(url, err) from None
    except websockets.InvalidURI as err:
        raise CliError(EXIT_USAGE, f"not a WebSocket URL: {url} ({err})") from None


def table_error(err: ServerError, url: str, table: str | None, seat: int | None = None) -> CliError:
    """A server refusal while creating/joining/watching, as a message and exit code."""
    if err.code == "unknown_table":
        return CliError(
            EXIT_TABLE,
            f"there is no table {table} on {url}: check the id (a server started with the "
            "memory store, the default, forgets its tables when it restarts)",
            err.code,
        )
    if err.code == "table_full":
        return CliError(
            EXIT_TABLE,
            f"table {table} is full; watch it with: tablehub watch {table} --url {url}",
            err.code,
        )
    if err.code == "seat_taken":
        which = "the seat" if seat is None else seat_words(seat)
        return CliError(EXIT_TABLE, f"{which} at table {table} is taken", err.code)
    if err.code == "unauthorized":
        return CliError(EXIT_TABLE, f"table {table}: {err.message}", err.code)
    if err.code in ("unknown_game", "bad_options", "bad_message"):
        return CliError(EXIT_USAGE, err.message, err.code)
    if err.retry_ms is not None:  # asked to come back later, and every retry was refused
        return CliError(
            EXIT_UNREACHABLE,
            f"the server at {url} stayed busy and asked to try again later ({err.message}); "
            "rerun the command in a moment",
            err.code,
        )
    return CliError(EXIT_BUG, f"the server said {err.code}: {err.message}", err.code)


def forgotten_table(url: str, table: str) -> str:
    """Why a table we were at is gone after a reconnect, and what to do, in words."""
    return (
        f"the server at {url} no longer knows table {table}: it was most likely restarted, "
        "and a server started with the memory store (the default) does not keep its tables "
        "across restarts (use --store redis://… to keep them).  Start a new table with "
        "`tablehub play`."
    )


class Link:
    def __init__(
        self, url: str, name: str, table: str, conn: Connection, token: str | None = None
    ) -> None:
        self.url = url
        self.name = name
        self.table = table
        self.conn = conn
        self.token = token
        """Seat token (None when spectating)."""
        self.seat: int | None = conn.seats.get(table)
        self._change = Change(self.mirror)
        self._last_version = -1
        self._closed_reason: str | None = None
        self._wake = asyncio.Event()
        self._version_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self.on_reconnecting: Callable[[], None] | None = None
        """Called when the connection dropped and reconnecting starts (to say so)."""
        self.on_waiting: Callable[[str], None] | None = None
        """Called with a sentence when a request waits to be retried (to say so)."""
        self._attach(conn)

    def _attach(self, conn: Connection) -> None:
        """Follow ``conn`` from now on, counting what its reader already took in."""
        self.conn = conn
        conn.on_message = self._record
        conn.on_wait = self._waiting
        conn.closed.add_done_callback(self._connection_closed)
        mirror = self.mirror
        if mirror.version >= 0 and mirror.version != self._last_version:
            self._last_version = mirror.version
            self._change.views.append((mirror.version, mirror.view))
        if mirror.presence:
            self._change.presence = mirror.presence
        self._wake.set()

    def _waiting(self, words: str) -> None:
        if self.on_waiting is not None:
            self.on_waiting(words)

    def _connection_closed(self, _closed: asyncio.Future[tuple[int | None, str]]) -> None:
        self._wake.set()
        for _, waiter in self._version_waiters:
            if not waiter.done():
                waiter.set_exception(ConnectionError("connection closed"))
        self._version_waiters.clear()

    @property
    def mirror(self) -> TableMirror:
        return self.conn.tables.setdefault(self.table, TableMirror())

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.conn.close()

    # -- following the table -------------------------------------------------------------

    def _record(self, msg: dict[str, Any]) -> None:
        """Connection hook, called after the mirror took ``msg`` in."""
        if msg.get("table") != self.table:
            return
        kind = msg.get("t")
        mirror = self.mirror
        if kind in ("snapshot", "patch") and mirror.version != self._last_version:
            self._last_version = mirror.version
            self._change.views.append((mirror.version, mirror.view))
        elif kind == "event":
            self._change.events.append((int(msg["version"]), list(msg["events"])))
        elif kind == "presence":
            self._change.presence = msg
        elif kind == "table_closed":
            self._closed_reason = str(msg.get("reason", "closed"))
        if self._version_waiters:
            waiting = []
            for version, waiter in self._version_waiters:
                if mirror.version >= version and not waiter.done():
                    waiter.set_result(None)
                elif not waiter.done():
                    waiting.append((version, waiter))
            self._version_waiters = waiting
        self._wake.set()

    def _pending(self) -> bool:
        change = self._change
        return self.mirror.version >= 0 and bool(
            change.views
            or change.events
            or change.presence is not None
            or change.reconnected
            or self._closed_reason is not None
        )

    async def next_change(self, timeout: float | None = None) -> Change | None:
        """What arrived since the last call (None when ``timeout`` passes first).

        Reconnects when the connection drops; raises CliError(3) when that fails and
        CliError(4) when the server closes the table.
        """
        # Waiting uses asyncio.timeout, not asyncio.wait_for: on Python 3.11 wait_for
        # can swallow a cancellation that races with its result.
        while True:
            if self._closed_reason is not None:
                raise CliError(EXIT_TABLE, f"table {self.table} was closed: {self._closed_reason}")
            if self._pending():
                return self.drain()
            if self.conn.closed.done():
                code, reason = self.conn.closed.result()
                if code == SEAT_TAKEN_OVER:  # reconnecting would take it back: ping-pong
                    raise CliError(EXIT_TABLE, reason or "your seat was taken over elsewhere")
                await self.reconnect()
                continue
            self._wake.clear()
            try:
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            except TimeoutError:
                return None

    def drain(self) -> Change:
        """What arrived since the last change, without waiting (possibly nothing)."""
        change, self._change = self._change, Change(self.mirror)
        change.mirror = self.mirror
        return change

    async def reconnect(self) -> None:
        """Open a new connection and resume the seat (or spectating) on it."""
        if self.on_reconnecting is not None:
            self.on_reconnecting()
        await self.close()
        item: dict[str, Any] = {"table": self.table}
        if self.token is not None:
            item["token"] = self.token
        give_up = time.monotonic() + RECONNECT_SECONDS
        delay = 0.1
        while True:
            try:
                conn = await connect(self.url, self.name, resume=[item])
                break
            except CliError as err:
                if err.exit_code != EXIT_UNREACHABLE or time.monotonic() > give_up:
                    raise CliError(
                        EXIT_UNREACHABLE,
                        f"lost the connection to {self.url} and could not get it back "
                        f"({err.message}); rerun the command to take your seat back",
                    ) from None
            await asyncio.sleep(delay)  # back-off between attempts
            delay = min(delay * 2, 2.0)
        resumed = conn.hello.get("resumed") or [{}]
        if not resumed[0].get("ok"):
            await conn.close()
            code = str(resumed[0].get("code", "unknown_table"))
            if code == "unknown_table":
                raise CliError(EXIT_TABLE, forgotten_table(self.url, self.table), code)
            raise table_error(ServerError(code, "could not resume"), self.url, self.table)
        if self.token is not None:
            conn.seats[self.table] = int(resumed[0]["seat"])
            conn.tokens[self.table] = self.token
        self._attach(conn)
        self._change.reconnected = True

    # -- requests --------------------------------------------------------------------------

    async def legal(self) -> tuple[list[dict[str, Any]], int]:
        """This seat's legal actions now, and the version they were computed at (asked
        as ``Connection.legal_reply`` asks: the layered grid form, protocol/README.md
        "Layered grid legal", or the next cheaper one an older hub takes; expanded)."""
        try:
            reply = await self.conn.legal_reply(self.table)
        except websockets.ConnectionClosed as err:
            raise ConnectionError(str(err)) from None
        return listed_actions(reply), int(reply.get("version", -1))

    async def legal_step(self, partial: dict[str, Any]) -> dict[str, Any]:
        """The choices for the next field of ``partial`` (staged ``legal``)."""
        try:
            return await self.conn.legal_step(self.table, partial)
        except websockets.ConnectionClosed as err:
            raise ConnectionError(str(err)) from None

    async def act(self, action: dict[str, Any]) -> int:
        """Play ``action``; returns the new version once the mirror has reached it.

        Raises ServerError when refused (code + the server's reason); an action that
        does not fit the game's schema (protocol/v1/games/) is refused here, as the
        server would refuse it, without a round trip.
        """
        problem = action_problem(str(self.mirror.view.get("game", "")), action)
        if problem is not None:
            raise ServerError("bad_action", problem)
        try:
            version = await self.conn.act(self.table, action)
        except websockets.ConnectionClosed as err:
            raise ConnectionError(str(err)) from None
        with contextlib.suppress(TimeoutError, ConnectionError):
            await self.wait_version(version, timeout=10)
        return version

    async def wait_version(self, version: int, timeout: float) -> None:
        """Wait until the mirror holds ``version`` (ConnectionError if the link drops)."""
        if self.mirror.version >= version:
            return
        if self.conn.closed.done():
            raise ConnectionError("connection closed")
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._version_waiters.append((version, waiter))
        async with asyncio.timeout(timeout):
            await waiter


async def take_seat(req: SeatRequest, tokens: TokenStore, notify: Notify) -> Link:
    """Create (+ bots) or join the table, with the token saved for ``req.name`` if any.

    Tokens are saved per name (``tokens.py``), so another name's seat on this machine
    is never resumed nor overwritten; asking ``--seat`` for a seat other than the one
    saved for this name is refused (CliError(2)) rather than leaving that seat behind.
    ``joined`` says which seat was taken and why.
    """
    saved = None if req.table is None else tokens.get(req.url, req.table, req.name)
    if saved is not None and req.seat is not None and req.seat != saved.seat:
        raise CliError(
            EXIT_USAGE,
            f"{req.name} already holds {seat_words(saved.seat)} at table {req.table} (saved on "
            f"this machine): run `tablehub play --table {req.table} --name {req.name}` without "
            "--seat to take it back, or play another seat under another --name",
        )
    conn = await connect(req.url, req.name)
    conn.on_wait = lambda words: notify("waiting", {"message": words})
    table = req.table
    try:
        created = table is None
        if table is None:
            table = await conn.create_table(req.game, req.seats, **req.options)
            notify("created", {"table": table, "game": req.game, "seats": req.seats})
        why = ""
        resumed = False
        if saved is not None:
            try:
                await conn.join(table, seat=saved.seat, token=saved.token)
                why = f"the seat saved for {req.name} on this machine, taken back"
                resumed = True
            except ServerError as err:
                if err.code != "unauthorized":
                    raise
                tokens.forget(req.url, table, req.name)
                notify("stale_token", {"table": table, "seat": saved.seat})
        if not why:
            await _join_asked(conn, table, req.seat)
            why = _fresh_seat_reason(req, created, tokens.seats(req.url, table))
        seat = conn.seats[table]
        token = conn.tokens[table]
        tokens.save(req.url, table, SavedSeat(seat, token, req.name))
        notify("joined", {"table": table, "seat": seat, "resumed": resumed, "why": why})
        if created:
            for _ in range(req.bots):
                level = {} if req.bot_level is None else {"level": req.bot_level}
                reply = await conn.request("add_bot", table=table, **level)
                notify("bot", {"table": table, "seat": reply["seat"]})
    except ServerError as err:
        if err.code == "unknown_game":
            err = ServerError(err.code, await _unknown_game_message(conn, req.game))
        elif err.code == "unknown_table" and table is not None:
            tokens.forget(req.url, table)
        await conn.close()
        raise table_error(err, req.url, table, req.seat) from None
    except (ConnectionError, websockets.ConnectionClosed) as err:
        await conn.close()
        raise _unreachable(req.url, err) from None
    except BaseException:
        await conn.close()
        raise
    return Link(req.url, req.name, table, conn, token)


async def _join_asked(conn: Connection, table: str, seat: int | None) -> None:
    """Join ``seat`` (None: the first free one); a seat the table does not have is
    named as the player numbers it (the server's words count from 0)."""
    try:
        await conn.join(table, seat=seat)
    except ServerError as err:
        if err.code != "bad_message" or seat is None:
            raise
        raise CliError(
            EXIT_TABLE,
            f"table {table} has no {seat_words(seat)} (seats are numbered from 1)",
            err.code,
        ) from None


def _fresh_seat_reason(req: SeatRequest, created: bool, saved: list[SavedSeat]) -> str:
    """Why a seat taken without a saved token is this one, in words."""
    if created:
        why = "you created the table"
    elif req.seat is not None:
        why = "the seat you asked for with --seat"
    else:
        why = f"the first free seat (no seat was saved for {req.name} at this table)"
    others = [s for s in saved if s.name != req.name]
    if others:
        kept = ", ".join(f"{s.name}'s {seat_words(s.seat)}" for s in others)
        why += f"; {kept} saved on this machine stays theirs"
    return why


async def _unknown_game_message(conn: Connection, game: str) -> str:
    ids = sorted((await game_names(conn)).items())
    listed = ", ".join(f"{gid} ({name})" if name != gid else gid for gid, name in ids)
    return f"there is no game {game!r} on this server" + (
        f"; its games are: {listed}" if listed else ""
    )


async def spectate(url: str, name: str, table: str) -> Link:
    """Watch a table as a spectator."""
    conn = await connect(url, name)
    try:
        await conn.spectate(table)
    except ServerError as err:
        await conn.close()
        raise table_error(err, url, table) from None
    except (ConnectionError, websockets.ConnectionClosed) as err:
        await conn.close()
        raise _unreachable(url, err) from None
    except BaseException:
        await conn.close()
        raise
    return Link(url, name, table, conn)


async def game_names(conn: Connection) -> dict[str, str]:
    """Game id -> display name (empty when the server will not say)."""
    try:
        reply = await conn.request("list_games")
    except (ServerError, ConnectionError, websockets.ConnectionClosed):
        return {}
    return {str(g["id"]): str(g.get("name", g["id"])) for g in reply.get("games", [])}
