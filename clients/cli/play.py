"""``tablehub play``: play at a table from a terminal.

The screen (``screen.compose``) is redrawn on every change of the table; under it
come the last messages and, on our turn, the numbered legal actions (10 a page,
best first when the game sorts them).  Input is read beside the table loop (see
``lines.FdLines``), so updates keep arriving while you think.  You type:

* a number -- play that suggestion;  ``more`` / ``legal`` -- page through them;
* a move in the game's syntax (``help`` shows it) or a JSON action object;
* ``help``, ``quit`` (or Ctrl-D / Ctrl-C: your seat stays yours -- rerun the same
  ``tablehub play --table ID`` to take it back with the saved token).

A refused move shows the server's reason and the prompt comes back.  When input is
not a terminal (a pipe), a move read before your turn waits for it, so ``printf
'1\\n1\\n…' | tablehub play …`` plays one line per turn.
"""

from __future__ import annotations

import asyncio
from typing import Any, TextIO

from tablehub.clients.cli.connection import ServerError
from tablehub.clients.cli.errors import EXIT_OK
from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.lines import LineSource
from tablehub.clients.cli.link import Change, Link, SeatRequest, game_names, take_seat
from tablehub.clients.cli.screen import compose, deadline_text
from tablehub.clients.cli.terminal import Terminal
from tablehub.clients.cli.tokens import TokenStore
from tablehub.clients.cli.turns import TurnTracker, first_of, is_my_turn, now_ms

PAGE = 10

COMMANDS_HELP = """\
commands:  N       play suggestion number N
           more    next page of suggestions      legal   first page again
           help    this text                     quit    leave (your seat stays yours)
           or type a move in the game's syntax (below), or a JSON action object"""


def comeback_hint(link: Link) -> str:
    return (
        f"Your seat at table {link.table} stays yours: run "
        f"`tablehub play --table {link.table} --url {link.url}` to take it back."
    )


class InteractivePlayer:
    def __init__(
        self,
        link: Link,
        terminal: Terminal,
        lines: LineSource,
        tty_input: bool,
        banner: list[str],
        names: dict[str, str],
    ) -> None:
        self.link = link
        self.terminal = terminal
        self.lines = lines
        self.tty_input = tty_input
        self.banner = banner
        self.names = names
        self.tracker = TurnTracker(link, self.on_change, self.on_tick)
        self.messages: list[str] = []
        self.page = 0
        self._shown_legal: list[dict[str, Any]] = []
        self._text: GameText | None = None

    @property
    def view(self) -> dict[str, Any]:
        return self.link.mirror.view

    @property
    def text(self) -> GameText:
        game = str(self.view.get("game", ""))
        if self._text is None or self._text.game_id != game:
            self._text = GameText(game)
        return self._text

    # -- drawing -----------------------------------------------------------------------------

    def on_change(self, change: Change) -> None:
        if change.reconnected:
            self.messages = ["(the connection dropped and was restored)"]
        if self.tracker.legal != self._shown_legal:
            self._shown_legal = self.tracker.legal
            self.page = 0
        self.draw()

    def on_tick(self) -> None:
        deadline = self.view.get("deadline")
        if isinstance(deadline, int):
            self.terminal.tick(deadline_text(deadline, now_ms()))

    def draw(self) -> None:
        mirror = self.link.mirror
        game = str(self.view.get("game", ""))
        screen = compose(
            mirror.view,
            mirror.presence,
            seat=self.link.seat,
            text=self.text,
            game_name=self.names.get(game, game),
            version=mirror.version,
            banner=self.banner,
            now_ms=now_ms(),
        )
        footer = ["", *self.messages, *self._turn_lines()]
        self.terminal.show(screen, footer, self.prompt())

    def _turn_lines(self) -> list[str]:
        status = self.view.get("status")
        if status == "finished":
            return []
        if not self.tracker.is_ready():
            if status == "waiting":
                return ["waiting for every seat to be taken…   (help, quit)"]
            return ["waiting for the others…   (help, quit)"]
        legal = self.tracker.legal
        if not legal:
            return ["your turn: type a move (help shows the syntax)"]
        pages = (len(legal) + PAGE - 1) // PAGE
        self.page %= pages
        start = self.page * PAGE
        lines = [f"your turn — {len(legal)} legal moves, page {self.page + 1}/{pages}:"]
        for n, action in enumerate(legal[start : start + PAGE], start + 1):
            lines.append(f"  {n:>3}. {self.text.describe(action)}")
        lines.append("type a number, a move, 'more', 'help' or 'quit'")
        return lines

    def prompt(self) -> str:
        version = self.link.mirror.version
        if self.view.get("status") == "finished":
            return ""
        if self.tracker.is_ready():
            return f"(turn {self.view.get('turn')}, v{version}) your move> "
        return f"(v{version}) > "

    # -- input -------------------------------------------------------------------------------

    async def read_input(self) -> int:
        """Handle typed lines until ``quit`` (the table loop ends the run at game over)."""
        while True:
            line = await self.lines.readline()
            if line is None:
                if self.tty_input:  # Ctrl-D
                    return self.quit()
                await self.tracker.end_of_input()
                continue
            code = await self.command(line.strip())
            if code is not None:
                return code
            self.terminal.refresh()  # a fresh prompt after every line typed
            self.draw()

    def quit(self) -> int:
        self.terminal.say("\n" + comeback_hint(self.link))
        return EXIT_OK

    async def command(self, cmd: str) -> int | None:
        """One typed line; an exit code ends the program."""
        word = cmd.lower()
        if not word:
            self.terminal.refresh()
            return None
        if word in ("q", "quit", "exit"):
            return self.quit()
        if word in ("h", "help", "?"):
            self.messages = [COMMANDS_HELP, "", *self.text.help.splitlines()]
            return None
        if word in ("m", "more", "n", "next"):
            self.page += 1
            self.messages = []
            return None
        if word in ("l", "legal", "moves"):
            self.page = 0
            self.messages = []
            return None
        if not self.tracker.is_ready():
            if self.tty_input and not is_my_turn(self.view, self.link.seat):
                self.messages = ["it is not your turn yet: wait for the 'your move>' prompt"]
                return None
            # Our turn, but its legal moves are still being fetched (or, from a pipe,
            # the line came early): wait for the turn instead of dropping the line.
            await self.tracker.my_turn()
        action = self._read_action(cmd)
        if action is not None:
            await self._play(action)
        return None

    def _read_action(self, cmd: str) -> dict[str, Any] | None:
        if cmd.isdigit():
            legal = self.tracker.legal
            number = int(cmd)
            if not 1 <= number <= len(legal):
                self.messages = [f"there is no suggestion {number}: choose 1–{len(legal)}"]
                return None
            return legal[number - 1]
        try:
            return self.text.parse(cmd, self.view.get("board"), self.link.seat)
        except ValueError as err:
            self.messages = [f"cannot read that move: {err}", "('help' shows the move syntax)"]
            return None

    async def _play(self, action: dict[str, Any]) -> None:
        described = self.text.describe(action)
        try:
            async with self.tracker.acting():
                version = await self.link.act(action)
                self.messages = [f"✓ you played: {described}"]
                self.tracker.acted(version)
        except ServerError as err:
            self.messages = [
                f"✗ refused ({err.code}): {err.message}",
                f"  (your move was: {described}) — try another one",
            ]
            return
        except ConnectionError:
            self.messages = ["the connection dropped; reconnecting — try again in a moment"]
            self.tracker.lost()


async def run_play(
    req: SeatRequest,
    tokens: TokenStore,
    lines: LineSource,
    out: TextIO,
    tty_input: bool,
    tty_output: bool | None = None,
) -> int:
    """Take the seat and play interactively until the game ends or you quit."""
    terminal = Terminal(out, tty_output)
    banner: list[str] = []

    def notify(kind: str, fields: dict[str, Any]) -> None:
        table = fields.get("table")
        if kind == "created":
            banner.extend(
                [
                    f"  ★ new table: {table}  ({fields['game']}, {fields['seats']} seats)",
                    f"  others join with:  tablehub play --table {table} --url {req.url}",
                    f"  spectators watch:  tablehub watch {table} --url {req.url}",
                ]
            )
            terminal.say("\n".join(banner))
        elif kind == "joined":
            again = " (your seat, taken back with the saved token)" if fields["resumed"] else ""
            terminal.say(f"joined table {table} as seat {fields['seat']}{again}")
        elif kind == "stale_token":
            terminal.say(f"the saved token for table {table} was refused; taking a free seat")
        elif kind == "bot":
            terminal.say(f"a bot took seat {fields['seat']}")

    link = await take_seat(req, tokens, notify)
    names = await game_names(link.conn)
    player = InteractivePlayer(link, terminal, lines, tty_input, banner, names)
    try:
        code = await first_of(player.tracker.follow(), player.read_input())
    except asyncio.CancelledError:  # Ctrl-C
        terminal.say("\n" + comeback_hint(link))
        raise
    finally:
        await link.close()
    if link.mirror.view.get("status") == "finished":
        tokens.forget(req.url, link.table)
        terminal.say(f"\nGame over at table {link.table}.")
    return code
