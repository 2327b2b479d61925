"""Errors of the table layer; ``code`` is the stable wire error code (protocol/v1/index.json)."""

from __future__ import annotations


class TableError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
