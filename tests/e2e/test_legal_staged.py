"""Staged ``legal`` over /ws (protocol/README.md "Staged legal"): a Termite Towers day
turn asked field by field, the action reached is accepted; bad partial actions are
refused with ``bad_action``; ``legal`` without ``partial`` is the full list as before."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.clients.cli.connection import ServerError
from tablehub.server.games import get_game
from tests.conftest import RunningHub


def first_seed_where_seat_zero_starts() -> int:
    game = get_game("termite")
    assert game is not None
    return next(s for s in range(100) if game.status(game.setup({}, 2, s))["to_act"] == [0])


async def test_a_termite_turn_asked_step_by_step_is_accepted(hub: RunningHub) -> None:
    game = get_game("termite")
    assert game is not None
    first, second = await hub.connect("first"), await hub.connect("second")
    table = await first.create_table("termite", 2, seed=first_seed_where_seat_zero_starts())
    assert await first.join(table) == 0
    assert await second.join(table) == 1

    full = await first.request("legal", table=table)
    record = hub.hub.live[table].record
    assert full["actions"] == game.legal_actions(record.state, 0)
    assert set(full) == {"t", "id", "actions", "version"}

    partial: dict[str, Any] = {}
    asked = []
    while True:
        step = await first.request("legal", table=table, partial=partial)
        assert step["version"] == full["version"]
        assert step["field"] is not None and step["choices"], (partial, step)
        asked.append(len(step["choices"]))
        choice = step["choices"][0]
        partial = {**partial, step["field"]: choice["value"]}
        if choice["complete"]:
            break
    assert partial in full["actions"]
    assert max(asked) < len(full["actions"])
    assert await first.act(table, partial) > full["version"]

    waiting = await first.request("legal", table=table, partial={})
    if hub.hub.live[table].record.state["day"]["current"] != 0:
        assert (waiting["field"], waiting["choices"], waiting["complete"]) == (None, [], False)
    for conn in (first, second):
        await conn.close()


@pytest.mark.parametrize(
    ("partial", "code", "words"),
    [(["place_die"], "bad_message", "partial"), ({"type": "dance"}, "bad_action", "'dance'")],
)
async def test_a_bad_partial_action_is_refused(
    hub: RunningHub, partial: Any, code: str, words: str
) -> None:
    player = await hub.connect("player")
    table = await player.create_table("brix", 2, seed=1)
    await player.join(table)
    with pytest.raises(ServerError) as err:
        await player.request("legal", table=table, partial=partial)
    assert err.value.code == code and words in err.value.message
    await player.close()
