"""redis-py's failures as the store's errors: a connection to a master that died is the
store out of reach (``unavailable``), never a server bug (``internal_error``)."""

from __future__ import annotations

import asyncio.streams
import logging
from typing import Any

import pytest
import redis.asyncio.connection
import redis.exceptions

from tablehub.server.store.redis_keys import quiet_driver_faults, store_error, translated
from tablehub.server.tables.journal import StoreError, StoreUnavailable

CLOSED = (
    "unable to perform operation on <TCPTransport closed=True reading=False>; the handler is closed"
)


@pytest.mark.parametrize(
    "err",
    [
        redis.exceptions.ConnectionError("Connection closed by server."),
        redis.exceptions.TimeoutError("Timeout reading from socket"),
        ConnectionResetError(104, "Connection reset by peer"),
        RuntimeError(CLOSED),
    ],
)
def test_a_lost_connection_is_the_store_out_of_reach(err: BaseException) -> None:
    assert isinstance(store_error(err), StoreUnavailable)


def test_a_refusal_is_a_store_error_not_the_store_out_of_reach() -> None:
    refused = store_error(redis.exceptions.ResponseError("ERR unknown command"))
    assert isinstance(refused, StoreError) and not isinstance(refused, StoreUnavailable)


async def test_a_refusal_while_a_connection_is_opened_is_the_store_out_of_reach(
    redis_url: str,
) -> None:
    """A connection whose greeting failed was never usable: the store out of reach, not
    a bug (a node restarting under redis-py once broke a reopened pub/sub connection's
    greeting off with an earlier greeting's answer; a refused client name does the same
    here, for real)."""
    client = redis.asyncio.Redis.from_url(redis_url, client_name="two words")
    try:
        with pytest.raises(redis.exceptions.ResponseError) as refused:
            await client.ping()
    finally:
        await client.aclose()
    assert isinstance(store_error(refused.value), StoreUnavailable)


async def test_translated_calls_raise_the_stores_errors() -> None:
    @translated
    async def closed() -> None:
        raise RuntimeError(CLOSED)

    @translated
    async def bug() -> None:
        raise RuntimeError("a bug")

    with pytest.raises(StoreUnavailable):
        await closed()
    with pytest.raises(RuntimeError, match="a bug"):
        await bug()


def raised_in(module: Any, source: str) -> BaseException:
    """The exception ``source`` raises, as if raised by code in ``module``'s file."""
    namespace: dict[str, Any] = {}
    exec(compile(f"def fail():\n    {source}\n", module.__file__, "exec"), namespace)
    try:
        namespace["fail"]()
    except Exception as err:
        return err
    raise AssertionError("it did not fail")


@pytest.mark.parametrize(
    ("module", "source"),
    [
        (redis.asyncio.connection, "None.writelines([b'PING'])"),  # redis-py issue 4287
        (asyncio.streams, "getattr(None, 'write_ready', None)()"),  # TypeError (3.12)
        (
            asyncio.streams,
            "raise RuntimeError('read() called while another coroutine is "
            "already waiting for incoming data')",
        ),
    ],
)
def test_a_transport_torn_down_under_redis_py_is_the_store_out_of_reach(
    module: Any, source: str
) -> None:
    assert isinstance(store_error(raised_in(module, source)), StoreUnavailable)


async def test_the_same_errors_in_our_own_code_stay_bugs() -> None:
    @translated
    async def bug() -> None:
        raise raised_in(__import__(__name__), "None.writelines([b'PING'])")

    with pytest.raises(AttributeError):
        await bug()


def test_redis_pys_own_failover_tracebacks_become_one_line_per_outage() -> None:
    """redis-py logs its failed recovery steps with tracebacks at ERROR (issue 35: one
    per failover): a torn-down connection is the store out of reach, counted and said
    once per outage; anything else it logs passes as it is."""
    logger = logging.getLogger("redis.asyncio.cluster")
    seen: list[logging.LogRecord] = []

    class Kept(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    handler = Kept()
    logger.addHandler(handler)
    try:
        quiet_driver_faults()
        quiet_driver_faults()  # installed once however many stores start
        torn = raised_in(redis.asyncio.connection, "None.writelines([b'SSUBSCRIBE'])")
        logger.error("shard subscription reconciliation failed: %r", torn, exc_info=torn)
        assert seen == []
        other = ValueError("not a connection")
        logger.error("something else: %r", other, exc_info=other)
        assert [r.getMessage() for r in seen] == ["something else: ValueError('not a connection')"]
    finally:
        logger.removeHandler(handler)
        logger.filters.clear()
