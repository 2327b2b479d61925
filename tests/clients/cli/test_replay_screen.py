"""``tablehub replay TABLE`` in an 80×24 pseudo-terminal (issue 29): first, next, back,
last, jump to a turn, another seat's view, each move's line in words -- every screen
drawn within 80 columns and 24 rows -- and, while a game is on, only your own seat or
the spectators."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from tablehub.clients.cli.connection import Connection
from tests.clients.cli import TIMEOUT, run_cli
from tests.clients.cli.pty_terminal import PtyScreen, in_terminal
from tests.conftest import RunningHub

ESCAPE = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|[78])")
PROMPT = re.compile(r"replay> ")


async def bot_game(hub: RunningHub, game: str, seats: int, seed: int) -> tuple[str, int]:
    conn: Connection = await hub.connect("organiser")
    table = await conn.create_table(game, seats, seed=seed)
    for _ in range(seats):
        await conn.request("add_bot", table=table, level="easy")
    await conn.spectate(table)
    mirror = await conn.wait_for(table, lambda m: m.view.get("status") == "finished", 120)
    await conn.close()
    return table, mirror.version


def frames(text: str) -> list[list[str]]:
    """Each screen drawn (from the cursor going home), as the rows a terminal shows, up
    to its prompt (what follows is the line typed there, echoed by the terminal)."""
    out = []
    for chunk in text.split("\x1b[H")[1:]:
        rows = ESCAPE.sub("", chunk).replace("\r\n", "\n").split("\n")
        prompt = next(i for i, row in enumerate(rows) if row.startswith("replay> "))
        out.append(rows[: prompt + 1])
    return out


def fitting_frames(text: str) -> list[list[str]]:
    """Each screen drawn, each checked to fit 80 columns by 24 rows."""
    drawn = frames(text)
    for rows in drawn:
        assert len(rows) <= 24, rows
        assert all(len(row) <= 80 for row in rows), [r for r in rows if len(r) > 80]
    return drawn


class Keys:
    """Keys typed at the replay prompt, each answered by a screen showing ``expect``."""

    def __init__(self, screen: PtyScreen, at: int) -> None:
        self.screen = screen
        self.at = at

    @classmethod
    async def at_prompt(cls, screen: PtyScreen) -> Keys:
        return cls(screen, (await screen.wait_for(PROMPT, 0)).end())

    async def key(self, line: str, expect: str) -> str:
        """Type ``line``; what matched ``expect`` on the screen it brought."""
        self.screen.type(line)
        found = await self.screen.wait_for(re.compile(expect), self.at)
        self.at = (await self.screen.wait_for(PROMPT, found.end())).end()
        return found.group(0)


async def test_replay_in_an_80_by_24_terminal(hub: RunningHub, tmp_path: Path) -> None:
    table, last = await bot_game(hub, "completto", 2, seed=8)
    async with in_terminal(tmp_path, "replay", table, "--url", hub.url) as (proc, screen):
        typed = await Keys.at_prompt(screen)

        await typed.key("f", r"move 0 of \d+")
        await typed.key("n", r"A bot took seat 1\.")
        await typed.key("", r"move 2 of")
        await typed.key("n", r"move 3 of")
        await typed.key("b", r"move 2 of")
        moved = await typed.key("t 4", r"move (\d+) of \d+ · turn 4 of")
        assert int(moved.split()[1]) > 3
        await typed.key("n", r"▶ bot \d: [a-z]")
        await typed.key("l", rf"move {last} of {last}")
        await typed.key("s 2", r"as bot 2")  # seats numbered from 1, as on the screen
        await typed.key("s 0", r"Seats are numbered from 1")
        await typed.key("s", r"as the spectators")
        await typed.key("zap", r"Not a replay key")
        screen.type("q")
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
        assert len(fitting_frames(screen.text)) >= 11
        assert "Traceback" not in screen.text and "None" not in screen.text


async def test_a_game_still_on_replays_only_the_spectators_view(
    hub: RunningHub, tmp_path: Path
) -> None:
    player = await hub.connect("ann")
    table = await player.create_table("brix", 2, seed=3)
    await player.join(table)
    code, out, err = await run_cli(
        tmp_path / "tokens.json", "replay", table, "--url", hub.url, "--seat", "1", stdin=b"q\n"
    )
    assert code == 4 and "only your own seat" in err
    code, out, err = await run_cli(
        tmp_path / "tokens.json", "replay", table, "--url", hub.url, stdin=b"l\nq\n"
    )
    assert code == 0, err
    assert "move 1 of 1" in out and "as the spectators" in out
    code, out, err = await run_cli(
        tmp_path / "tokens.json", "replay", "nosuchtable", "--url", hub.url, stdin=b"q\n"
    )
    assert code == 4 and "there is no table nosuchtable" in err
    await player.close()


async def test_the_all_seeing_view_of_a_finished_game_in_80_by_24(
    hub: RunningHub, tmp_path: Path
) -> None:
    table, last = await bot_game(hub, "completto", 2, seed=9)
    async with in_terminal(tmp_path, "replay", table, "--url", hub.url) as (proc, screen):
        typed = await Keys.at_prompt(screen)

        await typed.key("a", r"as everything \(all-seeing\)")
        await typed.key("t 3", r"turn 3 of \d+ · as everything")
        await typed.key("h", r"bot 1: face-down tiles: position \d+ holds \d+")
        await typed.key("h", r"h hidden · q quit")
        await typed.key("l", rf"move {last} of {last}")
        await typed.key("s 1", r"as bot 1")
        await typed.key("h", r"Not a replay key")  # only the all-seeing view lists what was hidden
        screen.type("q")
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
        fitting_frames(screen.text)
        assert "Traceback" not in screen.text and "None" not in screen.text


async def test_a_game_still_on_has_no_all_seeing_view(hub: RunningHub, tmp_path: Path) -> None:
    player = await hub.connect("ann")
    table = await player.create_table("completto", 2, seed=3)
    await player.join(table)
    code, out, err = await run_cli(
        tmp_path / "tokens.json", "replay", table, "--url", hub.url, stdin=b"a\nq\n"
    )
    assert code == 0, err
    assert "opens only when the game is over" in out and "as the spectators" in out
    await player.close()


async def test_all_seeing_shows_every_termite_hand_and_says_when_nothing_is_hidden(
    hub: RunningHub, tmp_path: Path
) -> None:
    table, last = await bot_game(hub, "termite", 2, seed=4)
    code, out, err = await run_cli(
        tmp_path / "tokens.json",
        "replay",
        table,
        "--url",
        hub.url,
        stdin=f"v {last // 2}\na\nq\n".encode(),
    )
    assert code == 0, err
    *_, spectators, everything, _ = out.split("replay> ")
    assert "as the spectators" in spectators and "as everything (all-seeing)" in everything
    for frame, hidden in ((spectators, True), (everything, False)):
        hands = [line for line in frame.splitlines() if "blueprints in hand:" in line]
        assert len(hands) == 2, frame
        assert all(("card(s)" in line) == hidden for line in hands), hands

    table, _ = await bot_game(hub, "nmbr9", 2, seed=4)
    code, out, err = await run_cli(
        tmp_path / "tokens.json", "replay", table, "--url", hub.url, stdin=b"a\nh\nq\n"
    )
    assert code == 0, err
    assert "Nothing is hidden in this game: every player sees the whole table." in out
