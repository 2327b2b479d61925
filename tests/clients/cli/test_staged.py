"""``tablehub play`` at termite: a day turn is a few decisions asked from the server
(staged ``legal``), never a list of thousands of moves."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tablehub.clients.cli.connection import Connection
from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.staged import AS_IT_IS, StagedChoices
from tests.clients.cli import run_cli
from tests.conftest import RunningHub

DECISION = re.compile(r"choose one of (\d+)")


async def test_a_termite_day_turn_is_played_through_staged_choices(
    hub: RunningHub, tmp_path: Path
) -> None:
    # 1 = place a die, then the first die, its first slot, and (if asked) no helper.
    moves = b"1\n" * 4 + b"quit\n"
    code, out, err = await run_cli(
        tmp_path / "t.json",
        *("play", "--url", hub.url, "--name", "pat", "--game", "termite"),
        *("--seats", "2", "--bots", "1", "--option", "seed=4"),
        stdin=moves,
    )
    assert code == 0, err
    assert "✓ you played: place die 1 " in out, out[-3000:]  # dice counted from 1
    assert "legal moves" not in out, "the full list is never offered"
    sizes = [int(n) for n in DECISION.findall(out)]
    assert sizes and max(sizes) <= 60, sizes
    assert "die 1: worker showing" in out, "dice are offered in words, from 1"
    assert "Traceback" not in out + err


class CountedAsk:
    """Staged ``legal`` for one seat, counting the requests and the choices answered."""

    def __init__(self, conn: Connection, table: str) -> None:
        self.conn, self.table = conn, table
        self.asked: list[dict[str, Any]] = []
        self.sizes: list[int] = []

    async def __call__(self, partial: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(partial)
        reply = await self.conn.legal_step(self.table, partial)
        self.sizes.append(len(reply["choices"]))
        return reply


async def play_day_turn(
    conn: Connection, table: str, seat: int, with_helper: bool
) -> tuple[dict[str, Any], CountedAsk]:
    """A die, a space it fits as rolled, then no helper (after going back to the dice
    once) or the first helper die (and its first value when asked): the action, and
    what it took to reach it."""
    board = conn.tables[table].view["board"]
    text = GameText("termite")
    ask = CountedAsk(conn, table)
    choices = await StagedChoices.open(
        ask, lambda field, value, partial: text.stage_option(field, value, partial, board, seat)
    )
    assert choices.options()[0].label.startswith("die "), "a single action type is taken at once"
    assert await choices.pick("1") is None and choices.path[0].startswith("die ")
    if not with_helper:  # back to the dice (no request), and the same die again
        assert choices.back() and choices.path == [] and not choices.back()
        assert await choices.pick("1") is None
    rolled = next(o for o in choices.options() if "(as rolled)" in o.label)
    action = await choices.pick(rolled.key)
    if action is None:  # the space also takes a helper die: "as it is" comes first
        assert choices.options()[0].label == AS_IT_IS
        action = await choices.pick("2" if with_helper else "1")
    if action is None:  # a value for the helped die, typed as itself
        assert all(o.key == o.label.split()[-1] for o in choices.options())
        action = await choices.pick(choices.options()[0].key)
    assert action is not None
    return action, ask


async def test_staged_choices_reach_actions_the_server_accepts(hub: RunningHub) -> None:
    """Through the hub: each day turn is at most six small requests, the action reached
    is one of the full ``legal`` list, and the server accepts it -- with and without a
    helper die."""
    first, second = await hub.connect("first"), await hub.connect("second")
    try:
        table = await first.create_table("termite", 2, seed=11)
        await first.join(table)
        await second.join(table)
        mirror = await first.wait_for(table, lambda m: m.view.get("status") == "playing")
        helped = 0
        for turn in range(4):
            seat = mirror.view["to_act"][0]
            player = first if seat == 0 else second
            action, ask = await play_day_turn(player, table, seat, with_helper=bool(turn % 2))
            assert len(ask.asked) <= 6 and max(ask.sizes) <= 60, (ask.asked, ask.sizes)
            assert action in await player.legal(table), action
            helped += "helper" in action
            mirror = await first.wait_version(table, await player.act(table, action))
        assert mirror.view["board"]["phase"] == "day"
        assert helped, "a helper die was chosen"
    finally:
        await first.close()
        await second.close()
