"""The group commit's own Redis connection: an ``asyncio.Protocol`` with hiredis.

Theory of operation: the group commit is a hub's busiest Redis traffic, and redis-py's
pipeline spends ~55 µs of Python per command plus ~270 µs per round trip, and a task,
a pool checkout and several turns of the event loop between the socket and the
commits' futures (measured on this project's machines: 50 commands cost 2.9 ms of CPU
through a pipeline, 0.34 ms here).  So a group is encoded to RESP in one bytes object
and written from the loop callback that flushes it; hiredis parses the replies inside
``data_received``, and the group's callback runs there, as its last reply arrives --
no task, no pool and no ``await`` between the socket and the commits' futures.  The
bus's messages that wait for no answer (forwarded commands, their replies, presence)
ride the same connection while it is open.

Redis answers a connection's commands in the order they were sent, so a queue of the
groups in flight says whose each reply is.  A group not answered within ``timeout_s``,
or a lost connection, fails every group in flight with a ``ConnectionError`` (their
fate is unknown) and closes the link; :meth:`CommitLink.connect` opens a new one.

Errors Redis answers (``NOSCRIPT``, ``READONLY``…) arrive as redis-py's exception
classes among the replies, as a pipeline would give them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, cast

import hiredis
from redis import exceptions as redis_errors
from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url

from tablehub.server.store.redis_url import tls_context

NAME = "tablehub-commits"
"""The connection's name in ``CLIENT LIST``."""

RedisCommand = Sequence[bytes | str | int]
Replies = list[Any] | BaseException
"""A group's replies in order, or why it has none (its fate unknown)."""

_REPLY_ERRORS: dict[str, type[redis_errors.RedisError]] = {
    "NOSCRIPT": redis_errors.NoScriptError,
    "READONLY": redis_errors.ReadOnlyError,
    "LOADING": redis_errors.BusyLoadingError,
    "WRONGPASS": redis_errors.AuthenticationError,
    "NOAUTH": redis_errors.AuthenticationError,
}


def reply_error(message: str) -> redis_errors.RedisError:
    """An error reply as the redis-py exception a pipeline would have given for it."""
    kind: type[redis_errors.RedisError] = _REPLY_ERRORS.get(
        message.split(" ", 1)[0], redis_errors.ResponseError
    )
    return kind(message)


def encode(command: RedisCommand) -> bytes:
    """One command in RESP: an array of bulk strings."""
    parts = [b"*%d\r\n" % len(command)]
    for arg in command:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


class _Group:
    __slots__ = ("done", "expected", "replies", "timer")

    def __init__(self, expected: int, done: Callable[[Replies], None]) -> None:
        self.expected = expected
        self.replies: list[Any] = []
        self.done = done
        self.timer: asyncio.TimerHandle | None = None


class CommitLink:
    """The commit connection of one store; :meth:`send` writes a group, its callback
    gets the replies.  Each connection is a :class:`_Wire` of its own, so a closed
    one's late news never touches the next."""

    def __init__(self, url: str, timeout_s: float) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self._wire: _Wire | None = None

    @property
    def ready(self) -> bool:
        return self._wire is not None and self._wire.open

    async def connect(self) -> None:
        """Open a connection and authenticate / select the database of the URL."""
        loop = asyncio.get_running_loop()
        options = parse_url(self.url)
        kind = options.get("connection_class")
        wire = _Wire(self.timeout_s)
        opening: Any
        if kind is UnixDomainSocketConnection:
            opening = loop.create_unix_connection(lambda: wire, options["path"])
        else:
            host, port = options.get("host", "localhost"), options.get("port", 6379)
            tls = tls_context(options) if kind is SSLConnection else None
            opening = loop.create_connection(lambda: wire, host, port, ssl=tls)
        await asyncio.wait_for(opening, self.timeout_s)
        hello: list[RedisCommand] = []
        if options.get("password"):
            user, password = options.get("username"), options["password"]
            hello.append(("AUTH", user, password) if user else ("AUTH", password))
        if options.get("db"):
            hello.append(("SELECT", options["db"]))
        hello.append(("CLIENT", "SETNAME", NAME))
        for reply in await _request(wire, hello):
            if isinstance(reply, BaseException):
                wire.close()
                raise reply
        self._wire = wire

    def send(self, commands: list[RedisCommand], done: Callable[[Replies], None]) -> None:
        """Write ``commands`` at once; ``done`` is called with their replies (or the
        error that cut them off) from inside the loop's read callback."""
        if self._wire is None:
            done(redis_errors.ConnectionError("the commit connection is not open"))
        else:
            self._wire.send(commands, done)

    async def request(self, commands: list[RedisCommand]) -> list[Any]:
        """:meth:`send`, awaited."""
        if self._wire is None:
            raise redis_errors.ConnectionError("the commit connection is not open")
        return await _request(self._wire, commands)

    def close(self) -> None:
        if self._wire is not None:
            self._wire.close()  # its groups in flight fail


async def _request(wire: _Wire, commands: list[RedisCommand]) -> list[Any]:
    answered: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()

    def done(replies: Replies) -> None:
        if isinstance(replies, BaseException):
            answered.set_exception(replies)
        else:
            answered.set_result(replies)

    wire.send(commands, done)
    return await answered


class _Wire(asyncio.Protocol):
    """One connection: the groups in flight on it, in the order they were written."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._transport: asyncio.Transport | None = None
        self._reader = hiredis.Reader(replyError=reply_error)
        self._groups: deque[_Group] = deque()

    @property
    def open(self) -> bool:
        return self._transport is not None and not self._transport.is_closing()

    def send(self, commands: list[RedisCommand], done: Callable[[Replies], None]) -> None:
        if self._transport is None or self._transport.is_closing():
            done(redis_errors.ConnectionError("the commit connection is closed"))
            return
        group = _Group(len(commands), done)
        group.timer = asyncio.get_running_loop().call_later(self.timeout_s, self._expired, group)
        self._groups.append(group)
        self._transport.write(b"".join(map(encode, commands)))

    def close(self) -> None:
        self._fail(redis_errors.ConnectionError("the commit connection was closed"))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        try:
            while (reply := self._reader.gets()) is not False:
                group = self._groups[0]
                group.replies.append(reply)
                if len(group.replies) == group.expected:
                    self._groups.popleft()
                    if group.timer is not None:
                        group.timer.cancel()
                    group.done(group.replies)
        except (hiredis.ProtocolError, IndexError) as err:  # garbled, or unasked for
            self._fail(redis_errors.ConnectionError(f"redis sent an unreadable reply: {err}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(redis_errors.ConnectionError(f"the commit connection was lost: {exc}"))

    def _expired(self, group: _Group) -> None:
        if group in self._groups:
            self._fail(redis_errors.TimeoutError(f"redis did not answer in {self.timeout_s} s"))

    def _fail(self, error: BaseException) -> None:
        """Every group in flight gets ``error`` and the connection is closed: a late
        reply would be taken for the next group's."""
        groups, self._groups = self._groups, deque()
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.close()
        for group in groups:
            if group.timer is not None:
                group.timer.cancel()
            group.done(error)
