"""Where the interactive screens go.

On a terminal every screen replaces the previous one (cursor home + clear) and the
deadline line is rewritten in place each second without touching the prompt or what
is being typed there.  On a
pipe or file every screen is appended, followed by a rule, so logs stay readable.
Colours (ANSI SGR) are kept only on a terminal and when ``NO_COLOR`` is not set.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import TextIO

from tablehub.clients.cli.screen import RULE, Screen

_SGR = re.compile(r"\x1b\[[0-9;]*m")


def strip_colours(text: str) -> str:
    return _SGR.sub("", text)


class Terminal:
    def __init__(self, out: TextIO, tty: bool | None = None) -> None:
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self.colour = self.tty and not os.environ.get("NO_COLOR")
        self._last = ""
        self._deadline_up: int | None = None

    def _clean(self, text: str) -> str:
        return text if self.colour else strip_colours(text)

    def show(self, screen: Screen, footer: list[str], prompt: str) -> None:
        """Draw a whole screen, then the footer (messages) and the prompt."""
        body = "\n".join([*screen.lines, *footer])
        frame = self._clean(body)
        if frame == self._last:
            return
        self._last = frame
        self._deadline_up = None
        if screen.deadline_row is not None:  # lines between the deadline and the prompt
            self._deadline_up = len(screen.lines) + len(footer) - screen.deadline_row
        if self.tty:
            self.out.write("\x1b[H\x1b[2J" + frame + "\n" + prompt)
        else:
            self.out.write(frame + "\n" + prompt + "\n" + RULE + "\n")
        self.out.flush()

    def refresh(self) -> None:
        """Draw the next screen even when it did not change."""
        self._last = ""

    def tick(self, text: str) -> None:
        """Rewrite the deadline line in place (terminals only, while it is on screen).

        The cursor sits on the prompt line (after whatever is being typed); the
        deadline line is found relative to it, then the cursor is put back.
        """
        up = self._deadline_up
        if not self.tty or up is None or up >= shutil.get_terminal_size().lines:
            return
        self.out.write(f"\x1b7\x1b[{up}F\x1b[2K{text}\x1b8")
        self.out.flush()

    def say(self, text: str) -> None:
        """A plain message after the screens (e.g. why the program stops)."""
        self._last = ""
        self.out.write(self._clean(text) + "\n")
        self.out.flush()
