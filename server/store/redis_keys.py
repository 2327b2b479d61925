"""Key names and msgpack encoding shared by the Redis store and the Redis bus (the key
layout is described in ``redis.py``)."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgpack
from redis import exceptions as redis_errors
from redis.crc import key_slot

from tablehub.server.config import DURABILITIES
from tablehub.server.ops.faults import store_unreachable
from tablehub.server.tables.journal import StoreError, StoreUnavailable

_UNREACHABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.BusyLoadingError,
    redis_errors.ReadOnlyError,
    redis_errors.ClusterDownError,
    redis_errors.ClusterError,
    redis_errors.TryAgainError,
    redis_errors.MovedError,
    redis_errors.AskError,
    OSError,
    TimeoutError,
)
"""Redis errors that mean "not reachable now" (down, restarting, failing over)."""


def store_error(err: BaseException) -> StoreError:
    """``err`` from redis-py as the store's error: :class:`StoreUnavailable` when Redis
    could not be reached (retryable), else :class:`StoreError`."""
    if isinstance(err, StoreError):
        return err
    if isinstance(err, _UNREACHABLE) or _closed_connection(err) or _in_handshake(err):
        return StoreUnavailable(f"redis is unreachable: {err}")
    return StoreError(f"redis refused: {err}")


_HANDSHAKE = frozenset({"connect", "connect_check_health", "on_connect", "on_connect_check_health"})
"""redis-py's functions that open a connection and greet the server."""


def _in_handshake(err: BaseException) -> bool:
    """An error while redis-py opened a connection: the connection was never usable,
    whatever the answer that broke it off (after a node restarted, a reopened
    connection was seen reading an earlier greeting's refusal of ``CLIENT SETINFO`` as
    the answer to ``HELLO``)."""
    if not isinstance(err, redis_errors.ResponseError):
        return False
    tb = err.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name in _HANDSHAKE and code.co_filename.startswith(_DRIVER_DIRS):
            return True
        tb = tb.tb_next
    return False


def _closed_connection(err: BaseException) -> bool:
    """A connection torn down under redis-py -- to a master that just died, or being
    re-established -- which surfaces as asyncio's (and uvloop's) ``RuntimeError``
    ("closed"; or "read() called while another coroutine is already waiting" when a
    subscription and the listener both reconnect the pub/sub connection), or as a
    ``TypeError``/``AttributeError`` about ``None`` raised inside redis-py or asyncio's
    streams (redis-py issue 4287: the transport's internals are cleared when the peer
    resets it)."""
    if isinstance(err, RuntimeError):
        return "closed" in str(err) or _raised_in(err, _DRIVER_DIRS)
    if isinstance(err, TypeError | AttributeError) and "NoneType" in str(err):
        return _raised_in(err, _DRIVER_DIRS)
    return False


_DRIVER_DIRS = tuple(
    os.path.dirname(module.__file__ or "") + os.sep for module in (redis_errors, asyncio)
)
"""Where a connection's own failures are raised: redis-py's package and asyncio's."""


def _raised_in(err: BaseException, folders: tuple[str, ...]) -> bool:
    """Whether the innermost frame of ``err``'s traceback is in one of ``folders``."""
    tb = err.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(folders)


def key(table: str, name: str) -> str:
    """``th:{T}:name``: every key of one table shares the hash tag ``{T}``."""
    return f"th:{{{table}}}:{name}"


def table_of(name: str) -> str:
    """The table id inside a key or channel name (its hash tag)."""
    return name[name.index("{") + 1 : name.index("}")]


def pack(value: Any) -> bytes:
    out: bytes = msgpack.packb(value, use_bin_type=True)
    return out


def unpack(blob: bytes) -> Any:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)


def index_key(kind: str, table: str, shards: int) -> str:
    """The sorted set of kind ``tables`` or ``deadlines`` that lists ``table``.

    One Redis: the global ``th:tables`` / ``th:deadlines``.  Redis Cluster: one of
    ``shards`` sets ``th:{ixN}:<kind>`` (N from the table's hash slot), so no command
    touches two slots; readers go through :func:`index_keys`.
    """
    if shards == 1:
        return f"th:{kind}"
    return f"th:{{ix{key_slot(table.encode()) % shards}}}:{kind}"


def index_keys(kind: str, shards: int) -> list[str]:
    """Every sorted set of ``kind`` (see :func:`index_key`)."""
    if shards == 1:
        return [f"th:{kind}"]
    return [f"th:{{ix{n}}}:{kind}" for n in range(shards)]


def split_durability(url: str) -> tuple[str, str]:
    """The store URL without its ``durability=`` query parameter, and that durability
    (``memory`` when absent): what an ``ok`` waits for (docs/design.md "Past one Redis")."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    chosen = [v for k, v in query if k == "durability"]
    durability = chosen[-1] if chosen else "memory"
    if durability not in DURABILITIES:
        raise ValueError(
            f"durability={durability} in the store URL: use one of {', '.join(DURABILITIES)}"
        )
    rest = urlencode([(k, v) for k, v in query if k != "durability"])
    return urlunsplit(parts._replace(query=rest)), durability


P = ParamSpec("P")
R = TypeVar("R")


def translated(
    method: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``method`` raising the store's errors (:func:`store_error`) for redis-py's."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except TimeoutError:
            raise  # asyncio's: an answer (a forwarded command's) that did not come in time
        except (redis_errors.RedisError, OSError) as err:
            raise store_error(err) from err
        except (RuntimeError, TypeError, AttributeError) as err:
            if not _closed_connection(err):
                raise
            raise store_error(err) from err

    return wrapper


DRIVER_LOGGERS = ("redis.asyncio.cluster", "redis.cluster", "redis.asyncio.connection")
"""redis-py's loggers that report its own recovery from a lost connection."""


class DriverFaults(logging.Filter):
    """redis-py logs its own failed recovery steps after a master died (e.g. "shard
    subscription reconciliation failed", with a traceback, at ERROR) and retries by
    itself: for a connection torn down under it, that is the store out of reach -- one
    line per outage (``ops/faults.store_unreachable``), not a traceback per attempt.
    Anything else it logs passes unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        err = record.exc_info[1] if record.exc_info else None
        if err is None or not isinstance(store_error(err), StoreUnavailable):
            return True
        store_unreachable("redis-py's own reconnection", err)
        return False


def quiet_driver_faults() -> None:
    """Install :class:`DriverFaults` on redis-py's loggers (once)."""
    for name in DRIVER_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, DriverFaults) for f in logger.filters):
            logger.addFilter(DriverFaults())
