"""Where the interactive screens go.

On a terminal the game runs on the alternate screen (like a pager or an editor): each
screen is drawn over the previous one from the top-left corner, so updates never
pile up in the scrollback, and the normal screen comes back when the program ends.
A screen taller than the window is cut at its end (the screens put what matters
first); the footer (messages, choices) and the prompt are always shown.  Lines wider
than the window are broken between words (``wrap``), never inside one; a command to
copy (:class:`Unbroken`) is left whole for the terminal to fold, so it copies as one.  The deadline
line is rewritten in place each second without touching the prompt or what is being
typed there.  On a pipe or file every screen is appended in full, followed by a rule,
so logs stay readable.  Colours (ANSI SGR) are kept only on a terminal and when
``NO_COLOR`` is not set.
"""

from __future__ import annotations

import os
import shutil
from typing import TextIO

from tablehub.clients.cli.rows import rows_of, strip_colours, wrap
from tablehub.clients.cli.screen import RULE, Screen

ALT_SCREEN_ON = "\x1b[?1049h"
ALT_SCREEN_OFF = "\x1b[?1049l"
HOME = "\x1b[H"
CLEAR_LINE = "\x1b[K"
CLEAR_BELOW = "\x1b[J"


class _Continued(str):
    """A row that goes on a line broken by ``wrap`` (not a line of its own)."""


def _rows(lines: list[str], width: int, mark: int | None) -> tuple[list[str], int | None]:
    """Lines as window rows (``wrap``), and where line ``mark`` starts among them."""
    rows: list[str] = []
    at = None
    for i, line in enumerate(lines):
        if i == mark:
            at = len(rows)
        first, *rest = wrap(line, width)
        rows.append(first)
        rows.extend(_Continued(row) for row in rest)
    return rows, at


class Terminal:
    def __init__(self, out: TextIO, tty: bool | None = None) -> None:
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self.colour = self.tty and not os.environ.get("NO_COLOR")
        self._last = ""
        self._deadline_up: int | None = None
        self._deadline_screen: Screen | None = None
        self._alternate = False

    def _clean(self, text: str) -> str:
        return text if self.colour else strip_colours(text)

    @property
    def size(self) -> os.terminal_size:
        return shutil.get_terminal_size()

    def fits(self, screen: Screen, footer: list[str]) -> bool:
        """Whether the screen, the footer and the prompt fit the window (always, off a tty)."""
        if not self.tty:
            return True
        width, height = self.size
        used = sum(rows_of(line, width) for line in [*screen.lines, *footer]) + 1
        return used <= height

    def show(
        self,
        screen: Screen,
        footer: list[str],
        prompt: str,
        cut_note: str = "… ({hidden} more lines: type 'board' to see the whole table)",
    ) -> int:
        """Draw a screen, then the footer (messages) and the prompt; returns how many of
        the screen's lines are shown.

        On a terminal the screen is cut to leave room for the footer and the prompt;
        ``cut_note`` (with ``{hidden}``, the number of lines cut) replaces its end."""
        lines = list(screen.lines)
        shown = len(lines)
        deadline_row = screen.deadline_row
        if self.tty:
            width, height = self.size
            lines, deadline_row = _rows(lines, width, deadline_row)
            footer, _ = _rows(footer, width, None)
            room = height - 1 - sum(rows_of(line, width) for line in footer)
            if sum(rows_of(line, width) for line in lines) > room:
                kept: list[str] = []
                used = 1  # the note
                for line in lines:
                    used += rows_of(line, width)
                    if used > room:
                        break
                    kept.append(line)
                while kept and isinstance(lines[len(kept)], _Continued):
                    kept.pop()  # a line is shown whole or not at all
                shown = sum(1 for row in kept if not isinstance(row, _Continued))
                hidden = sum(1 for row in lines if not isinstance(row, _Continued)) - shown
                lines = [*kept, cut_note.format(hidden=hidden)]
                if deadline_row is not None and deadline_row >= len(kept):
                    deadline_row = None
        body = "\n".join([*lines, *footer])
        frame = self._clean(body)
        if frame == self._last:
            return shown
        self._last = frame
        self._deadline_up = None
        self._deadline_screen = screen
        if deadline_row is not None:  # rows between the deadline and the prompt
            width = self.size.columns
            below = [*lines, *footer][deadline_row:]
            self._deadline_up = sum(rows_of(line, width) for line in below)
        if self.tty:
            if not self._alternate:
                self._alternate = True
                self.out.write(ALT_SCREEN_ON)
            drawn = (CLEAR_LINE + "\n").join(frame.split("\n"))
            self.out.write(HOME + drawn + CLEAR_LINE + "\n" + prompt + CLEAR_BELOW)
        else:
            self.out.write(frame + "\n" + prompt + "\n" + RULE + "\n")
        self.out.flush()
        return shown

    def refresh(self) -> None:
        """Draw the next screen even when it did not change."""
        self._last = ""

    def tick(self, deadline_ms: int, now_ms: int) -> None:
        """Rewrite the deadline line in place (terminals only, while it is on screen).

        The cursor sits on the prompt line (after whatever is being typed); the
        deadline line is found relative to it, then the cursor is put back.
        """
        up, screen = self._deadline_up, self._deadline_screen
        if not self.tty or up is None or screen is None or up >= self.size.lines:
            return
        line = screen.deadline_line(deadline_ms, now_ms)
        text = self._clean(wrap(line, self.size.columns)[0])  # the countdown leads its line
        self.out.write(f"\x1b7\x1b[{up}F\x1b[2K{text}\x1b8")
        self.out.flush()

    def leave(self) -> None:
        """Back to the normal screen (what follows stays in the scrollback)."""
        if self._alternate:
            self._alternate = False
            self.out.write(ALT_SCREEN_OFF)
            self.out.flush()

    def say(self, text: str) -> None:
        """A plain message after the screens (e.g. why the program stops)."""
        self._last = ""
        self.out.write(self._clean(text) + "\n")
        self.out.flush()
