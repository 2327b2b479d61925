"""Errors of the table layer; ``code`` is the stable wire error code (protocol/v1/index.json)."""

from __future__ import annotations


class TableError(Exception):
    """A refused table command.  ``retry_ms``, on retryable errors (``overloaded``), is
    how long a client should wait before sending the same request again."""

    def __init__(self, code: str, message: str, retry_ms: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_ms = retry_ms


RETRY_UNAVAILABLE_MS = 1000


def unavailable() -> TableError:
    """The store cannot be reached (Redis down, restarting or failing over): retryable;
    an ``act`` refused so may or may not have been stored."""
    return TableError(
        "unavailable",
        "the server cannot reach its game storage just now; try again shortly",
        RETRY_UNAVAILABLE_MS,
    )
