"""``tablehub replay``: step through a finished game, or check a game record.

::

    tablehub replay TABLE [--url URL] [--seat N]      # step through the game in the terminal
    tablehub replay --verify FILE                      # check a record file's every hash

``--verify`` recomputes every view of the record (protocol/v1/games/game_record.json)
from its seed and actions with the project's own engines and checks every view hash and chain
link; it needs no server.  Exit status: 0 the record checks out (or the replay was
left), 1 it does not, 2 bad arguments or a file that is no record, 3 server
unreachable, 4 no such table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from tablehub.clients.cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, CliError
from tablehub.clients.cli.numbering import seat_option

EXIT_MISMATCH = 1

REPLAY_EPILOG = """\
keys in the replay (one a line): Enter or n  next move, b  back, f  first, l  last,
t N (or r N)  jump to turn N (round N in 9-tower and Termite Towers), v N  jump to
version N, s N  watch as seat N (from 1, as on the screen), s  watch as the
spectators, a  all-seeing: every hand and face-down piece (h then lists what was
hidden at that move), q  quit.  A game still being played shows only your own seat or
the spectators' view; a finished one any seat's, or all-seeing.

exit status: 0 done (--verify: the record checks out), 1 --verify: it does not,
2 bad arguments or not a record, 3 server unreachable, 4 no such table."""


def add_replay_command(sub: Any) -> None:
    """Add ``replay`` to the ``tablehub`` subcommands (entry point ``tablehub.commands``)."""
    replay = sub.add_parser(
        "replay",
        help="step through a finished game, or verify a game record file",
        description="Step through a finished table's game move by move in the terminal, "
        "or (--verify FILE) check every view hash of a downloaded game record.",
        epilog=REPLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("table", nargs="?", help="the table whose game to replay")
    replay.add_argument("--verify", metavar="FILE", help="check a game record file")
    replay.add_argument("--url", default=None, help="the server (env TABLEHUB_URL)")
    replay.add_argument(
        "--seat",
        type=seat_option,
        default=None,
        metavar="N",
        help="watch as seat N (numbered from 1, as on the screen); default: the spectators",
    )
    replay.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    if args.verify is not None:
        if args.table is not None:
            print("tablehub replay: give a TABLE or --verify FILE, not both", file=sys.stderr)
            return EXIT_USAGE
        return verify_file(Path(args.verify), sys.stdout)
    if args.table is None:
        print("tablehub replay: give a TABLE to replay, or --verify FILE", file=sys.stderr)
        return EXIT_USAGE
    from tablehub.clients.cli.lines import FdLines
    from tablehub.clients.cli.main import _default_url
    from tablehub.clients.cli.replaying import run_replay_screen

    url = args.url or _default_url()
    try:
        return asyncio.run(run_replay_screen(url, args.table, args.seat, FdLines(), sys.stdout))
    except CliError as err:
        print(f"tablehub replay: {err.message}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def verify_file(path: Path, out: TextIO) -> int:
    """Check the record in ``path``; one line per finding, in words."""
    from tablehub.server.games import get_game
    from tablehub.server.tables.gamerecord import RecordError, verify

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        out.write(f"{path}: cannot read a game record from it ({err})\n")
        return EXIT_USAGE
    if not isinstance(doc, dict):
        out.write(f"{path}: this is not a tablehub game record\n")
        return EXIT_USAGE
    game = get_game(str(doc.get("game")))
    given = doc.get("seats")
    seats: list[Any] = given if isinstance(given, list) else []
    title = game.name if game is not None else str(doc.get("game"))
    out.write(f"Game record of table {doc.get('table')}: {title}, {len(seats)} seats\n")
    try:
        checked = verify(doc)
    except RecordError as err:
        if err.version is None:
            out.write(f"{path}: {err.message}\n")
            return EXIT_USAGE
        reason = err.message.removeprefix(f"version {err.version}: ")
        out.write(f"FAILED at version {err.version}: {reason}\n")
        out.write("The record does not match the game its actions play: it was changed.\n")
        return EXIT_MISMATCH
    out.write(
        f"Checked {checked} versions from the seed and the actions: every view hash "
        f"(the spectators' and {len(seats)} seats') and every chain link match.\n"
    )
    out.write("The record is genuine.\n")
    return 0
