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
