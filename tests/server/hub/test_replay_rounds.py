"""Replays number their rounds (server/hub/replays.py ``round_at``): every version of a
replay -- each game, paged as a client pages it -- carries the round its own view shows
(9-tower and Termite Towers: the board's round; the others: the table's turn plus one),
none while seats are taken; the numbers never go down, and the first version of round
N is where a client's "jump to round N" lands.  Games are played by bots through the
real table core into the memory store."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest

from tablehub.server.games import all_games
from tablehub.server.hub.replays import REPLAY_PAGE, replay_page
from tablehub.server.store.memory import MemoryStore
from tests.server.store.test_retention import finish

GAMES = [game.id for game in all_games()]
COUNTS_ROUNDS = {"nmbr9", "termite"}


def pages(current: Any, log: Any, seat: int | None) -> dict[int, tuple[dict[str, Any], Any]]:
    """Every version's (view, round), page by page as a client reads them."""
    out: dict[int, tuple[dict[str, Any], Any]] = {}
    first = 0
    while True:
        page = replay_page(current, log, seat, first)
        view = page["start"]["view"]
        out[first] = (view, page["start"]["round"])
        for move in page["moves"]:
            view = jsonpatch.apply_patch(view, move["ops"])
            out[move["version"]] = (view, move["round"])
        assert len(page["moves"]) <= REPLAY_PAGE
        if max(out) >= current.version:
            return out
        first = max(out)


@pytest.mark.parametrize("game_id", GAMES)
async def test_every_version_carries_the_round_its_view_shows(game_id: str) -> None:
    store = MemoryStore()
    await store.start()
    record = await finish(store, game_id, seed=4)
    log = await store.log(record.table)
    for seat in (None, 0):
        seen = pages(record, log, seat)
        assert set(seen) == set(range(record.version + 1))
        rounds = []
        for version in sorted(seen):
            view, number = seen[version]
            if view["status"] == "waiting":
                assert number is None
                continue
            expected = view["board"]["round"] if game_id in COUNTS_ROUNDS else view["turn"] + 1
            assert number == expected, version
            rounds.append(number)
        assert rounds == sorted(rounds) and rounds[0] == 1
        assert len(set(rounds)) >= 3, f"{game_id}: only rounds {sorted(set(rounds))}"
    await store.close()
