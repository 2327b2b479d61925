"""``tablehub play`` / ``tablehub watch``: the reference terminal client.

::

    tablehub play [--url URL] [--name NAME] [--game nmbr9] [--seats N] [--bots N [--bot-level L]]
                  [--turn-seconds S] [--option key=value ...]       # create a table
    tablehub play --table ID [--seat N]                # join (seat N from 1) / come back
    tablehub play ... --script [--auto] [--brief]  # JSON lines for programs (script.py)
    tablehub watch TABLE [--url URL] [--json [--brief]]              # spectate

``--url wss://…`` speaks TLS, trusting the system's CAs and ``--cafile FILE`` (env
``TABLEHUB_CAFILE``): e.g. the throwaway certificate ``tablehub cluster`` prints.

Without ``--table``, ``play`` creates a table, prints its id and the command others
run to join, adds ``--bots`` bots and takes a seat.  Seat tokens are saved per
``--name`` (see ``tokens.py``), so re-running ``tablehub play --table ID`` after a
crash takes the same seat back, and people sharing a machine keep their own seats.
Exit codes are listed in ``errors.py`` (0 game over or quit, 2 bad arguments, 3
server unreachable, 4 no such table / no seat, 5 input ended on your turn, 130 Ctrl-C).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from tablehub.clients.cli.connection import CAFILE_ENV
from tablehub.clients.cli.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, CliError
from tablehub.clients.cli.lines import FdLines
from tablehub.clients.cli.link import SeatRequest
from tablehub.clients.cli.numbering import seat_option
from tablehub.clients.cli.tokens import TokenStore
from tablehub.protocol.codec import index

DEFAULT_URL = "ws://127.0.0.1:8000/ws"
MAX_NAME = 40  # protocol/v1/hello.json

PLAY_EPILOG = """\
seat tokens are saved per --name, so `tablehub play --table ID --name NAME` after a crash
takes that name's seat back (and never another name's).  Seats are numbered from 1, as
on the screen and in the browser: --seat 1 is the first seat.

--script: stdin is read on your turn, one move a line: a JSON action, {"pick": i} or i
(the i-th legal action, from 0), the game's move syntax, or "quit".  stdout is one JSON
event a line: created, joined, bot, presence, view, events, your_turn, acted, error,
reconnected, finished (the last line), left.  Its fields are the protocol's: a "seat"
field counts from 0 ("seat": 0 is the screen's seat 1); the client's own sentences
("why") count from 1 like the screen.

exit status: 0 game over (or quit), 2 bad arguments, 3 server unreachable, 4 no such
table / no seat, 5 input ended on your turn, 130 interrupted."""


def _default_url() -> str:
    return os.environ.get("TABLEHUB_URL", DEFAULT_URL)


def _default_name() -> str:
    return (os.environ.get("USER") or os.environ.get("USERNAME") or "player")[:MAX_NAME]


def parse_option(text: str) -> tuple[str, Any]:
    """``key=value``; the value is read as JSON when it can be (``7``, ``true``), else a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def add_play_command(sub: Any) -> None:
    """Add ``play`` to the ``tablehub`` subcommands (entry point ``tablehub.commands``)."""
    play = sub.add_parser(
        "play",
        help="create or join a table and play in the terminal",
        description="Create a table (no --table) or join one, and play. "
        "--script turns it into a JSON-lines client for programs.",
        epilog=PLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("--url", default=_default_url(), help="hub WebSocket URL (env TABLEHUB_URL)")
    play.add_argument("--name", default=_default_name(), help="your display name")
    play.add_argument(
        "--game",
        default="nmbr9",
        help=f"game id when creating (default nmbr9): {', '.join(index()['games'])} "
        "(a mistyped id is answered with the server's games)",
    )
    play.add_argument("--seats", type=int, default=2, help="seats when creating (default 2)")
    play.add_argument("--table", help="join this table instead of creating one")
    play.add_argument(
        "--seat",
        type=seat_option,
        metavar="N",
        help="take seat N, numbered from 1 as on the screen (default: the first free one)",
    )
    play.add_argument("--bots", type=int, default=0, help="bots to add when creating")
    play.add_argument(
        "--bot-level",
        metavar="LEVEL",
        help="level of those bots (default: the game's default); a level the game does "
        "not have is answered with its levels",
    )
    play.add_argument("--turn-seconds", type=float, help="turn deadline when creating")
    play.add_argument(
        "--option",
        action="append",
        default=[],
        type=parse_option,
        metavar="KEY=VALUE",
        help="table option when creating (repeatable), e.g. --option seed=7",
    )
    play.add_argument(
        "--script", action="store_true", help="JSON lines: moves on stdin, what happens on stdout"
    )
    play.add_argument(
        "--auto", action="store_true", help="with --script (implied): play the first legal action"
    )
    play.add_argument(
        "--brief", action="store_true", help="with --script: view lines without the full view"
    )
    play.add_argument("--tokens", type=Path, help="seat token file (env TABLEHUB_TOKENS)")
    _add_cafile(play)
    play.set_defaults(run=run_play_command)


def _add_cafile(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cafile",
        default=os.environ.get(CAFILE_ENV),
        help="for a wss:// URL: also trust the certificates in this PEM file, e.g. the "
        f"one tablehub cluster made (env {CAFILE_ENV})",
    )


def _trust(args: argparse.Namespace) -> None:
    """Hand ``--cafile`` to the connections (connection.tls_for reads it); CliError(2)
    when the file cannot be read."""
    if args.cafile is None:
        return
    if not os.path.isfile(args.cafile):
        raise CliError(EXIT_USAGE, f"--cafile {args.cafile}: no such file")
    os.environ[CAFILE_ENV] = args.cafile


def add_watch_command(sub: Any) -> None:
    """Add ``watch`` to the ``tablehub`` subcommands (entry point ``tablehub.commands``)."""
    watch = sub.add_parser("watch", help="spectate a table live")
    watch.add_argument("table")
    watch.add_argument("--url", default=_default_url(), help="hub WebSocket URL (env TABLEHUB_URL)")
    watch.add_argument("--name", default="spectator", help="your display name")
    watch.add_argument("--json", action="store_true", help="print JSON lines instead of screens")
    watch.add_argument(
        "--brief", action="store_true", help="with --json: view lines without the full view"
    )
    _add_cafile(watch)
    watch.set_defaults(run=run_watch_command)


def seat_request(args: argparse.Namespace) -> SeatRequest:
    """The play flags as a SeatRequest; CliError(2) for contradictions."""
    if not 1 <= len(args.name) <= MAX_NAME:
        raise CliError(EXIT_USAGE, f"--name must be 1 to {MAX_NAME} characters")
    if args.table is None:
        if args.seats < 1:
            raise CliError(EXIT_USAGE, "--seats must be at least 1")
        if not 0 <= args.bots < args.seats:
            raise CliError(EXIT_USAGE, f"--bots must leave you a seat (0–{args.seats - 1})")
    options = dict(args.option)
    if args.turn_seconds is not None:
        options["turn_seconds"] = args.turn_seconds
    return SeatRequest(
        url=args.url,
        name=args.name,
        game=args.game,
        seats=args.seats,
        table=args.table,
        seat=args.seat,
        bots=args.bots,
        bot_level=args.bot_level,
        options=options,
    )


def _run(coroutine: Coroutine[Any, Any, int]) -> int:
    """Run an entry point; CliError and Ctrl-C become a message and an exit code."""
    try:
        return asyncio.run(coroutine)
    except CliError as err:
        print(f"tablehub: {err.message}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("tablehub: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `tablehub play --script | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BUG


def run_play_command(args: argparse.Namespace) -> int:
    try:
        _trust(args)
        req = seat_request(args)
    except CliError as err:
        print(f"tablehub: {err.message}", file=sys.stderr)
        return err.exit_code
    tokens = TokenStore(args.tokens)
    if args.script or args.auto:
        from tablehub.clients.cli.script import json_line, run_script

        def emit(event: dict[str, Any]) -> None:
            sys.stdout.write(json_line(event) + "\n")
            sys.stdout.flush()

        lines = None if args.auto else FdLines(sys.stdin.fileno())
        return _run(run_script(req, tokens, emit, lines, full_views=not args.brief))

    from tablehub.clients.cli.play import run_play

    return _run(run_play(req, tokens, FdLines(sys.stdin.fileno()), sys.stdout, sys.stdin.isatty()))


def run_watch_command(args: argparse.Namespace) -> int:
    from tablehub.clients.cli.watch import run_watch

    try:
        _trust(args)
    except CliError as err:
        print(f"tablehub: {err.message}", file=sys.stderr)
        return err.exit_code

    return _run(
        run_watch(args.url, args.table, sys.stdout, args.name, args.json, full_views=not args.brief)
    )
