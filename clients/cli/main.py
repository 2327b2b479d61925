"""``tablehub play`` / ``tablehub watch``: the reference terminal client."""

from __future__ import annotations

import argparse
from typing import Any


def add_client_commands(sub: Any) -> None:
    play = sub.add_parser("play", help="create or join a table and play in the terminal")
    play.add_argument("--url", default="ws://127.0.0.1:8000/ws")
    play.set_defaults(run=_not_yet)
    watch = sub.add_parser("watch", help="spectate a table live")
    watch.add_argument("table")
    watch.add_argument("--url", default="ws://127.0.0.1:8000/ws")
    watch.set_defaults(run=_not_yet)


def _not_yet(args: argparse.Namespace) -> int:
    raise SystemExit("not implemented yet")
