"""A request the session itself refuses, before any table sees it (a connection's
limits, the hello handshake, a seat this connection does not hold).  Table refusals are
``tables.errors.TableError``; both become the same ``error`` reply on the wire."""

from __future__ import annotations


class SessionRefusal(Exception):
    """``code`` is the stable wire error code (protocol/v1/index.json)."""

    def __init__(self, code: str, message: str, retry_ms: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_ms = retry_ms
