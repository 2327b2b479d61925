"""Per-game schemas (protocol/v1/games/) against real playouts, for every audience.

The engines are driven directly (fast): every action played or listed by ``legal``,
every bot move, every event, every view of every seat and of spectators, and the hub's
table view around them must fit the schemas a third-party client reads.  Besides the
legal and bot moves, each step also tries the game's field-less actions (resign, draw
offers, discard, pass), so their events are covered too.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tablehub.protocol.codec import (
    GAME_SCHEMA_KINDS,
    V1_DIR,
    action_problem,
    index,
    validate_game_value,
)
from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import Game, IllegalAction, State
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.record import Seat, TableRecord, TableStatus
from tests.server.games.conformance import playout, table_shapes

GAMES = [game.id for game in all_games()]
"""Every registered game (a game without schemas fails ``test_index_names_every_game...``)."""
SEEDS = range(3)


def bare_actions(game_id: str) -> list[dict[str, Any]]:
    """The action types of ``game_id`` that need no field besides ``type``."""
    schema = json.loads((V1_DIR / index()["games"][game_id]["action"]).read_text())
    return [
        {"type": name}
        for name, variant in schema["$defs"].items()
        if variant["required"] == ["type"]
    ]


def check_state(game: Game, state: State, seats: int) -> None:
    """Every audience's board and the table view around it fit the schemas."""
    for seat in [None, *range(seats)]:
        kind = "spectator_view" if seat is None else "player_view"
        validate_game_value(game.id, kind, game.view(state, seat))
    status = game.status(state)
    assert status["phase"] in index()["games"][game.id]["phases"]
    record = TableRecord(
        table="t1",
        game=game.id,
        options={},
        turn_ms=None,
        seed=0,
        seats=[Seat(name=f"p{s}") for s in range(seats)],
        state=state,
        status=TableStatus.FINISHED if status["finished"] else TableStatus.PLAYING,
    )
    validate_game_value("", "table_view", table_view(game, record, None))


def drive(game: Game, seats: int, seed: int, options: dict[str, Any], max_steps: int = 3000) -> int:
    """Play one game checking every action, event and view; returns the steps played."""
    chooser = random.Random(seed)
    extras = bare_actions(game.id)
    state = game.setup(game.validate_options(options), seats, seed)
    check_state(game, state, seats)
    for step in range(max_steps):
        status = game.status(state)
        if status["finished"]:
            return step
        seat = chooser.choice(status["to_act"])
        legal = game.legal_actions(state, seat)
        # Termite lists hundreds of actions a step: a sample keeps the test fast.
        bot = game.fast_bot_move(state, seat)
        for action in [bot, *chooser.sample(legal, min(len(legal), 40))]:
            problem = action_problem(game.id, action)
            assert problem is None, (action, problem)
        candidates = [bot, chooser.choice(legal)] if legal else [bot]
        # Now and then a field-less action (resigning only late, so games run long).
        extra = chooser.choice(extras)
        if extra["type"] != "resign" and chooser.random() < 0.1:
            candidates.insert(0, extra)
        elif step > 20 and chooser.random() < 0.01:
            candidates.insert(0, {"type": "resign"})
        for action in candidates:
            try:
                state, events = game.apply(state, seat, action)
            except IllegalAction:
                continue
            for event in events:
                validate_game_value(game.id, "event", event)
            break
        check_state(game, state, seats)
    return max_steps


@pytest.mark.parametrize("game_id", GAMES)
def test_every_action_event_and_view_of_playouts_fits_the_schemas(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    for seats, options in table_shapes(game):
        for seed in SEEDS:
            drive(game, seats, seed, options)


def test_index_names_every_game_and_every_game_file() -> None:
    """Every registered game has its schemas; every file under games/ is indexed (so a
    client that loads what index.json names fingerprints the same set as the server)."""
    assert set(GAMES) == set(index()["games"])
    named = {index()["table_view"], index()["game_record"]}
    for refs in index()["games"].values():
        named |= {refs[kind].partition("#")[0] for kind in GAME_SCHEMA_KINDS}
    files = {p.relative_to(V1_DIR).as_posix() for p in (V1_DIR / "games").rglob("*.json")}
    assert files == named


@pytest.mark.parametrize("game_id", GAMES)
def test_options_schema_matches_the_games_options(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    doc = json.loads((V1_DIR / index()["games"][game_id]["options"]).read_text())
    props = dict(doc["properties"])
    assert props.pop("turn_seconds")["type"] == "number"
    assert props.pop("seed")["type"] == "integer"
    assert props.pop("spectator_delay")["type"] == "number"
    described = game.describe()["options"]
    assert set(props) == set(described)
    for name, spec in described.items():
        schema = props[name]
        assert schema["default"] == spec["default"], name
        if "choices" in spec:
            assert schema["enum"] == spec["choices"], name
        else:
            assert schema["type"] == spec["type"], name
            assert schema.get("minimum") == spec.get("minimum"), name
            assert schema.get("maximum") == spec.get("maximum"), name
        validate_game_value(game_id, "options", {name: spec["default"]})


def listed_by_type(game: Game) -> dict[str, dict[str, Any]]:
    """One action of each type ``legal`` lists over a short playout of ``game``."""
    played = playout(game, table_shapes(game)[0][0], seed=1, max_steps=200)
    out: dict[str, dict[str, Any]] = {}
    for state in played.states:
        for seat in game.status(state)["to_act"]:
            for action in game.legal_actions(state, seat):
                out.setdefault(action["type"], action)
    return out


def junk(game: Game) -> list[tuple[dict[str, Any], str]]:
    """Actions the schema must refuse, made from the game's own actions and schema: an
    unknown field, a field of the wrong type, an unknown type, a required field left out."""
    schema = json.loads((V1_DIR / index()["games"][game.id]["action"]).read_text())
    cases: list[tuple[dict[str, Any], str]] = [
        ({"type": "fly"}, "action.type"),
        ({"type": "resign", "why": 1}, "know: why"),
    ]
    for kind, action in listed_by_type(game).items():
        cases.append(({**action, "note": "hi"}, "know: note"))
        for name, value in action.items():
            if isinstance(value, int) and not isinstance(value, bool):
                cases.append(({**action, name: str(value)}, f"action.{name}"))
        for needed in schema["$defs"][kind]["required"]:
            if needed != "type":
                short = {name: value for name, value in action.items() if name != needed}
                cases.append((short, "needs the field(s)"))
    return cases


@pytest.mark.parametrize("game_id", GAMES)
def test_junk_and_malformed_actions_are_refused_by_the_schema(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    cases = junk(game)
    assert len(cases) > 3, "the game's actions were not found"
    for action, fragment in cases:
        problem = action_problem(game_id, action)
        assert problem is not None and fragment in problem, (action, problem)


def test_a_seat_view_never_validates_as_a_spectator_view_where_they_differ() -> None:
    """The two audiences are told apart (a seat's private hand is not a spectator's)."""
    game = get_game("termite")
    assert game is not None
    state = game.setup(game.validate_options({}), 2, 1)
    with pytest.raises(ValueError):
        validate_game_value("termite", "spectator_view", game.view(state, 0))
    with pytest.raises(ValueError):
        validate_game_value("termite", "player_view", game.view(state, None))
