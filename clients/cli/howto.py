"""How to play: a game's rules for players, as the server gives them (``list_games``
``howto``: sections of a title and paragraphs, protocol/README.md "How to play"),
wrapped for the terminal's ``help``.  The text is the server's, so the terminal, the
browser and the rules page say the same."""

from __future__ import annotations

import textwrap
from typing import Any

import websockets

from tablehub.clients.cli.connection import Connection, ServerError

WIDTH = 78
"""Wrapped inside an 80-column window, never splitting a word."""


def howto_lines(sections: Any, width: int = WIDTH) -> list[str]:
    """The sections as lines: a title in capitals, then its paragraphs wrapped to
    ``width``, a blank line between paragraphs; nothing for anything malformed."""
    if not isinstance(sections, list):
        return []
    lines: list[str] = []
    for section in sections:
        if not isinstance(section, dict):
            continue
        paragraphs = [p for p in section.get("paragraphs") or [] if isinstance(p, str)]
        lines.append(f"HOW TO PLAY — {str(section.get('title', '')).upper()}")
        for paragraph in paragraphs:
            lines.extend(
                textwrap.wrap(paragraph, width, break_long_words=False, break_on_hyphens=False)
            )
            lines.append("")
    return lines


async def fetch_howtos(conn: Connection) -> dict[str, list[str]]:
    """Game id -> its how-to lines (empty when the server will not say)."""
    try:
        reply = await conn.request("list_games")
    except (ServerError, ConnectionError, websockets.ConnectionClosed):
        return {}
    return {str(g["id"]): howto_lines(g.get("howto")) for g in reply.get("games", [])}
