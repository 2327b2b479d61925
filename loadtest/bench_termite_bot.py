"""Termite Towers bots: head-to-head figures and how games end (issue 14 item 5).

Part 1 plays ``--games`` 2-player games of the bot (``termite.bot``) against the previous
bot (``loadtest/termite_bot_basic.py``, a frozen copy), seats alternating, and prints
wins, ties and mean scores.
Part 2 plays ``--ends`` games of the bot against itself for each player count 1-4 and
prints how they end (a wall with ``rows_to_end`` rows or the empty queen deck), the
mean rounds and rows, where the wood is when they end, and how often the bot used each
rule over all those games (each action A-G by what it did, each queen card, helper dice,
each kind of E payment).
Engine calls only, no server; bounded.

    .venv/bin/python -m tablehub.loadtest.bench_termite_bot [--games 200] [--ends 200]
        [--players 1,2,3,4]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable

from tablehub.loadtest import termite_bot_basic as bot_basic
from tablehub.server.games.base import Action, Event, State
from tablehub.server.games.termite import GAME, bot, scoring

Bot = Callable[[State, int], Action]
MAX_STEPS = 20000


def play(seats: list[Bot], seed: int, uses: Counter[str] | None = None) -> State:
    """One game with the given bot in each seat; ``uses`` counts the rules played."""
    state = GAME.setup(GAME.validate_options({}), len(seats), seed)
    for _ in range(MAX_STEPS):
        status = GAME.status(state)
        if status["finished"]:
            return state
        seat = status["to_act"][0]
        action = seats[seat](state, seat)
        state, events = GAME.apply(state, seat, action)
        if uses is not None:
            count_uses(action, events, uses)
    raise RuntimeError(f"game {seed} did not end in {MAX_STEPS} steps")


def count_uses(action: Action, events: list[Event], uses: Counter[str]) -> None:
    kind = action["type"]
    if kind == "play_queen":
        uses[f"queen {action['card']}"] += 1
    elif kind == "place_die" and "helper" in action:
        uses["helper die"] += 1
    elif kind == "choose" and action.get("pay"):
        uses[f"trade paid with {action['pay']}"] += 1
    for event in events:
        name = RULE_EVENTS.get(event["type"])
        if name is not None and (event["type"] != "cube" or kind == "choose"):
            uses[name] += 1


RULE_EVENTS = {
    "blueprint": "A blueprint taken",
    "hatched": "B egg hatched",
    "egg": "C egg laid",
    "tunnel": "D tunnel dug",
    "cube": "D cube collected",
    "wall_cube": "E cube traded into the wall",
    "moved": "F cubes moved",
    "built": "F blueprint built",
    "queen_drawn": "G queen card drawn",
    "bonus": "row bonus taken",
}
"""Events that show a rule used (a blueprint, egg or cube may also come from a queen
card or a bonus: the counts are of what happened, whatever paid for it)."""


def head_to_head(games: int) -> None:
    wins = Counter[str]()
    points: dict[str, list[int]] = {"bot": [], "bot_basic": []}
    started = time.perf_counter()
    for game in range(games):
        new_seat = game % 2
        seats: list[Bot] = [bot_basic.bot_action, bot_basic.bot_action]
        seats[new_seat] = bot.bot_action
        result = play(seats, seed=1000 + game)["result"]
        scores = result["scores"]
        points["bot"].append(scores[new_seat])
        points["bot_basic"].append(scores[1 - new_seat])
        winners = result["winners"]
        if winners == [new_seat]:
            wins["bot"] += 1
        elif winners == [1 - new_seat]:
            wins["bot_basic"] += 1
        else:
            wins["shared"] += 1
    elapsed = time.perf_counter() - started
    print(f"Head to head, {games} two-player games ({elapsed:.0f} s):")
    for name in ("bot", "bot_basic"):
        mean = sum(points[name]) / games
        share = 100 * wins[name] / games
        print(f"  {name:9} wins {wins[name]:4} ({share:.1f} %)  mean score {mean:.1f}")
    print(f"  shared    {wins['shared']:4}")


def wood(state: State) -> Counter[str]:
    """Where the game's cubes are (the edition's 90: a main stake's 6 and the cubes its
    stake cards show, per colour): in walls, in rooms, on the main stakes, on face-up
    stake cards, on stake cards still face down (their printed cubes)."""
    where = Counter[str]()
    for stake in state["stakes"]:
        where["main stakes"] += stake["cubes"]
        for card in stake["cards"].values():
            where["face-up cards" if card["up"] else "face-down cards"] += card["cubes"]
    for p in state["players"]:
        where["rooms"] += sum(len(room["cubes"]) for room in p["rooms"])
        where["walls"] += sum(cell is not None for row in p["wall"] for cell in row)
    return where


def endings(games: int, player_counts: list[int]) -> None:
    print(f"\nHow games end, bot against itself, {games} games per player count:")
    for seats in player_counts:
        reasons = Counter[str]()
        rounds = rows = 0
        uses = Counter[str]()
        left = Counter[str]()
        started = time.perf_counter()
        for game in range(games):
            state = play([bot.bot_action] * seats, seed=5000 + game, uses=uses)
            reason = state["result"]["reason"]
            reasons["rows" if "rows" in reason else "queen deck"] += 1
            rounds += state["round"]
            rows += max(scoring.rows_done(p) for p in state["players"])
            left.update(wood(state))
        elapsed = time.perf_counter() - started
        print(
            f"  {seats} player(s) ({elapsed:.0f} s): rows ending {reasons['rows']:4},"
            f" queen deck {reasons['queen deck']:4};"
            f" mean {rounds / games:.1f} rounds, best wall {rows / games:.1f} rows"
        )
        places = ("walls", "rooms", "main stakes", "face-up cards", "face-down cards")
        print(
            "    wood at the end (mean cubes): "
            + ", ".join(f"{place} {left[place] / games:.1f}" for place in places)
        )
        for name, n in sorted(uses.items()):
            print(f"    {name}: {n} ({n / games:.1f} a game)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="head-to-head games")
    parser.add_argument("--ends", type=int, default=200, help="games per player count")
    parser.add_argument("--players", default="1,2,3,4", help="player counts for --ends, e.g. 3,4")
    args = parser.parse_args()
    if args.games:
        head_to_head(args.games)
    if args.ends:
        endings(args.ends, [int(n) for n in args.players.split(",")])


if __name__ == "__main__":
    main()
