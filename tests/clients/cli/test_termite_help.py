"""``tablehub play`` at termite in an 80x24 terminal: ``help`` reaches the game's how to
play (the server's text, page by page), and a slot where the die would do nothing
tonight says so in the list of choices, before the die is placed."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from tests.clients.cli import TIMEOUT
from tests.clients.cli.pty_terminal import PROMPT, in_terminal
from tests.conftest import RunningHub


async def test_help_shows_how_to_play_and_a_dead_move_is_named_first(
    hub: RunningHub, tmp_path: Path
) -> None:
    async with in_terminal(
        tmp_path,
        *("play", "--url", hub.url, "--name", "pat", "--game", "termite", "--seats", "1"),
        *("--option", "seed=3"),
    ) as (proc, screen):
        mark = (await screen.wait_for(PROMPT, 0)).end()
        seen: set[str] = set()
        for _ in range(12):  # page through the help until its last section
            screen.type("help")
            mark = (await screen.wait_for(re.compile(r"your move> "), mark)).end()
            seen.update(re.findall(r"HOW TO PLAY — ([A-Z -]+[A-Z])", screen.text))
            if "HOW IT ENDS" in seen:
                break
        assert {"THE AIM", "SET-UP", "A DAY", "THE NIGHT", "SCORING", "HOW IT ENDS"} <= seen
        assert "Each stake starts with 6 cubes of its colour" in screen.text
        screen.type("")  # back to the table
        mark = (await screen.wait_for(PROMPT, mark)).end()
        screen.type("1")  # die 1 shows 4 (seed 3): its slots, E4 among them -- listed
        # after the others, as a place that does nothing tonight: page on to it
        e4 = re.compile(r"\d+\. slot E4: trade to build \(as rolled\)")
        listed = None
        for _ in range(20):
            mark = (await screen.wait_for(PROMPT, mark)).end()
            listed = e4.search(screen.text, screen.text.rindex("\x1b[H", 0, mark), mark)
            if listed is not None:
                break
            screen.type("more")
        assert listed is not None, screen.text[-3000:]
        after = re.sub(r"\x1b\[K\r\n +", " ", screen.text[listed.end() : listed.end() + 80])
        assert after.startswith(" -- does nothing tonight: no face-up"), after
        assert "✓ you played" not in screen.text, "the warning comes before the die is placed"
        assert "Traceback" not in screen.text
        screen.type("quit")
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
