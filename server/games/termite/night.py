"""Termite Towers: the night phase as a task queue (docs/games/termite.md, seed "夜晚階段").

Theory of operation: at nightfall ``start_night`` lists one task per die in resolution
order (cards A to G, each from die value 1 to 6; D digs every tunnel before any
collection; several dice on one D slot go in seat order from the start player).
``advance`` pops tasks until one needs a decision: that task becomes
``night["pending"]`` and its seat must ``choose`` (or ``pass`` where the choice is
optional).  A choice with exactly one option and no pass is taken at once; a task with
no option is skipped.  Resolvers may push follow-up tasks (bonus rows, the bonus's egg,
...) to the front of the queue.  When the queue is empty the round ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tablehub.server.games.base import Action, Event, IllegalAction, State
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import board, build, gather, scoring
from tablehub.server.games.termite.gather import Task
from tablehub.server.games.termite.setup import start_round

Options = Callable[[State, Task], list[Action]]
Resolve = Callable[[State, Task, Action, Rng, list[Event]], None]


@dataclass(frozen=True)
class Choice:
    options: Options
    resolve: Resolve
    passable: bool
    prompt: str


CHOICES: dict[str, Choice] = {
    "blueprint": Choice(
        gather.blueprint_options,
        gather.resolve_blueprint,
        False,
        "take a blueprint: choose blueprint=<face-up card> or blueprint=deck",
    ),
    "egg": Choice(
        gather.egg_options, gather.resolve_egg, False, "put an egg into an empty room: room=<n>"
    ),
    "tunnel": Choice(
        gather.tunnel_options,
        gather.resolve_tunnel,
        False,
        "dig a tunnel in area D{area}: edge=<edge>",
    ),
    "cube": Choice(
        gather.cube_options,
        gather.resolve_cube,
        False,
        "take a cube: source=<D{scope}|stake card you reach> room=<n>",
    ),
    "trade": Choice(
        build.trade_options,
        build.resolve_trade,
        True,
        "trade to build: pay 2 cubes, an egg, a queen card or a blueprint (or pass)",
    ),
    "trade_take": Choice(
        build.trade_take_options,
        build.resolve_trade_take,
        False,
        "take the traded cube: source=<stake> column=<wall column>",
    ),
    "move": Choice(
        build.move_options,
        build.resolve_move,
        True,
        "move cubes between two rooms with dice showing {value} (or pass)",
    ),
    "build": Choice(
        build.build_options,
        build.resolve_build,
        True,
        "build a blueprint with dice showing {value} (or pass)",
    ),
    "bonus": Choice(
        gather.bonus_options,
        gather.resolve_bonus,
        False,
        "a wall row is complete: choose a bonus space",
    ),
}


def prompt(task: Task) -> str:
    text = CHOICES[task["t"]].prompt
    return text.format(
        area=task.get("area"), scope=task.get("scope") or "1-6", value=task.get("value")
    )


def start_night(state: State, rng: Rng, events: list[Event]) -> None:
    """Nightfall (state already copied): queue every die's action in resolution order."""
    state["phase"] = "night"
    events.append({"type": "night", "round": state["round"]})
    b_rooms = []
    for player in state["players"]:
        b_rooms.append(
            [
                r
                for r, room in enumerate(player["rooms"])
                if room["egg"] and board.room_dice(player, r)
            ]
        )
    tasks: list[Task] = []
    holders = board.slot_holders(state)  # no die moves until the tasks run

    def single(card: str, kind: str) -> None:
        for value in range(1, 7):
            found = holders.get(f"{card}{value}")
            if found is not None and found[0] >= 0:
                tasks.append({"t": kind, "seat": found[0]})

    single("A", "blueprint")
    tasks.append({"t": "hatch"})
    single("C", "egg")
    order = board.seat_order(state)
    for area in range(1, 7):
        dice = board.dice_at(state, f"D{area}t")
        for seat in order:
            tasks.extend({"t": "tunnel", "seat": seat, "area": area} for o, _ in dice if o == seat)
    tasks.extend({"t": "collect", "area": area} for area in range(1, 7))
    single("E", "trade")
    state["night"] = {"tasks": tasks, "pending": None, "b_rooms": b_rooms}
    for value in range(1, 7):
        for seat in order:
            if build.f_rooms(state, seat, value):
                tasks.append({"t": "move", "seat": seat, "value": value, "used": []})
                tasks.append({"t": "build", "seat": seat, "value": value})
    single("G", "queen")
    advance(state, rng, events)


def advance(state: State, rng: Rng, events: list[Event]) -> None:
    """Run tasks until one needs a decision, or end the round."""
    night = state["night"]
    while night["pending"] is None:
        if not night["tasks"]:
            end_round(state, rng, events)
            return
        task = night["tasks"].pop(0)
        kind = task["t"]
        if "seat" in task and not board.active(state, task["seat"]):
            continue
        if kind == "hatch":
            gather.run_hatch(state, rng, events)
        elif kind == "collect":
            gather.run_collect(state, task, rng, events)
        elif kind == "queen":
            gather.draw_queen(state, task["seat"], events)
        else:
            choice = CHOICES[kind]
            options = choice.options(state, task)
            if not options:
                if kind == "cube" and task["scope"]:
                    gather.missed_collect(state, task, events)
                continue
            if len(options) == 1 and not choice.passable:
                choice.resolve(state, task, options[0], rng, events)
            else:
                night["pending"] = task


def choice_actions(state: State) -> list[Action]:
    """Every legal action for the pending choice."""
    task = state["night"]["pending"]
    choice = CHOICES[task["t"]]
    out = choice.options(state, task)
    if choice.passable:
        out.append({"type": "pass"})
    return out


def apply_choice(state: State, action: Action, rng: Rng, events: list[Event]) -> None:
    """Resolve the pending choice with ``choose`` or ``pass`` (state already copied)."""
    night = state["night"]
    task = night["pending"]
    choice = CHOICES[task["t"]]
    if action["type"] == "pass":
        if not choice.passable:
            raise IllegalAction(f"this choice cannot be passed: {prompt(task)}")
        night["pending"] = None
        events.append({"type": "passed", "seat": task["seat"], "choice": task["t"]})
    elif action["type"] == "choose":
        night["pending"] = None
        choice.resolve(state, task, action, rng, events)
    else:
        raise IllegalAction(f"a night choice is pending: {prompt(task)}")
    advance(state, rng, events)


def drop_seat(state: State, seat: int, rng: Rng, events: list[Event]) -> None:
    """A resigned seat's pending choice is dropped and the night goes on."""
    pending = state["night"]["pending"]
    if pending is not None and pending.get("seat") == seat:
        state["night"]["pending"] = None
        advance(state, rng, events)


def end_round(state: State, rng: Rng, events: list[Event]) -> None:
    """Round end (seed "一輪結束"): check the end triggers, else pass the start player
    to the left and start a new day."""
    reason = scoring.end_reason(state)
    if reason is not None:
        scoring.finish(state, reason, events)
        return
    state["start"] = (state["start"] + 1) % state["seats"]
    start_round(state, rng, events)
