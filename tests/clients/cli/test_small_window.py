"""Issue 30, the terminal at exactly 80x24: every choice reachable through ``more``, the
9-tower card drawn in its turns, its choices best first, nothing the player needs cut,
no word split by the window's edge, a line for each other seat's move, ``help`` that
moves on -- through the real ``tablehub play`` in a pseudo-terminal against a real hub,
and the screens themselves from real games."""

from __future__ import annotations

import asyncio
import re
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.renderers import nmbr9
from tablehub.clients.cli.renderers.nmbr9_tiles import Worth
from tablehub.clients.cli.rows import Unbroken, rows_of, strip_colours, wrap
from tablehub.clients.cli.screen import compose
from tablehub.server.games import get_game
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.record import Seat, TableRecord, TableStatus
from tests.clients.cli import TIMEOUT
from tests.clients.cli.pty_terminal import PROMPT, PtyScreen, in_terminal
from tests.clients.cli.test_players import frame
from tests.conftest import RunningHub

COLUMNS, LINES = 80, 24
KEY = re.compile(r"^ +(\d+)\. ", re.MULTILINE)
DRAWN = re.compile(r"your move> \x1b\[J")
"""The end of a screen drawn on our turn."""


def start_in_a_window(
    tmp_path: Path, *args: str
) -> AbstractAsyncContextManager[tuple[asyncio.subprocess.Process, PtyScreen]]:
    return in_terminal(tmp_path, "play", *args, rows=LINES, columns=COLUMNS)


def termite_in_a_window(
    hub: RunningHub, tmp_path: Path
) -> AbstractAsyncContextManager[tuple[asyncio.subprocess.Process, PtyScreen]]:
    """Tom's three-seat Termite Towers game with two bots (seed 3) at 80x24."""
    return start_in_a_window(
        tmp_path,
        *("--url", hub.url, "--name", "tom", "--game", "termite", "--seats", "3"),
        *("--bots", "2", "--option", "seed=3", "--turn-seconds", "600"),
    )


async def quit_the_game(
    proc: asyncio.subprocess.Process, screen: PtyScreen, position: int, name: str
) -> None:
    """Type ``quit``: the client says how to come back (``--name NAME --url``) and exits 0."""
    screen.type("quit")
    await screen.wait_for(re.compile(rf"--name {name} --url"), position)
    assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0


def check_fits(rows: list[str]) -> str:
    """The frame fills at most the window, no row wider than it (so the terminal never
    breaks a word); its text."""
    assert len(rows) <= LINES, rows
    wide = [row for row in rows if len(strip_colours(row)) > COLUMNS]
    assert not wide, wide
    return "\n".join(rows)


async def every_choice_through_more(screen: PtyScreen, position: int) -> tuple[set[int], int, int]:
    """Type ``more`` until the list comes back to its start: the choice numbers seen,
    how many the header says there are, and where the output stands."""
    shown = frame(screen.text)
    text = check_fits(shown)
    total = re.search(r"(\d+) places|choose one of (\d+)", text)
    assert total is not None, text
    count = int(total.group(1) or total.group(2))
    keys = [int(k) for k in KEY.findall(text)]
    seen = set(keys)
    while True:
        screen.type("more")
        before = keys
        while keys == before:  # (a screen redrawn as another seat moved shows the same)
            position = (await screen.wait_for(DRAWN, position)).end()
            keys = [int(k) for k in KEY.findall(check_fits(frame(screen.text)))]
        if keys and keys[0] == 1:
            return seen, count, position
        seen.update(keys)


async def test_9_tower_at_80x24_draws_the_card_orders_the_choices_and_reaches_them_all(
    hub: RunningHub, tmp_path: Path
) -> None:
    async with start_in_a_window(
        tmp_path,
        *("--url", hub.url, "--name", "pat", "--seats", "3", "--bots", "2"),
        *("--bot-level", "easy", "--option", "seed=5", "--turn-seconds", "600"),
    ) as (proc, screen):
        position, turn = 0, 0
        while turn < 12:
            prompt = await screen.wait_for(PROMPT, position)
            position = prompt.end()
            if int(prompt.group(1)) > turn:
                turn = int(prompt.group(1))
                if turn < 12:
                    screen.type("1")
        text = check_fits(frame(screen.text))
        assert "round 12/20 · card " in text
        card = int(re.search(r"card (\d)", text).group(1))  # type: ignore[union-attr]
        assert "turned 0" in text and "turned 1" in text, "the card in its turns"
        assert "## = where choice 1 puts the" in text, "the first choice drawn on the layout"
        assert re.search(rf"\d+ places for the {card} \(.*on level \d", text), "grouped by level"
        first = re.search(r" 1\. \((-?\d+),(-?\d+)\)(?: turned (\d))?: level (\d+)", text)
        assert first is not None, text
        levels = [int(n) for n in re.findall(r"(\d+) on level (\d+)", text)[0][1:]]
        assert int(first.group(4)) == max(levels), "the highest level comes first"
        others = re.findall(r"^· bot \d placed the \d", text, re.MULTILINE)
        assert len(others) == 2, f"a line for each other seat: {text}"
        assert frame(screen.text)[-1].startswith("(turn 12, v")

        seen, count, position = await every_choice_through_more(screen, position)
        assert seen == set(range(1, count + 1)), "every choice can be shown"

        screen.type(f"at {first.group(1)} {first.group(2)}")
        position = (await screen.wait_for(DRAWN, position)).end()
        narrowed = check_fits(frame(screen.text))
        assert re.search(r"the places where the \d covers", narrowed), narrowed
        assert KEY.findall(narrowed), narrowed

        screen.type("help")
        position = (await screen.wait_for(DRAWN, position)).end()
        page_one = frame(screen.text)
        assert page_one[0] == "help — moves and commands"
        check_fits(page_one)
        if "'help' again: the next part" in page_one[-2]:
            screen.type("help")
            position = (await screen.wait_for(DRAWN, position)).end()
            assert frame(screen.text)[1] != page_one[1], "the next part of the help"
        else:
            assert "the end" in page_one[-2], "no promise of a next part that is not there"
        await quit_the_game(proc, screen, position, "pat")


async def test_a_termite_day_turn_at_80x24_reaches_every_die(
    hub: RunningHub, tmp_path: Path
) -> None:
    async with termite_in_a_window(hub, tmp_path) as (proc, screen):
        prompt = await screen.wait_for(PROMPT, 0)
        seen, count, position = await every_choice_through_more(screen, prompt.end())
        assert count >= 7 and seen == set(range(1, count + 1)), (seen, count)
        await quit_the_game(proc, screen, position, "tom")


def choice_words(rows: list[str], key: str) -> str:
    """Choice ``key``'s words as the list shows them, its broken rows joined."""
    found = re.search(rf"^ +{key}\. (.*(?:\n {{4}}(?! *\d+\. ).*)*)", "\n".join(rows), re.M)
    assert found is not None, rows
    return " ".join(part.strip() for part in found.group(1).split("\n"))


async def test_a_termite_decision_says_every_choice_made_so_far_whole(
    hub: RunningHub, tmp_path: Path
) -> None:
    """Past the die and the slot, the line over the helper choices names both in full,
    broken between words (it was cut from the left, mid-word: '…ke card has a cube')."""
    async with termite_in_a_window(hub, tmp_path) as (proc, screen):
        position = (await screen.wait_for(PROMPT, 0)).end()
        picked: list[str] = []
        while len(picked) < 2:
            rows = frame(screen.text)
            check_fits(rows)
            picked.append(choice_words(rows, "1"))
            screen.type("1")
            while choice_words(rows, "1") == picked[-1]:  # the next decision's list
                position = (await screen.wait_for(DRAWN, position)).end()
                rows = frame(screen.text)
        text = check_fits(rows)
        said = " ".join(row.strip() for row in rows)  # (rows are broken between words)
        assert " › ".join(picked) + ": choose one of " in said, (picked, text)
        await quit_the_game(proc, screen, position, "tom")


async def test_termite_places_where_a_die_does_nothing_tonight_come_last(
    hub: RunningHub, tmp_path: Path
) -> None:
    """The first choices shown are worth taking: a space the die would take to no effect
    tonight (an E space with no face-up stake card to trade from) is listed after every
    other, where the server's order put them among the rest."""
    async with termite_in_a_window(hub, tmp_path) as (proc, screen):
        position = (await screen.wait_for(PROMPT, 0)).end()
        screen.type("1")  # die 1: then its places
        rows = frame(screen.text)
        while not re.search(r"^die 1: .*choose one of", "\n".join(rows), re.M):
            position = (await screen.wait_for(DRAWN, position)).end()
            rows = frame(screen.text)
        said: dict[int, str] = {}
        while True:
            keys = [int(k) for k in KEY.findall(check_fits(rows))]
            if keys[0] in said:
                break
            said.update((k, choice_words(rows, str(k))) for k in keys)
            screen.type("more")
            position = (await screen.wait_for(DRAWN, position)).end()
            rows = frame(screen.text)
        idle = [k for k, words in said.items() if "does nothing tonight" in words]
        assert idle, said
        assert idle == list(range(len(said) - len(idle) + 1, len(said) + 1)), said
        await quit_the_game(proc, screen, position, "tom")


def test_lines_break_between_words_and_commands_stay_whole() -> None:
    line = "a tile on level 0 must touch your layout along an edge (corners do not count)"
    rows = wrap("  " + line + " and the empty queen deck is never drawn from", 40)
    assert all(len(row) <= 40 for row in rows)
    assert (
        " ".join(row.strip() for row in rows)
        == line + " and the empty queen deck is never drawn from"
    )
    assert all(row.startswith("  ") for row in rows), "the indent is kept"
    command = Unbroken("tablehub play --name THEIR_NAME --table abc --url ws://example.org:8080/ws")
    assert wrap(command, 40) == [command] and rows_of(command, 40) == 2


def nmbr9_record(seats: int, rounds: int, seed: int) -> TableRecord:
    """A 9-tower table after ``rounds`` rounds played by the easy bot at every seat."""
    game = get_game("nmbr9")
    assert game is not None
    state = game.setup({}, seats, seed)
    for _ in range(rounds):
        for seat in range(seats):
            state, _ = game.apply(state, seat, game.fast_bot_move(state, seat))
    return TableRecord(
        table="t30",
        game="nmbr9",
        options={},
        turn_ms=None,
        seed=seed,
        seats=[Seat(name=f"p{i}", token_hash="h") for i in range(seats)],
        state=state,
        status=TableStatus.PLAYING,
    )


def test_the_compact_9_tower_screen_fits_what_it_is_given() -> None:
    game = get_game("nmbr9")
    assert game is not None
    record = nmbr9_record(2, 15, 4)
    view = table_view(game, record, 0)
    legal = game.legal_actions(record.state, 0)
    actions, labels, _ = nmbr9.arrange_choices(legal, view["board"], 0)
    text = GameText("nmbr9")
    for rows in (12, 16, 22):
        screen = compose(
            view, {}, seat=0, text=text, compact=True, fit=(COLUMNS, rows), aim=("1", actions[0])
        )
        assert sum(rows_of(line, COLUMNS) for line in screen.lines) <= rows, screen.text
        assert all(len(strip_colours(line)) <= COLUMNS for line in screen.lines)
        assert "turned 0" in screen.text and "## = where choice 1 puts the" in screen.text
    assert sorted(map(str, actions)) == sorted(map(str, legal)), "every legal place, once"
    assert all(re.search(r"level \d+, \d+ points?", label) for label in labels)


def test_a_spectator_sees_every_seat_in_the_compact_9_tower_screen() -> None:
    game = get_game("nmbr9")
    assert game is not None
    record = nmbr9_record(3, 8, 6)
    view = table_view(game, record, None)
    screen = compose(view, {}, seat=None, text=GameText("nmbr9"), compact=True, fit=(COLUMNS, 20))
    assert all(f"seat {s}: " in screen.text for s in (1, 2, 3)), screen.text
    assert sum(rows_of(line, COLUMNS) for line in screen.lines) <= 20


def test_taking_the_best_ranked_place_every_round_beats_the_easy_bot() -> None:
    """The order the terminal shows is worth following: its first choice each round,
    against the easy bot on the same cards."""
    game = get_game("nmbr9")
    assert game is not None
    for seed in (1, 2, 3):
        state = game.setup({}, 2, seed)
        while not game.status(state)["finished"]:
            board = game.view(state, 0)
            worth = Worth(board["players"][0]["tiles"], board["card"], board["remaining"])
            best = worth.rank(game.legal_actions(state, 0))[0][0]
            state, _ = game.apply(state, 0, best)
            state, _ = game.apply(state, 1, game.fast_bot_move(state, 1))
        mine, bot = (p["score"] for p in game.view(state, None)["players"])
        assert mine > bot, (seed, mine, bot)
