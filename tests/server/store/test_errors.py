"""redis-py's failures as the store's errors: a connection to a master that died is the
store out of reach (``unavailable``), never a server bug (``internal_error``)."""

from __future__ import annotations

import pytest
import redis.exceptions

from tablehub.server.store.redis_keys import store_error, translated
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
