"""``tablehub replay TABLE``: step through a game in the terminal (protocol/README.md
"Replays").

The views come from the server's ``replay`` pages (the view at the first version, then
one patch per version, each hash checked); the screen is the table screen of ``play``
and ``watch`` for the chosen seat (or the spectators), with the move's line in words
and the keys below it, and fits a window of 80×24.  Keys (one a line): Enter or ``n``
next move, ``b`` back, ``f`` first, ``l`` last, ``t N`` (or ``r N``) turn or round N
(numbered by the server: rounds in 9-tower and Termite Towers, turns in the others),
``v N`` version N, ``s N`` watch as seat N (from 1, as the screen numbers them), ``s``
as the spectators, ``a`` all-seeing (a finished game: every hand and face-down piece;
``h`` then lists what was hidden at that move), ``q`` quit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TextIO

import jsonpatch
import websockets

from tablehub.clients.cli.connection import Connection, ServerError
from tablehub.clients.cli.errors import EXIT_OK, EXIT_TABLE, CliError
from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.lines import LineSource
from tablehub.clients.cli.link import connect, game_names, table_error
from tablehub.clients.cli.numbering import seat_index, seat_words
from tablehub.clients.cli.screen import Screen, compose, seat_name
from tablehub.clients.cli.terminal import Terminal
from tablehub.protocol.viewhash import view_hash

PROMPT = "replay> "


def keys(round_name: str, all_seeing: bool) -> str:
    """The keys line (within 80 columns)."""
    jump = "r N round" if round_name == "round" else "t N turn"
    view = "h hidden" if all_seeing else "a all"
    return f"Enter next · b back · f/l first/last · {jump} · s N seat · {view} · q quit"


@dataclass
class Replay:
    """Every version of one audience's replay (``all_seeing``: the whole game's)."""

    game: str
    status: str
    seat: int | None
    all_seeing: bool = False
    round_name: str = "turn"
    """What ``numbers`` count: ``round`` or ``turn`` (the server's ``round_name``)."""
    views: list[dict[str, Any]] = field(default_factory=list)
    moves: dict[int, dict[str, Any]] = field(default_factory=dict)
    numbers: list[int | None] = field(default_factory=list)
    """Each version's round (or turn) number, as the server numbers it; None before play."""

    @property
    def last(self) -> int:
        return len(self.views) - 1

    def rounds(self) -> dict[int, int]:
        """Round (or turn) number -> the first version of it, in order."""
        starts: dict[int, int] = {}
        for version, number in enumerate(self.numbers):
            if number is not None and number not in starts:
                starts[number] = version
        return starts


async def load(conn: Connection, table: str, seat: int | None, all_seeing: bool = False) -> Replay:
    """Every page of ``seat``'s replay (``all_seeing``: the whole game's), each view
    checked against its hash."""
    first = 0
    replay: Replay | None = None
    asked: dict[str, Any] = {"all_seeing": True} if all_seeing else {"seat": seat}
    while True:
        reply = await conn.request("replay", table=table, **asked, **{"from": first})
        if replay is None:
            replay = Replay(str(reply["game"]), str(reply["status"]), seat, all_seeing)
            replay.round_name = str(reply.get("round_name", "turn"))
        start = reply["start"]
        view = start["view"]
        if view_hash(view) != start["hash"]:
            raise CliError(EXIT_TABLE, "the replay did not check out (a view hash differs)")
        replay.views[start["version"] :] = [view]
        replay.numbers[start["version"] :] = [start.get("round")]
        for move in reply["moves"]:
            view = jsonpatch.apply_patch(view, move["ops"])
            if view_hash(view) != move["hash"]:
                raise CliError(
                    EXIT_TABLE, f"the replay did not check out at move {move['version']}"
                )
            replay.views.append(view)
            replay.numbers.append(move.get("round"))
            replay.moves[move["version"]] = move
        if replay.last >= reply["newest"] or not reply["moves"]:
            return replay
        first = replay.last


def narrate(replay: Replay, version: int, text: GameText) -> str:
    """The move that made ``version``, in the game log's words."""
    if version == 0:
        return "The table is set up; nobody has sat down yet."
    move = replay.moves.get(version)
    if move is None:
        return ""
    view = replay.views[version]
    if move["kind"] == "seat":
        taken = view["seats"][move["seat"]]
        if taken.get("bot"):
            return f"A bot took {seat_words(move['seat'])}."
        return f"{taken.get('name') or 'Someone'} sat down at {seat_words(move['seat'])}."
    before = replay.views[version - 1].get("board")
    said = [
        phrase if actor is None else f"{seat_name(view, actor)}: {phrase}"
        for actor, phrase in text.news(before, view.get("board"), move.get("events") or [])
    ]
    line = "; ".join(said) or f"{seat_name(view, move['seat'])} moved."
    if move.get("by") == "deadline":
        return f"Time ran out for {seat_name(view, move['seat'])}: the bot played. {line}"
    return line


class ReplayScreen:
    def __init__(self, replay: Replay, table: str, game_name: str, terminal: Terminal) -> None:
        self.replay = replay
        self.table = table
        self.game_name = game_name
        self.terminal = terminal
        self.text = GameText(replay.game)
        rounds = replay.rounds()
        self.at = next(iter(rounds.values()), 0)
        self.message = ""
        self.listing = False
        """Showing what was hidden at this move (``h``) instead of the board."""

    def draw(self) -> None:
        replay, at = self.replay, self.at
        view = {**replay.views[at], "deadline": None}  # a replay's clock is not now
        number = replay.numbers[at]
        if replay.all_seeing:
            whose = "everything (all-seeing)"
        else:
            whose = "the spectators" if replay.seat is None else seat_name(view, replay.seat)
        where = f"move {at} of {replay.last}"
        if number is not None:
            where += f" · {replay.round_name} {number} of {max(replay.rounds())}"
        footer = [
            f"▶ {narrate(replay, at, self.text)}",
            f"{where} · as {whose}",
            keys(replay.round_name, replay.all_seeing),
        ]
        if self.message:
            footer.insert(0, self.message)
        if self.listing:
            self.terminal.show(
                Screen(self.hidden_lines(view)), footer, PROMPT, "… ({hidden} more lines)"
            )
            return
        screens = [
            compose(
                view,
                {"seats": [], "spectators": 0},
                seat=replay.seat,
                text=self.text,
                game_name=f"replay of {self.game_name}",
                version=at,
                compact=compact,
                fit=None if not compact else tuple(self.terminal.size),  # type: ignore[arg-type]
            )
            for compact in (False, True)
        ]
        screen = screens[0] if self.terminal.fits(screens[0], footer) else screens[1]
        self.terminal.show(screen, footer, PROMPT, cut_note="… ({hidden} more lines)")

    def hidden_lines(self, view: dict[str, Any]) -> list[str]:
        """What the all-seeing view shows that was hidden at this move, in words."""
        lines = [
            f"tablehub · replay of {self.game_name} · hidden from the players at move {self.at}"
        ]
        if "revealed" not in view.get("board", {}):
            lines.append("Nothing is hidden in this game: every player sees the whole table.")
        for part in view.get("board", {}).get("revealed", []):
            what = (
                part["what"]
                if part["seat"] is None
                else f"{seat_name(view, part['seat'])}: {part['what']}"
            )
            lines.append(f"{what}: {', '.join(part['items']) or 'none'}")
        return lines

    def step(self, command: str) -> bool:
        """Act on one typed line; False to quit."""
        self.message = ""
        word, _, rest = command.strip().lower().partition(" ")
        last = self.replay.last
        number = int(rest) if rest.strip().isdigit() else None
        listing, self.listing = self.listing, False
        if word in ("q", "quit", "exit"):
            return False
        if word in ("h", "hidden") and self.replay.all_seeing:
            self.listing = not listing
            return True
        if word in ("", "n", "next"):
            self.at = min(last, self.at + 1)
            if self.at == last and word:
                self.message = "That is the last move."
        elif word in ("b", "back"):
            self.at = max(0, self.at - 1)
        elif word in ("f", "first"):
            self.at = 0
        elif word in ("l", "last"):
            self.at = last
        elif word in ("t", "turn", "r", "round") and number is not None:
            rounds = self.replay.rounds()
            if number in rounds:
                self.at = rounds[number]
            else:
                name = f"{self.replay.round_name.capitalize()}s"
                self.message = (
                    f"{name} go from {min(rounds, default=1)} to {max(rounds, default=0)}."
                )
        elif word in ("v", "version") and number is not None:
            self.at = min(last, number)
        else:
            self.message = f"Not a replay key: {command.strip()!r}."
        return True


async def run_replay_screen(
    url: str,
    table: str,
    seat: int | None,
    lines: LineSource,
    out: TextIO,
    tty: bool | None = None,
) -> int:
    """Step through ``table``'s game as seat ``seat`` (None: the spectators)."""
    conn = await connect(url, "replay")
    terminal = Terminal(out, tty)
    try:
        names = await game_names(conn)
        replay = await _load(conn, url, table, seat)
        screen = ReplayScreen(replay, table, names.get(replay.game, replay.game), terminal)

        async def seen_by(wanted: int | None, all_seeing: bool = False) -> ReplayScreen:
            """The same move as another audience sees it (CliError: the screen stays)."""
            switched = await _load(conn, url, table, wanted, all_seeing=all_seeing)
            fresh = ReplayScreen(switched, table, screen.game_name, terminal)
            fresh.at = min(screen.at, switched.last)
            return fresh

        while True:
            screen.draw()
            line = await lines.readline()
            if line is None:
                break
            word, _, rest = line.strip().lower().partition(" ")
            if word in ("a", "all") and not rest.strip():
                try:
                    screen = await seen_by(None, all_seeing=True)
                except CliError as err:
                    screen.message = err.message
                    continue
                screen.message = "Everything, as the game held it: h lists what was hidden."
                continue
            if word in ("s", "seat") and (rest.strip().isdigit() or not rest.strip()):
                try:
                    wanted = seat_index(int(rest)) if rest.strip() else None
                except ValueError:  # seat 0: the screen counts from 1
                    screen.message = "Seats are numbered from 1: s 1 is the first seat."
                    continue
                try:
                    screen = await seen_by(wanted)
                except CliError as err:
                    screen.message = err.message
                continue
            if not screen.step(line):
                break
        return EXIT_OK
    finally:
        terminal.leave()
        await conn.close()


async def _load(
    conn: Connection, url: str, table: str, seat: int | None, all_seeing: bool = False
) -> Replay:
    try:
        return await load(conn, table, seat, all_seeing)
    except ServerError as err:
        if err.code in ("unauthorized", "bad_message"):
            raise CliError(EXIT_TABLE, err.message, err.code) from None
        raise table_error(err, url, table) from None
    except (ConnectionError, websockets.ConnectionClosed) as err:
        raise CliError(EXIT_TABLE, f"the connection to {url} closed: {err}") from None
