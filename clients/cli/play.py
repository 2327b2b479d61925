"""``tablehub play``: play at a table from a terminal.

The screen (``screen.compose``) is redrawn on every change of the table; under it
come what the other seats just did, the last messages and, on our turn, the choices.
In a window too small for the whole table (80x24) the screen is the compact one --
the card or choice and your own board first, the others condensed -- and ``board``
pages through the whole table.  Input is read beside the table loop (see
``lines.FdLines``), so updates keep arriving while you think.  You type:

* a number -- take that choice (a termite day turn is asked from the server one
  decision at a time, ``staged.StagedChoices``: die, then slot, then helper; other
  turns are grouped from the full list by ``choices.Choices`` where the game labels
  them; 9-tower's are best first, ``renderers.nmbr9.arrange_choices``);  ``more`` --
  the next choices (every one is reached, whatever the window);  ``back`` -- undo a
  decision;  ``see N`` -- draw choice N on the board;  an aim (9-tower's ``at X Y``)
  -- only the choices it keeps;
* a move in the game's syntax (``help`` shows it) or a JSON action object;
* ``board`` -- the whole table (again: the next part); ``help``; ``quit`` (or
  Ctrl-D / Ctrl-C: your seat stays yours -- rerun the same ``tablehub play --table
  ID --name NAME`` to take it back with the saved token).

A refused move shows the server's reason and the prompt comes back.  When the
deadline plays for you, a notice says so and what was played.  At the end the final
screen stays until Enter.  When input is not a terminal (a pipe), a move read before
your turn waits for it, so ``printf '1\\n1\\n…' | tablehub play …`` plays one line
per turn.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, TextIO

from tablehub.clients.cli.choices import Choices
from tablehub.clients.cli.connection import ServerError
from tablehub.clients.cli.errors import EXIT_OK, CliError
from tablehub.clients.cli.gametext import Aim, GameText
from tablehub.clients.cli.howto import fetch_howtos
from tablehub.clients.cli.lines import LineSource
from tablehub.clients.cli.link import Change, Link, SeatRequest, game_names, take_seat
from tablehub.clients.cli.numbering import seat_words
from tablehub.clients.cli.rows import Unbroken, rows_of
from tablehub.clients.cli.screen import Screen, compose, names_list, seat_name
from tablehub.clients.cli.staged import StagedChoices
from tablehub.clients.cli.terminal import Terminal
from tablehub.clients.cli.tokens import TokenStore
from tablehub.clients.cli.turns import TurnTracker, first_of, is_my_turn, now_ms

PAGE = 10
COMPACT_PAGE = 5
MIN_PAGE = 3
NEWS_LINES = 4
TIMED_OUT = "⏰ out of time: the server played for you"

COMMANDS_HELP = """\
commands:  N      take choice N               back   undo the last choice
           more   the next choices            legal  every choice again
           see N  draw choice N on your board (9-tower: it shows as ##)
           board  the whole table, page by page (Enter: back to your view)
           help   this text                   quit   leave (your seat stays)
           or type a move in the game's syntax (below), or a JSON action object"""


def comeback_hint(link: Link) -> str:
    return (
        f"Your seat at table {link.table} stays yours: run `tablehub play --table "
        f"{link.table} --name {link.name} --url {link.url}` to take it back."
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
        self.tracker = TurnTracker(link, self.on_change, self.on_tick, self.prepare)
        self.messages: list[str] = []
        self.news: dict[int | None, str] = {}
        """The last thing each other seat (None: the table) did, oldest first."""
        self.page = 0
        """The first choice shown (``more`` moves it on by the number shown)."""
        self._shown = 0
        self.choices: Choices | StagedChoices = Choices([], self.steps)
        self._listed: list[dict[str, Any]] = []
        """The legal list the choices were made from."""
        self.aimed: str | None = None
        """The choice drawn on the board (``see N``; None: the first shown)."""
        self.paging: tuple[str, int] | None = None
        """Paging through the whole table or the help: (``board`` / ``help``, first line)."""
        self._page_lines = 0
        self._board: Any = None
        self._owed: Any = None
        """The turn at which we must act before a deadline (None: nothing owed)."""
        self._acting = False
        self._timed_out = False
        """The deadline moved for us and what it played is not said yet."""
        self._text: GameText | None = None
        self.howtos: dict[str, list[str]] = {}
        """Game id -> how to play, from the server (``help`` shows it)."""
        link.on_reconnecting = self.on_reconnecting
        link.on_waiting = self.on_waiting

    @property
    def view(self) -> dict[str, Any]:
        return self.link.mirror.view

    @property
    def text(self) -> GameText:
        game = str(self.view.get("game", ""))
        if self._text is None or self._text.game_id != game:
            self._text = GameText(game)
        return self._text

    def steps(self, action: dict[str, Any]) -> list[tuple[str | None, str]]:
        return self.text.steps(action, self.view.get("board"), self.link.seat)

    async def prepare(self, view: dict[str, Any]) -> StagedChoices | None:
        """Our turn: its first staged decision when the game asks this turn step by
        step (termite's day), else None (the full list is grouped)."""
        if not self.text.staged(view.get("board")):
            return None
        return await StagedChoices.open(self.link.legal_step, self.stage_option, self.stage_rank)

    def stage_option(
        self, field: str, value: Any, partial: dict[str, Any]
    ) -> tuple[str | None, str]:
        return self.text.stage_option(field, value, partial, self.view.get("board"), self.link.seat)

    def stage_rank(self, field: str, value: Any, partial: dict[str, Any]) -> int:
        return self.text.stage_rank(field, value, partial, self.view.get("board"), self.link.seat)

    def who(self, seat: int) -> str:
        return "you" if seat == self.link.seat else seat_name(self.view, seat)

    # -- following the table -----------------------------------------------------------------

    def on_change(self, change: Change) -> None:
        if change.reconnected:
            self.messages = ["(the connection dropped and was restored)"]
        view = change.mirror.view
        board = view.get("board")
        events = [event for _, batch in change.events for event in batch]
        self._check_deadline(view)
        if self._board is not None and not change.reconnected:
            for actor, phrase in self.text.news(self._board, board, events):
                if actor is not None and actor == self.link.seat:
                    if self._timed_out and not self._acting:  # what the deadline played
                        self.messages = [f"⏰ out of time — played for you: {phrase}"]
                        self._timed_out = False
                else:
                    who = "" if actor is None else self.who(actor) + " "
                    self.news.pop(actor, None)  # re-inserted last: the newest comes last
                    self.news[actor] = f"· {who}{phrase}"
        self._board = board
        prepared = self.tracker.prepared
        if prepared is not None:
            if prepared is not self.choices:
                self.choices, self.page = prepared, 0
        elif isinstance(self.choices, StagedChoices) or self.tracker.legal != self._listed:
            self.choices = self.choices_for(self.tracker.legal)
            self.page = 0
        else:  # the same turn fetched again (another seat moved): keep the page shown
            self._listed = self.tracker.legal
        self.draw()

    def choices_for(self, legal: list[dict[str, Any]], aim: Aim | None = None) -> Choices:
        """The turn's choices: in the game's order (best first) where it gives one,
        only those ``aim`` keeps when the player aimed."""
        self._listed = legal
        self.aimed = None
        arranged = self.text.arrange(legal, self.view.get("board"), self.link.seat)
        if arranged is None:
            kept = [a for a in legal if aim is None or aim.keeps(a)]
            return Choices(kept, self.steps, aim.words if aim else None)
        labels = {id(a): label for a, label in zip(arranged.actions, arranged.labels, strict=True)}
        kept = [a for a in arranged.actions if aim is None or aim.keeps(a)]
        summary = aim.words if aim else arranged.summary
        return Choices(kept, lambda action: [(None, labels[id(action)])], summary)

    def _check_deadline(self, view: dict[str, Any]) -> None:
        """Say so when the deadline moved for us: our turn ended without our move.
        (What it played follows in the game's events: ``on_change`` adds it.)"""
        seat = self.link.seat
        if self._acting:
            return
        if self._owed is not None and not (
            is_my_turn(view, seat) and view.get("turn") == self._owed
        ):
            if view.get("status") == "playing":  # (a game that just ended: the events say)
                self.messages = [TIMED_OUT]
            self._timed_out = True
            self._owed = None
        if is_my_turn(view, seat) and isinstance(view.get("deadline"), int):
            self._owed = view.get("turn")

    def on_tick(self) -> None:
        deadline = self.view.get("deadline")
        if isinstance(deadline, int):
            self.terminal.tick(deadline, now_ms())

    def on_reconnecting(self) -> None:
        self.messages = ["the connection to the server dropped — reconnecting…"]
        self.draw()

    def on_waiting(self, words: str) -> None:
        """A request waits to be retried (the server is busy): say so until it is done."""
        self.messages = [f"{words}…"]
        self.draw()

    # -- drawing -----------------------------------------------------------------------------

    def screen(
        self, compact: bool, fit: tuple[int, int] | None = None, aim: bool = False
    ) -> Screen:
        mirror = self.link.mirror
        game = str(self.view.get("game", ""))
        return compose(
            mirror.view,
            mirror.presence,
            seat=self.link.seat,
            text=self.text,
            game_name=self.names.get(game, game),
            version=mirror.version,
            banner=self.banner,
            now_ms=now_ms(),
            compact=compact,
            fit=fit,
            aim=self._aim() if aim else None,
        )

    def _aim(self) -> tuple[str, dict[str, Any]] | None:
        """The choice to draw on the board: the one named by ``see N``, else the
        first shown (when it is a whole action)."""
        if not self.tracker.is_ready() or isinstance(self.choices, StagedChoices):
            return None
        options = self.choices.options()
        if self.aimed is not None:
            named = [o for o in options if o.key == self.aimed]
        else:
            named = options[self.page : self.page + 1]
        if not named or len(named[0].actions) != 1:
            return None
        return named[0].key, named[0].actions[0]

    def draw(self, prompt: str | None = None) -> None:
        prompt = self.prompt() if prompt is None else prompt
        news = list(self.news.values())[-NEWS_LINES:]
        if self.paging is not None:
            self._draw_pages(["", *news, *self.messages], prompt)
            return
        screen = self.screen(compact=False)
        footer = ["", *news, *self.messages, *self._turn_lines(PAGE)]
        if not self.terminal.fits(screen, footer):
            # A small window: the compact screen, fitted to what the footer leaves --
            # a line per other seat's last move, the messages and COMPACT_PAGE choices
            # (fewer, down to MIN_PAGE, when the board cannot be made smaller).
            width, height = self.terminal.size

            def rows(lines: list[str]) -> int:
                return sum(rows_of(line, width) for line in lines)

            said = rows([*news, *self.messages])
            turn = rows(self._turn_lines(COMPACT_PAGE, hint=False))
            screen = self.screen(compact=True, fit=(width, height - 1 - said - turn), aim=True)
            room = height - 1 - rows(screen.lines)  # (a board that does not shrink is cut)
            page = max(MIN_PAGE, min(PAGE, room - said - (turn - COMPACT_PAGE)))
            footer = [*news, *self.messages, *self._turn_lines(page, hint=False)]
        self.terminal.show(screen, footer, prompt)

    def _draw_pages(self, notes: list[str], prompt: str) -> None:
        """The whole table or the help, from the current page on (``board``, ``help``)."""
        assert self.paging is not None
        what, start = self.paging
        if what == "help":
            title = "help — moves and commands"
            howto = self.howtos.get(self.text.game_id, [])
            lines = [*COMMANDS_HELP.splitlines(), "", *self.text.help.splitlines(), "", *howto]
            notes = []
        else:
            title, *lines = self.screen(compact=False).lines
        if start >= len(lines):
            self.paging = (what, 0)
            start = 0
        name = "the whole table" if what == "board" else "help"
        hint = f"({name} — '{what}' again: the next part; Enter: back to your view)"
        screen = Screen([title, *lines[start:]])
        if not self.terminal.fits(screen, [*notes, hint]):
            self._page_lines = self.terminal.show(
                screen,
                [*notes, hint],
                prompt,
                cut_note=f"… ({{hidden}} more lines: '{what}' again for the next part)",
            )
            return
        more = f"'{what}' again: from the start; " if start else ""
        self._page_lines = self.terminal.show(
            screen, [*notes, f"({name} — the end; {more}Enter: back to your view)"], prompt
        )

    def _turn_lines(self, page_size: int, hint: bool = True) -> list[str]:
        status = self.view.get("status")
        if status == "finished":
            return []
        if not self.tracker.is_ready():
            if status == "waiting":
                return ["waiting for every seat to be taken…   (help, quit)"]
            others = [s for s in self.view.get("to_act") or [] if s != self.link.seat]
            if others:
                return [f"waiting for {names_list(self.view, others)}…   (help, board, quit)"]
            return ["waiting for the table to move on…   (help, board, quit)"]
        options = self.choices.options()
        if not options:
            return ["your turn: type a move (help shows the syntax)"]
        if self.page >= len(options):
            self.page = 0  # past the last: from the first again
        start = self.page
        self._shown = min(page_size, len(options) - start)
        paging = ""
        if self._shown < len(options):
            paging = f" ({start + 1}–{start + self._shown} shown, 'more': the next)"
        summary = self.choices.summary if isinstance(self.choices, Choices) else None
        if summary is not None and not self.choices.path:
            lines = [f"your turn — {summary}{paging}:"]
        elif self.choices.path:
            # Every decision so far, whole (the window breaks it between words): the die
            # and the place chosen are what the next decision is about.
            lines = [" › ".join(self.choices.path) + f": choose one of {len(options)}{paging}"]
        else:
            lines = [f"your turn — choose one of {len(options)}{paging}:"]
        for option in options[start : start + page_size]:
            lines.append(f"  {option.key:>3}. {option.label}")
        more = ", 'more'" if paging else ""
        back = ", 'back'" if self.choices.path else ""
        if hint:
            lines.append(f"type a number, a move{more}{back}, 'help' or 'quit'")
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
        self.terminal.leave()
        self.terminal.say("\n" + comeback_hint(self.link))
        return EXIT_OK

    async def command(self, cmd: str) -> int | None:
        """One typed line; an exit code ends the program."""
        word = cmd.lower()
        page = {"b": "board", "board": "board", "all": "board", "others": "board"}
        page.update({"h": "help", "help": "help", "?": "help"})
        if word in page:
            what = page[word]
            again = self.paging is not None and self.paging[0] == what
            self.paging = (what, self.paging[1] + self._step() if again and self.paging else 0)
            return None
        self.paging = None
        if not word:
            self.terminal.refresh()
            return None
        if word in ("q", "quit", "exit"):
            return self.quit()
        if word in ("m", "more", "n", "next"):
            self.page += max(1, self._shown)
            self.aimed = None
            self.messages = []
            return None
        if word in ("l", "legal", "moves"):
            self.page = 0
            if isinstance(self.choices, Choices) and self.tracker.is_ready():
                self.choices = self.choices_for(self.tracker.legal)
            self.choices.reset()
            self.messages = []
            return None
        seen = re.fullmatch(r"(?:see|show) (\w+)", word)
        if seen is not None and isinstance(self.choices, Choices):
            keys = [o.key for o in self.choices.options()]
            if seen.group(1) in keys:
                self.aimed = seen.group(1)
                self.messages = [f"choice {self.aimed} is drawn ## on your board"]
            else:
                self.messages = [f"there is no choice {seen.group(1)}"]
            return None
        aim = self.text.aim(cmd, self.view.get("board"), self.link.seat)
        if aim is not None and self.tracker.is_ready():
            self.choices = self.choices_for(self.tracker.legal, aim)
            self.page = 0
            found = len(self.choices.legal)
            self.messages = [] if found else [f"none: {aim.words} ('legal': every choice)"]
            return None
        if word == "back":
            self.page = 0
            self.messages = [] if self.choices.back() else ["this is the first choice already"]
            return None
        if not self.tracker.is_ready():
            if self.tty_input and not is_my_turn(self.view, self.link.seat):
                self.messages = ["it is not your turn yet: wait for the 'your move>' prompt"]
                return None
            # Our turn, but its legal moves are still being fetched (or, from a pipe,
            # the line came early): wait for the turn instead of dropping the line.
            await self.tracker.my_turn()
        action = await self._read_action(cmd)
        if action is not None:
            await self._play(action)
        return None

    def _step(self) -> int:
        """Lines one ``board`` / ``help`` page moves on by: those shown (but the title)."""
        return max(1, self._page_lines - 1)

    async def _read_action(self, cmd: str) -> dict[str, Any] | None:
        if cmd.isdigit():
            options = self.choices.options()
            try:
                if isinstance(self.choices, StagedChoices):
                    action = await self.choices.pick(cmd)
                else:
                    action = self.choices.pick(cmd)
            except KeyError:
                keys = [o.key for o in options]
                numbered = keys == [str(n) for n in range(1, len(keys) + 1)]
                listed = f"{keys[0]}–{keys[-1]}" if numbered and keys else ", ".join(keys)
                self.messages = [f"there is no choice {cmd}: type one of {listed or 'none'}"]
                return None
            except ServerError as err:
                self.messages = [f"✗ could not get the next choices: {err.message}"]
                return None
            except ConnectionError:
                self.messages = ["the connection dropped; reconnecting — try again in a moment"]
                return None
            self.page = 0
            if action is None:
                self.messages = []
            return action
        try:
            return self.text.parse(cmd, self.view.get("board"), self.link.seat)
        except ValueError as err:
            self.messages = [f"cannot read that move: {err}", "('help' shows the move syntax)"]
            return None

    async def _play(self, action: dict[str, Any]) -> None:
        described = self.text.describe(action)
        self._acting = True
        try:
            async with self.tracker.acting():
                version = await self.link.act(action)
                self.messages = [f"✓ you played: {described}"]
                self._owed = None
                self._timed_out = False
                self.tracker.acted(version)
        except ServerError as err:
            if err.retry_ms is not None:  # busy for every retry: the move itself is fine
                self.messages = [
                    f"✗ not played: the server stayed busy ({err.message})",
                    f"  (your move was: {described}) — send it again in a moment",
                ]
                return
            self.messages = [
                f"✗ refused: {err.message}",
                f"  (your move was: {described}) — try another one",
            ]
            return
        except ConnectionError:
            self.messages = ["the connection dropped; reconnecting — try again in a moment"]
            self.tracker.lost()
        finally:
            self._acting = False

    async def hold_end(self) -> None:
        """Keep the final screen until Enter (on a terminal), then leave it."""
        if self.terminal.tty and self.tty_input:
            self.messages = []
            self.paging = None
            self.terminal.refresh()
            self.draw("game over — press Enter to leave ")
            await self.lines.readline()
        self.terminal.leave()


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
    seated: list[str] = []  # which seat and why: printed, then kept under the first screen

    def notify(kind: str, fields: dict[str, Any]) -> None:
        table = fields.get("table")
        if kind == "created":
            banner.extend(
                [
                    f"  ★ new table: {table}  ({fields['game']}, {fields['seats']} seats)",
                    "  others join with:",
                    Unbroken(f"tablehub play --name THEIR_NAME --table {table} --url {req.url}"),
                    "  spectators watch with:",
                    Unbroken(f"tablehub watch {table} --url {req.url}"),
                ]
            )
            terminal.say("\n".join(banner))
        elif kind == "joined":
            where = f"{seat_words(fields['seat'])} at table {table}"
            seated.append(f"{req.name}: {where} — {fields['why']}")
            terminal.say(seated[-1])
        elif kind == "stale_token":
            terminal.say(
                f"the {seat_words(fields['seat'])} saved for {req.name} at table {table} is no "
                "longer theirs (the server refused its token); taking a free seat"
            )
        elif kind == "bot":
            terminal.say(f"a bot took {seat_words(fields['seat'])}")
        elif kind == "waiting":
            terminal.say(f"{fields['message']}…")

    link = await take_seat(req, tokens, notify)
    names = await game_names(link.conn)
    player = InteractivePlayer(link, terminal, lines, tty_input, banner, names)
    player.messages = seated
    player.howtos = await fetch_howtos(link.conn)
    try:
        code = await first_of(player.tracker.follow(), player.read_input())
        if link.mirror.view.get("status") == "finished":
            tokens.forget(req.url, link.table, req.name)
            await player.hold_end()
            if terminal.tty:  # the alternate screen is gone: keep the result in the scrollback
                terminal.say("\n".join(player.screen(compact=False).lines))
            terminal.say(f"\nGame over at table {link.table}.")
    except asyncio.CancelledError:  # Ctrl-C
        terminal.leave()
        terminal.say("\n" + comeback_hint(link))
        raise
    except CliError as err:
        terminal.leave()
        if err.code == "unknown_table":
            tokens.forget(req.url, link.table)
        raise
    finally:
        terminal.leave()
        await link.close()
    return code
