"""A sixth game in one place (issue 28): a throwaway game defined here, added with
``server.games.register`` and its schemas written to a copy of the protocol folder, runs
through the suites every game runs -- the engine contract (conformance: replay, views,
patches and hashes), ``legal`` against ``apply`` (exact and staged), the schemas over
playouts, a whole game over /ws played by the terminal client's script mode with the
generic renderer, and the load generator's players -- without a line of those suites
naming it.  What a real fifth game touches is listed in docs/contributing.md "Adding a
fifth game".

The game, "race to 21": two players take turns adding 1 to ``most`` (an option, 2 or 3)
to a running total; whoever makes it 21 wins.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.lines import QueueLines
from tablehub.clients.cli.link import SeatRequest, take_seat
from tablehub.clients.cli.screen import compose
from tablehub.clients.cli.script import play_script
from tablehub.clients.cli.tokens import TokenStore
from tablehub.loadtest.config import RunConfig, default_mix, parse_mix
from tablehub.loadtest.scenarios import plan
from tablehub.loadtest.worker import run_worker
from tablehub.protocol import codec
from tablehub.server.games import all_games, get_game, register, unregister
from tablehub.server.games.base import Action, Event, Game, IllegalAction, State, Status, View
from tablehub.server.games.moves import MoveTable, copy_levels
from tablehub.server.games.options import Option
from tablehub.server.games.rng import Rng
from tests.conftest import RunningHub
from tests.protocol import test_game_schemas as schema_suite
from tests.server.games import test_legal_exact as exact_suite
from tests.server.games import test_legal_staged as staged_suite
from tests.server.games.conformance import check_playout, playout, table_shapes

GOAL = 21
GAME_ID = "race"

# -- the game ----------------------------------------------------------------------------


def _setup(options: dict[str, Any], seats: int, seed: int) -> State:
    return {"total": 0, "most": options["most"], "seat": 0, "turn": 0, "winner": None, "by": ""}


def _add(state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
    """Only the rules: the schema (1 to 3) is checked by the base; the option, here."""
    step = action["step"]
    if step > state["most"]:
        raise IllegalAction(f"add 1 to {state['most']}")
    if state["total"] + step > GOAL:
        raise IllegalAction(f"the total would pass {GOAL}")
    state["total"] += step
    won = state["total"] == GOAL
    state.update(seat=1 - seat, winner=seat if won else None, by="reached" if won else "")
    state["turn"] += 1
    return [{"type": "add", "seat": seat, "step": step, "total": state["total"]}]


def _resign(state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
    state.update(winner=1 - seat, by="resigned", turn=state["turn"] + 1)
    return [{"type": "resign", "seat": seat}]


def _choices(state: State, seat: int) -> list[Action]:
    room = min(state["most"], GOAL - state["total"])
    return [{"type": "add", "step": step} for step in range(1, room + 1)]


def _status(state: State) -> Status:
    winner = state["winner"]
    if winner is None:
        return {
            "phase": "race",
            "to_act": [state["seat"]],
            "turn": state["turn"],
            "finished": False,
            "result": None,
        }
    scores = [int(seat == winner) for seat in range(2)]
    reason = f"{GOAL} reached" if state["by"] == "reached" else "the other player resigned"
    return {
        "phase": "finished",
        "to_act": [],
        "turn": state["turn"],
        "finished": True,
        "result": {"scores": scores, "winners": [winner], "reason": reason},
    }


def _view(state: State, seat: int | None) -> View:
    return {"total": state["total"], "goal": GOAL, "most": state["most"]}


def _bot(state: State, seat: int) -> Action:
    """Leave the other player a total a multiple of (most + 1) short of the goal."""
    wanted = (GOAL - state["total"]) % (state["most"] + 1)
    return {"type": "add", "step": wanted or 1}


RACE = Game(
    id=GAME_ID,
    name="Race to 21",
    min_players=2,
    max_players=2,
    initial=_setup,
    moves=MoveTable(rules={"add": _add, "resign": _resign}, copy=copy_levels(1)),
    choices=_choices,
    view=_view,
    status=_status,
    bot_action=_bot,
    seat_count=lambda state: 2,
    resigned=lambda state, seat: state["by"] == "resigned" and state["winner"] != seat,
    options={"most": Option("integer", 2, "the most a turn may add", minimum=2, maximum=3)},
    help="Add 1 or 2 to the total on your turn; whoever makes it 21 wins.",
    public_view=True,
)

# -- its schemas -------------------------------------------------------------------------


def _tagged(kinds: dict[str, dict[str, Any]], title: str) -> dict[str, Any]:
    """An object schema whose ``type`` picks one of ``kinds`` (the games' layout)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": sorted(kinds)}},
        "allOf": [
            {"if": {"properties": {"type": {"const": kind}}}, "then": {"$ref": f"#/$defs/{kind}"}}
            for kind in sorted(kinds)
        ],
        "$defs": {
            kind: {
                "type": "object",
                "required": ["type", *sorted(fields)],
                "additionalProperties": False,
                "properties": {"type": {"const": kind}, **fields},
            }
            for kind, fields in kinds.items()
        },
    }


INTEGER = {"type": "integer"}
BOARD = {
    "type": "object",
    "required": ["total", "goal", "most"],
    "additionalProperties": False,
    "properties": {"total": INTEGER, "goal": INTEGER, "most": INTEGER},
}


def _schemas() -> dict[str, dict[str, Any]]:
    every_game = json.loads((codec.V1_DIR / "games/completto/options.json").read_text())
    common = {
        name: every_game["properties"][name] for name in ("turn_seconds", "seed", "spectator_delay")
    }
    most = {"type": "integer", "minimum": 2, "maximum": 3, "default": 2}
    return {
        "action.json": _tagged(
            {"add": {"step": {"type": "integer", "minimum": 1, "maximum": 3}}, "resign": {}},
            "race action",
        ),
        "events.json": _tagged(
            {
                "add": {"seat": INTEGER, "step": INTEGER, "total": INTEGER},
                "resign": {"seat": INTEGER},
            },
            "race event",
        ),
        "options.json": {
            "type": "object",
            "additionalProperties": False,
            "properties": {**common, "most": most},
        },
        "view.json": {
            "anyOf": [{"$ref": "#/$defs/player"}],
            "$defs": {"player": BOARD, "spectator": BOARD},
        },
    }


@pytest.fixture
def race(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Game]:
    """The game registered, and the protocol folder a copy with its schemas and its
    line in ``index.json`` (the codec's caches emptied on the way in and out)."""
    v1 = tmp_path / "v1"
    shutil.copytree(codec.V1_DIR, v1)
    folder = v1 / "games" / GAME_ID
    folder.mkdir()
    for name, schema in _schemas().items():
        (folder / name).write_text(json.dumps(schema, indent=2))
    index = json.loads((v1 / "index.json").read_text())
    index["games"][GAME_ID] = {
        "action": f"games/{GAME_ID}/action.json",
        "player_view": f"games/{GAME_ID}/view.json#/$defs/player",
        "spectator_view": f"games/{GAME_ID}/view.json#/$defs/spectator",
        "event": f"games/{GAME_ID}/events.json",
        "options": f"games/{GAME_ID}/options.json",
        "phases": ["race", "finished"],
    }
    (v1 / "index.json").write_text(json.dumps(index, indent=2))
    for module in (codec, schema_suite):
        monkeypatch.setattr(module, "V1_DIR", v1)
    _forget_schemas()
    register(RACE)
    try:
        yield RACE
    finally:
        unregister(GAME_ID)
        monkeypatch.undo()
        _forget_schemas()


def _forget_schemas() -> None:
    for value in vars(codec).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()


# -- the suites ----------------------------------------------------------------------------


def test_the_registry_and_the_protocol_name_it(race: Game) -> None:
    assert get_game(GAME_ID) is race and all_games()[-1] is race
    assert {game.id for game in all_games()} == set(codec.index()["games"])
    with pytest.raises(ValueError):
        register(race)
    assert f"{GAME_ID}=2+1" in default_mix().split(",")


def test_the_engine_contract_holds(race: Game) -> None:
    for seats, options in table_shapes(race):
        for seed in range(3):
            played = playout(race, seats, seed, options)
            assert race.status(played.states[-1])["finished"]
            check_playout(played)


def test_legal_is_exactly_what_apply_accepts_full_and_staged(race: Game) -> None:
    for seats, options in table_shapes(race):
        case = exact_suite.Case(GAME_ID, seats, options)
        assert exact_suite.disagreements(case) == []
        staged_suite.test_staged_choices_compose_to_the_full_legal_set(GAME_ID, seats, options)


def test_its_playouts_fit_its_schemas(race: Game) -> None:
    for seats, options in table_shapes(race):
        for seed in schema_suite.SEEDS:
            schema_suite.drive(race, seats, seed, options)
    schema_suite.test_options_schema_matches_the_games_options(GAME_ID)
    schema_suite.test_junk_and_malformed_actions_are_refused_by_the_schema(GAME_ID)


async def test_the_terminal_client_plays_it_to_the_end(
    race: Game, hub: RunningHub, tmp_path: Path
) -> None:
    """Script mode against a bot, choosing the first listed action each turn."""
    request = SeatRequest(hub.url, "ann", game=GAME_ID, seats=2, bots=1)
    link = await take_seat(request, TokenStore(tmp_path / "tokens.json"), lambda k, f: None)
    lines = QueueLines()
    events: list[dict[str, Any]] = []

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        if event["event"] == "your_turn":
            lines.put("0")

    assert await asyncio.wait_for(play_script(link, emit, lines), 30) == 0
    view = link.conn.tables[link.table].view
    await link.close()
    kinds = [event["event"] for event in events]
    assert kinds[-1] == "finished" and "acted" in kinds
    assert not [event for event in events if event["event"] == "error"]
    assert view["board"]["total"] == GOAL
    text = GameText(GAME_ID)
    assert text.module is None  # no renderer: the generic one shows the board
    screen = compose(view, {}, seat=0, text=text, game_name=race.name).text
    assert '"total": 21' in screen and "ann" in screen


async def test_the_load_generator_plays_it(race: Game, hub: RunningHub) -> None:
    """The default mixed scenario, one worker in this process, a few seconds."""
    mix = tuple(entry for entry in parse_mix(default_mix()) if entry.game == GAME_ID)
    config = RunConfig(
        scenario="mixed",
        players=4,
        mix=mix,
        ramp=0.2,
        duration=2.0,
        think=0.02,
        url=hub.url,
    )
    (worker,) = plan(config, {GAME_ID})
    result = await run_worker(config, worker, time.perf_counter(), None)
    counts = result["counts"]
    assert counts[f"acts_ok.{GAME_ID}"] > 0
    assert counts.get("hash_mismatches", 0) == 0 and counts.get("acts_error", 0) == 0
