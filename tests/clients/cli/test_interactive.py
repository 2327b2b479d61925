"""``tablehub play`` for people: driven through a pseudo-terminal and through a pipe."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from tests.clients.cli import TIMEOUT, run_cli
from tests.clients.cli.pty_terminal import PROMPT, in_terminal
from tests.conftest import RunningHub


async def test_play_in_a_terminal_with_help_paging_a_refusal_and_suggestions(
    hub: RunningHub, tmp_path: Path
) -> None:
    async with in_terminal(
        tmp_path,
        *("play", "--url", hub.url, "--name", "pat", "--seats", "2", "--bots", "1"),
        *("--option", "seed=5", "--turn-seconds", "600"),
        rows=50,
        columns=120,
    ) as (proc, screen):
        created = await screen.wait_for(re.compile(r"new table: (\w+)"), 0)
        table = created.group(1)
        joining = f"others join with:\r\ntablehub play --name THEIR_NAME --table {table} --url "
        await screen.wait_for(re.compile(joining), 0)  # the command whole, on a line of its own

        prompt = await screen.wait_for(PROMPT, 0)
        assert prompt.group(1) == "1"
        assert "\x1b[?1049h\x1b[H" in screen.text, "the game runs on the alternate screen"
        assert "\x1b[2J" not in screen.text, "screens are drawn over, never cleared"
        # the countdown is rewritten in place: save cursor, up N lines, clear, restore
        await screen.wait_for(re.compile(r"\x1b7\x1b\[\d+F\x1b\[2Kdeadline: (10:00|9:5\d) left"), 0)
        screen.type("help")
        await screen.wait_for(re.compile(r"more   the next choices"), prompt.end())
        syntax = await screen.wait_for(re.compile(r"X Y R"), prompt.end())  # 9-tower's
        turn_one = (await screen.wait_for(PROMPT, syntax.end())).end()
        screen.type("1")

        prompt = await screen.wait_for(re.compile(r"\(turn 2, v\d+\) your move> "), turn_one)
        page = await screen.wait_for(re.compile(r"\(1–(\d+) shown, 'more'"), turn_one)
        screen.type("more")
        shown = int(page.group(1))
        mark = await screen.wait_for(re.compile(rf"\({shown + 1}–\d+ shown"), prompt.end())
        screen.type("500 500 0")
        await screen.wait_for(re.compile(r"✗ refused: \S+"), mark.end())
        screen.type("1")

        answered = 2
        position = mark.end()
        while answered < 20:
            prompt = await screen.wait_for(PROMPT, position)
            position = prompt.end()
            if int(prompt.group(1)) > answered:
                answered = int(prompt.group(1))
                screen.type("1")
        await screen.wait_for(re.compile(r"GAME OVER — winner"), position)
        held = await screen.wait_for(re.compile(r"game over — press Enter to leave"), position)
        assert proc.returncode is None, "the end stays on screen until Enter"
        screen.type("")
        await screen.wait_for(re.compile(f"Game over at table {table}"), held.end())
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
        assert "\x1b[?1049l" in screen.text[held.end() :], "back to the normal screen"
        assert "✓ you played: place at" in screen.text
        assert "Traceback" not in screen.text


async def test_play_with_moves_piped_in(hub: RunningHub, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    moves = b"help\n" + b"1\n" * 20
    code, out, err = await run_cli(
        tokens, "play", "--url", hub.url, "--seats", "2", "--bots", "1", stdin=moves
    )
    assert code == 0, err
    assert "\x1b[" not in out, "no escape codes when the output is not a terminal"
    assert "commands:" in out and "GAME OVER — winner" in out
    assert out.count("✓ you played") >= 19
    assert "Game over at table" in out


async def test_piped_input_that_ends_on_your_turn_exits_with_status_5(
    hub: RunningHub, tmp_path: Path
) -> None:
    code, out, err = await run_cli(
        tmp_path / "t.json", "play", "--url", hub.url, "--seats", "2", "--bots", "1", stdin=b"1\n"
    )
    assert code == 5
    assert "input ended while it is your turn" in err
    assert "✓ you played" in out


async def test_a_turn_of_single_choices_is_asked_like_every_other_decision(
    hub: RunningHub, tmp_path: Path
) -> None:
    """The number row lists each action as one choice: its header says "choose one of N",
    as a decision in steps does, not a count of "legal moves"."""
    code, out, err = await run_cli(
        tmp_path / "t.json",
        *("play", "--url", hub.url, "--name", "pat", "--game", "completto"),
        *("--seats", "2", "--bots", "1", "--option", "seed=3"),
        stdin=b"1\n" * 3 + b"quit\n",
    )
    assert code == 0, err
    counts = [int(n) for n in re.findall(r"^your turn — choose one of (\d+)", out, re.M)]
    assert len(counts) >= 3 and all(counts), out[-3000:]
    assert "legal moves" not in out
    assert "Traceback" not in out + err
