"""Bot levels (issue 15): every level of every game plays legal, deterministic moves;
the levels are described on the wire, chosen by ``add_bot`` and stored per seat; the
deadline fallback plays the fast level; the strong levels beat the easy ones.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tablehub.clients.cli.connection import ServerError
from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import BadOptions, Game, State, final_result
from tablehub.server.games.nmbr9.candidates import shortlist
from tablehub.server.games.nmbr9.rules import legal_placements
from tablehub.server.games.nmbr9.shapes import shape_cells
from tablehub.server.games.nmbr9.surface import Surface
from tablehub.server.tables.record import TableRecord
from tests.conftest import RunningHub

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

GAMES_PER_LEVEL = {"nmbr9": 4, "brix": 12, "completto": 6, "termite": 2}
"""Seeded games per (game, level) in the legality test (9-tower: solo games, as its
seats never interact; a strong 9-tower game takes a second or two)."""


def _game(game_id: str) -> Game:
    game = get_game(game_id)
    assert game is not None
    return game


def _levels() -> list[tuple[str, str]]:
    return [(game.id, level.id) for game in all_games() for level in game.bots]


def _seats(game: Game) -> int:
    return 1 if game.id == "nmbr9" else max(2, game.min_players)


def _play(game: Game, levels: list[str], seed: int, check: bool) -> State:
    """A full game, seat ``i`` played by ``levels[i]``; with ``check`` every move is
    checked to be listed by ``legal_actions`` and to be the same when asked again."""
    state = game.setup({}, len(levels), seed)
    for _ in range(5000):
        status = game.status(state)
        if status["finished"]:
            return state
        seat = status["to_act"][0]
        action = game.bot_move(state, seat, levels[seat])
        if check:
            assert action in game.legal_actions(state, seat), (game.id, levels[seat], action)
            assert game.bot_move(copy.deepcopy(state), seat, levels[seat]) == action
        state, _ = game.apply(state, seat, action)
    raise AssertionError(f"{game.id}: the game did not end")


def test_every_game_describes_its_levels_weakest_first() -> None:
    for game in all_games():
        described = game.describe()
        levels = described["bot_levels"]
        assert levels, game.id
        assert all(set(level) == {"id", "name", "description"} for level in levels)
        assert all(level["name"] and level["description"] for level in levels)
        ids = [level["id"] for level in levels]
        assert described["default_bot_level"] in ids
        assert game.fast_bot_level in ids
        if len(ids) > 1:
            weakest_first = (
                ["easy", "medium", "strong"] if game.id == "nmbr9" else ["easy", "strong"]
            )
            assert ids == weakest_first and described["default_bot_level"] == "strong"


def test_level_names_integers_and_defaults_resolve() -> None:
    game = _game("nmbr9")
    assert game.bot_level(None).id == "strong"
    assert game.bot_level("easy").id == "easy"
    assert [game.bot_level(n).id for n in (0, 1, 2, 3, 99)] == [
        "easy",
        "easy",
        "medium",
        "strong",
        "strong",
    ]
    with pytest.raises(BadOptions, match="easy, medium, strong"):
        game.bot_level("hard")
    termite = _game("termite")
    assert termite.bot_level(3).id == termite.default_bot_level


@pytest.mark.parametrize(("game_id", "level"), _levels())
def test_every_bot_move_is_legal_and_deterministic(game_id: str, level: str) -> None:
    game = _game(game_id)
    for seed in range(GAMES_PER_LEVEL.get(game_id, 2)):
        state = _play(game, [level] * _seats(game), 100 + seed, check=True)
        assert game.status(state)["finished"]


@pytest.mark.parametrize("game_id", [game.id for game in all_games() if len(game.bots) > 1])
def test_levels_play_legally_against_each_other(game_id: str) -> None:
    game = _game(game_id)
    _play(game, [game.bots[0].id, game.bots[-1].id], 200, check=True)


@pytest.mark.parametrize("level", ["medium", "strong"])
def test_the_nmbr9_bots_do_not_see_the_deck_order(level: str) -> None:
    """Shuffling the cards still to come (same counts) never changes their move."""
    game = _game("nmbr9")
    state = game.setup({}, 1, 7)
    while not state["finished"]:
        rnd = state["round"]
        hidden = state["deck"][rnd:]
        shuffled = {**state, "deck": state["deck"][:rnd] + hidden[::-1]}
        action = game.bot_move(state, 0, level)
        assert game.bot_move(shuffled, 0, level) == action
        state, _ = game.apply(state, 0, action)


def test_the_reach_of_each_digit_is_its_highest_legal_level() -> None:
    """``Surface.reach`` (the evaluation's shortcut) agrees with ``legal_placements``."""
    game = _game("nmbr9")
    for seed in range(3):
        state = game.setup({}, 1, 400 + seed)
        while not state["finished"]:
            tiles = state["players"][0]["tiles"]
            surface = Surface.of(tiles)
            for digit in range(10):
                assert surface.reach(digit) == legal_placements(tiles, digit)[0][0]
            state, _ = game.apply(state, 0, game.bot_move(state, 0, "easy"))


def _shortlist_by_listing(tiles: list[dict[str, Any]], digit: int, per_level: int) -> list[Any]:
    """The shortlist from its definition: every legal placement, fitted cell by cell (edges
    of the tile touching a cell higher than the level it lies on), the best
    ``per_level`` of each level by fit, ties in ``legal_placements`` order."""
    height: dict[tuple[int, int], int] = {}
    for tile in tiles:
        for x, y in tile["cells"]:
            height[(x, y)] = tile["level"] + 1
    by_level: dict[int, list[tuple[int, int, Any]]] = {}
    for index, (level, rot, x, y) in enumerate(legal_placements(tiles, digit)):
        cells = {(x + dx, y + dy) for dx, dy in shape_cells(digit, rot)}
        fit = sum(
            1
            for cx, cy in cells
            for n in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1))
            if n not in cells and height.get(n, 0) > level
        )
        by_level.setdefault(level, []).append((-fit, index, (level, rot, x, y)))
    return [
        p
        for level in sorted(by_level, reverse=True)
        for *_, p in sorted(by_level[level])[:per_level]
    ]


def test_the_shortlist_on_bit_masks_is_the_listed_one() -> None:
    """``candidates.shortlist`` (ground placements and their fits on bit masks) equals
    ranking every listed legal placement, for every digit, on the layouts of strong and
    easy games."""
    game = _game("nmbr9")
    for seed, level in ((420, "strong"), (421, "easy")):
        state = game.setup({}, 1, seed)
        while not state["finished"]:
            tiles = state["players"][0]["tiles"]
            surface = Surface.of(tiles)
            for digit in range(10):
                for per_level in (1, 3, 6):
                    assert shortlist(surface, digit, per_level) == _shortlist_by_listing(
                        tiles, digit, per_level
                    ), (seed, len(tiles), digit, per_level)
            state, _ = game.apply(state, 0, game.bot_move(state, 0, level))


def _shape_faults_by_cells(tiles: list[dict[str, Any]]) -> tuple[int, int, int]:
    """The evaluation's (ground edge, steps, pits), cell by cell from the definitions."""
    height: dict[tuple[int, int], int] = {}
    for tile in tiles:
        for x, y in tile["cells"]:
            height[(x, y)] = tile["level"] + 1
    ground = steps = pits = 0
    empty: set[tuple[int, int]] = set()
    for (x, y), h in height.items():
        around = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
        ground += sum(1 for n in around if n not in height)
        empty.update(n for n in around if n not in height)
        steps += sum(h - height[n] for n in around if n in height and height[n] < h)
        pits += all(height.get(n, 0) > h for n in around)
    pits += sum(
        1
        for x, y in empty
        if all(n in height for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))
    )
    return ground, steps, pits


def test_the_shape_faults_match_their_definition() -> None:
    """``Surface.shape_faults`` (bit masks) agrees with a cell-by-cell count on the
    layouts of strong and easy games."""
    game = _game("nmbr9")
    for seed, level in ((410, "strong"), (411, "easy"), (412, "strong")):
        state = game.setup({}, 1, seed)
        while not state["finished"]:
            tiles = state["players"][0]["tiles"]
            assert Surface.of(tiles).shape_faults() == _shape_faults_by_cells(tiles)
            state, _ = game.apply(state, 0, game.bot_move(state, 0, level))


def test_each_nmbr9_level_outscores_the_one_below() -> None:
    """Same decks, one player: strong scores far more than easy on average, medium in
    between (not on every deck: the order of the cards is hidden and sometimes
    favours a greedy layout)."""
    game = _game("nmbr9")
    scores: dict[str, list[int]] = {"easy": [], "medium": [], "strong": []}
    for seed in range(4):
        for level, got in scores.items():
            got.append(_play(game, [level], 300 + seed, check=False)["players"][0]["score"])

    def margin(a: str, b: str) -> float:
        return sum(x - y for x, y in zip(scores[a], scores[b], strict=True)) / 4

    assert margin("strong", "easy") >= 10, scores
    assert margin("medium", "easy") >= 5, scores
    assert margin("strong", "medium") >= 5, scores


@pytest.mark.parametrize("game_id", ["brix", "completto"])
def test_strong_beats_easy_in_most_of_200_games(game_id: str) -> None:
    game = _game(game_id)
    strong_wins = 0
    for i in range(200):
        levels = ["strong", "easy"] if i % 2 == 0 else ["easy", "strong"]
        state = _play(game, levels, 1000 + i // 2, check=False)
        winners = final_result(game.status(state))["winners"]
        strong_wins += len(winners) == 1 and levels[winners[0]] == "strong"
    assert strong_wins >= 140, strong_wins


def test_records_with_the_old_integer_level_still_load() -> None:
    plain: dict[str, Any] = {
        "table": "t1",
        "game": "nmbr9",
        "options": {},
        "turn_ms": None,
        "seed": 1,
        "seats": [
            {"name": "ann", "bot": False, "level": 1, "token_hash": "ab"},
            {"name": "bot 2", "bot": True, "level": 1, "token_hash": None},
            {"name": "bot 3", "bot": True, "level": 3, "token_hash": None},
        ],
        "state": {},
        "status": "playing",
    }
    record = TableRecord.from_plain(plain)
    assert [seat.level for seat in record.seats] == [None, "easy", "strong"]
    assert TableRecord.from_plain({**record.meta(), "state": {}}) == record


async def test_add_bot_takes_a_level_id_an_old_integer_or_none(hub: RunningHub) -> None:
    ann = await hub.connect("ann")
    games = {g["id"]: g for g in (await ann.request("list_games"))["games"]}
    assert games["nmbr9"]["default_bot_level"] == "strong"
    assert [level["id"] for level in games["brix"]["bot_levels"]] == ["easy", "strong"]
    table = await ann.create_table("nmbr9", 4, seed=5)
    with pytest.raises(ServerError) as refused:
        await ann.request("add_bot", table=table, level="hard")
    assert refused.value.code == "bad_options"
    assert "easy, medium, strong" in refused.value.message
    await ann.request("add_bot", table=table, level="easy")
    await ann.request("add_bot", table=table, level=1)
    await ann.request("add_bot", table=table)
    seats = hub.hub.live[table].record.seats
    assert [seat.level for seat in seats] == ["easy", "easy", "strong", None]
    await ann.close()


async def test_bots_play_their_level_and_the_deadline_plays_the_fast_one(
    hub: RunningHub,
) -> None:
    """Seat 0 never acts (the deadline plays for it), seat 1 is an easy bot, seat 2 a
    strong one; replaying the log shows whose move each was."""
    sleepy = await hub.connect("sleepy")
    game = _game("nmbr9")
    table = await sleepy.create_table("nmbr9", 3, seed=11, turn_seconds=0.2)
    await sleepy.join(table)
    await sleepy.request("add_bot", table=table, level="easy")
    await sleepy.request("add_bot", table=table, level="strong")
    await sleepy.wait_for(table, lambda m: m.view["status"] == "finished", 120)
    record = hub.hub.live[table].record
    state = game.setup(record.options, 3, record.seed)
    expected = {"deadline": game.fast_bot_level, "bot": None}
    played = set()
    for entry in await hub.hub.store.log(table):
        if entry["k"] != "act":
            continue
        seat, by = entry["seat"], entry["by"]
        level = expected[by] or record.seats[seat].level
        assert entry["action"] == game.bot_move(state, seat, level), (seat, by)
        played.add((seat, by, level))
        state, _ = game.apply(state, seat, entry["action"])
    assert played == {(0, "deadline", "easy"), (1, "bot", "easy"), (2, "bot", "strong")}
    await sleepy.close()
