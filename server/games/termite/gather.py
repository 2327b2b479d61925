"""Termite Towers night actions A, B, C, D and G, plus the row bonus (docs/games/termite.md).

Each choice kind has ``*_options(state, task)`` (every legal ``choose`` action) and
``resolve_*(state, task, action, rng, events)`` which checks the action with a precise
reason and applies it to an already-copied state.  Resolvers may insert follow-up tasks
at the front of ``state["night"]["tasks"]`` (a bonus egg, the second bonus cube, ...).
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import Action, Event, IllegalAction, State
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import board, data

Task = dict[str, Any]


def push_front(state: State, *tasks: Task) -> None:
    state["night"]["tasks"][0:0] = list(tasks)


def field_str(action: Action, key: str) -> str:
    value = action.get(key)
    if not isinstance(value, str):
        raise IllegalAction(f"this choice needs a string field {key!r}", "bad_action")
    return value


def field_int(action: Action, key: str) -> int:
    value = action.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalAction(f"this choice needs an integer field {key!r}", "bad_action")
    return value


# --- A: take a blueprint ------------------------------------------------------------------


def blueprint_options(state: State, task: Task) -> list[Action]:
    bps = state["blueprints"]
    out: list[Action] = [{"type": "choose", "blueprint": card} for card in bps["face_up"]]
    if bps["deck"]:
        out.append({"type": "choose", "blueprint": "deck"})
    return out


def resolve_blueprint(
    state: State, task: Task, action: Action, rng: Rng, events: list[Event]
) -> None:
    """Action A (also architect queen card and bonus): take a face-up blueprint or the
    deck's top card into your hand, then refill the face-up row at once."""
    card = field_str(action, "blueprint")
    take_blueprint(state, task["seat"], card, events)


def take_blueprint(state: State, seat: int, card: str, events: list[Event]) -> None:
    bps = state["blueprints"]
    player = state["players"][seat]
    if card == "deck":
        if not bps["deck"]:
            raise IllegalAction("the blueprint deck is empty")
        player["hand"].append(bps["deck"].pop(0))
        events.append({"type": "blueprint", "seat": seat, "card": None})
        return
    if card not in bps["face_up"]:
        raise IllegalAction(f"blueprint {card} is not face up")
    index = bps["face_up"].index(card)
    player["hand"].append(card)
    if bps["deck"]:
        bps["face_up"][index] = bps["deck"].pop(0)
    else:
        bps["face_up"].pop(index)
    events.append({"type": "blueprint", "seat": seat, "card": card})


# --- B: hatch eggs ------------------------------------------------------------------------


def gain_die(state: State, seat: int, kind: str) -> bool:
    """Take a die from the seat's supply (10 workers and 3 soldiers beside the start
    dice, docs/games/termite.md "The supply"); False when that kind has run out.  The
    new die is rolled with the others next round."""
    player = state["players"][seat]
    owned = sum(1 for d in player["dice"] if d["kind"] == kind)
    limit = data.MAX_WORKERS if kind == "worker" else data.MAX_SOLDIERS
    if owned >= limit:
        return False
    player["dice"].append({"kind": kind, "value": 1, "at": "X"})
    return True


def run_hatch(state: State, rng: Rng, events: list[Event]) -> None:
    """Action B: a room with an egg and 2 dice of one value hatches a worker, with 3
    dice a soldier; the egg goes back to the supply.  Resolved by die value 1-6, then
    seat order from the start player.  [house] If the supply has no die of that kind
    left, the egg stays and a ``no_hatch`` event says why."""
    for value in range(1, 7):
        for seat in board.seat_order(state):
            if not board.active(state, seat):
                continue
            player = state["players"][seat]
            for room in state["night"]["b_rooms"][seat]:
                dice = board.room_dice(player, room)
                if not dice or player["dice"][dice[0]]["value"] != value:
                    continue
                if not player["rooms"][room]["egg"] or len(dice) < 2:
                    continue
                kind = "worker" if len(dice) == 2 else "soldier"
                if gain_die(state, seat, kind):
                    player["rooms"][room]["egg"] = False
                    state["eggs"] += 1
                    player["hatched"] += 1
                    events.append({"type": "hatched", "seat": seat, "room": room, "kind": kind})
                else:
                    events.append({"type": "no_hatch", "seat": seat, "room": room, "kind": kind})


# --- C: lay an egg ------------------------------------------------------------------------


def egg_options(state: State, task: Task) -> list[Action]:
    if state["eggs"] <= 0:
        return []
    player = state["players"][task["seat"]]
    return [{"type": "choose", "room": r} for r in board.empty_rooms(player)]


def resolve_egg(state: State, task: Task, action: Action, rng: Rng, events: list[Event]) -> None:
    """Action C (also nursery and bonus): an egg from the supply into an empty room."""
    place_egg(state, task["seat"], field_int(action, "room"), events)


def place_egg(state: State, seat: int, room: int, events: list[Event]) -> None:
    player = state["players"][seat]
    if state["eggs"] <= 0:
        raise IllegalAction("no eggs are left in the supply")
    if not 0 <= room < len(player["rooms"]):
        raise IllegalAction(f"you have no room {room + 1}")
    if not board.room_is_empty(player, room):
        raise IllegalAction(
            f"room {room + 1} is not empty (an egg needs a room without cubes or dice)"
        )
    player["rooms"][room]["egg"] = True
    state["eggs"] -= 1
    events.append({"type": "egg", "seat": seat, "room": room})


# --- D: tunnels -----------------------------------------------------------------------------


def tunnel_options(state: State, task: Task) -> list[Action]:
    player = state["players"][task["seat"]]
    if board.tunnels_used(player) >= data.TUNNELS_PER_PLAYER:
        return []
    return [{"type": "choose", "edge": e} for e in board.open_edges(player, task["area"])]


def resolve_tunnel(state: State, task: Task, action: Action, rng: Rng, events: list[Event]) -> None:
    """Action D, dig: one tunnel on an edge of the area touching your network; a face-down
    stake card it reaches is turned up and its cubes put on it."""
    seat, area = task["seat"], task["area"]
    edge = field_str(action, "edge")
    player = state["players"][seat]
    if edge not in data.EDGE_NAMES:
        raise IllegalAction(
            f"unknown tunnel edge {edge!r} (edges: {', '.join(data.EDGE_NAMES)})", "bad_action"
        )
    if edge in player["tunnels"][area - 1]:
        raise IllegalAction(f"you already have a tunnel on {edge} in area D{area}")
    if edge not in board.open_edges(player, area):
        raise IllegalAction(f"edge {edge} does not touch your tunnels in area D{area}")
    player["tunnels"][area - 1].append(edge)
    events.append({"type": "tunnel", "seat": seat, "area": area, "edge": edge})
    for node in edge.split("-"):
        if node == "S":
            continue
        card = state["stakes"][area - 1]["cards"][node]
        if not card["up"]:
            card["up"] = True
            events.append(
                {
                    "type": "revealed",
                    "area": area,
                    "card": node,
                    "colour": card["colour"],
                    "cubes": card["cubes"],
                }
            )


# --- D: collect cubes -------------------------------------------------------------------------


def stake_counts(state: State, area: int) -> dict[int, int]:
    """Dice per rival in the collect slot of main stake D<area> (docs/games/termite.md
    "Which dice count for a D majority": the tunnel slot's dice dig and do not count;
    the seed's collect action counts the dice on each main stake, a soldier as 2); each
    neutral set is its own rival (``board.rival``: -1, -2, -3)."""
    counts: dict[int, int] = {}
    for owner, index in board.dice_at(state, f"D{area}c"):
        d = board.die(state, owner, index)
        who = board.rival(state, owner, index)
        counts[who] = counts.get(who, 0) + (2 if d["kind"] == "soldier" else 1)
    return counts


def majority(state: State, area: int) -> tuple[dict[int, int], list[tuple[int, int]]]:
    """Counts per rival on main stake D<area> (``stake_counts``) and the awards as
    (seat, cubes) in resolution order (docs/games/termite.md "Which dice count for a D
    majority", "Second place when first is tied"; seed action D): most = 2 cubes,
    second = 1; a tie for most gives each tied player 1 and [house] no second place
    (the tied rivals hold first and second); a tie for second gives nothing; neutral
    dice take places but never cubes."""
    counts = stake_counts(state, area)
    awards: list[tuple[int, int]] = []
    if not counts:
        return counts, awards
    order = board.seat_order(state)
    top = max(counts.values())
    first = [o for o in counts if counts[o] == top]
    if len(first) > 1:
        awards = [(s, 1) for s in order if s in first]
        return counts, awards
    if first[0] >= 0:
        awards.append((first[0], 2))
    rest = [c for o, c in counts.items() if c < top]
    if rest:
        runner = max(rest)
        second = [o for o in counts if counts[o] == runner]
        if len(second) == 1 and second[0] >= 0:
            awards.append((second[0], 1))
    return counts, awards


def run_collect(state: State, task: Task, rng: Rng, events: list[Event]) -> None:
    area = task["area"]
    counts, awards = majority(state, area)
    if not counts:
        return
    events.append(
        {
            "type": "majority",
            "area": area,
            "counts": [[o, c] for o, c in sorted(counts.items())],
            "awards": [[s, n] for s, n in awards],
        }
    )
    follow: list[Task] = []
    for seat, n in awards:
        follow.extend({"t": "cube", "seat": seat, "scope": area, "colour": None} for _ in range(n))
    push_front(state, *follow)


def missed_collect(state: State, task: Task, events: list[Event]) -> None:
    """A cube won at main stake D<area> that the seat cannot take: the stake and the stake
    cards its tunnels reach hold none (``"reason": "none_left"``), or none of its rooms
    can hold one (``"rooms_full"``).  The rest of the same award (the equal tasks right
    behind: sources and rooms only shrink meanwhile) goes with it, and one ``no_cube``
    event says how many of the won cubes were not taken."""
    tasks = state["night"]["tasks"]
    missed = 1
    while tasks and tasks[0] == task:
        tasks.pop(0)
        missed += 1
    events.append(
        {
            "type": "no_cube",
            "seat": task["seat"],
            "area": task["scope"],
            "cubes": missed,
            "reason": "none_left" if not cube_sources(state, task) else "rooms_full",
        }
    )


def cube_sources(state: State, task: Task) -> list[str]:
    """Where a cube may come from: the area's main stake (collection) or every main stake
    (bonus), plus any face-up stake card with cubes the seat's tunnels reach."""
    scope = task["scope"]
    mains = [f"D{scope}"] if scope else [f"D{a}" for a in range(1, 7)]
    out = [s for s in mains if board.source_cubes(state, s) > 0]
    out += board.reached_sources(state, task["seat"])
    if task.get("colour"):
        out = [s for s in out if board.source_colour(state, s) == task["colour"]]
    return out


def cube_options(state: State, task: Task) -> list[Action]:
    player = state["players"][task["seat"]]
    rooms = board.cube_rooms(player)
    return [
        {"type": "choose", "source": src, "room": r}
        for src in cube_sources(state, task)
        for r in rooms
    ]


def resolve_cube(state: State, task: Task, action: Action, rng: Rng, events: list[Event]) -> None:
    """Take one cube from an allowed source into a room at once (a room holds at most 4
    cubes and no egg)."""
    seat = task["seat"]
    source = field_str(action, "source")
    room = field_int(action, "room")
    player = state["players"][seat]
    allowed = cube_sources(state, task)
    if source not in allowed:
        area, _ = board.parse_source(source)
        if area is None:
            raise IllegalAction(
                f"unknown cube source {source!r} (e.g. 'D3' or 'D3/1a')", "bad_action"
            )
        if board.source_cubes(state, source) == 0:
            raise IllegalAction(f"{source} has no cubes")
        if task.get("colour") and board.source_colour(state, source) != task["colour"]:
            raise IllegalAction(f"this cube must be {task['colour']}")
        where = f"main stake D{task['scope']}" if task["scope"] else "a main stake"
        raise IllegalAction(
            f"you cannot take from {source} now: take from {where} or a stake card your "
            "tunnels reach"
        )
    if not 0 <= room < len(player["rooms"]):
        raise IllegalAction(f"you have no room {room + 1}")
    if not board.room_takes_cube(player, room):
        reason = "holds an egg" if player["rooms"][room]["egg"] else "is full (4 cubes)"
        raise IllegalAction(f"room {room + 1} {reason}")
    colour = board.take_from_source(state, source)
    player["rooms"][room]["cubes"] = sorted([*player["rooms"][room]["cubes"], colour])
    events.append({"type": "cube", "seat": seat, "source": source, "colour": colour, "room": room})
    if task.get("pair"):
        push_front(state, {"t": "cube", "seat": seat, "scope": 0, "colour": colour})


# --- G: queen cards ---------------------------------------------------------------------------


def draw_queen(state: State, seat: int, events: list[Event]) -> None:
    """Action G (and bonus): the queen deck's top card into the hand (hidden)."""
    if not state["queen_deck"]:
        return
    state["players"][seat]["queens"].append(state["queen_deck"].pop(0))
    events.append({"type": "queen_drawn", "seat": seat, "left": len(state["queen_deck"])})


# --- Row bonus --------------------------------------------------------------------------------


def bonus_options(state: State, task: Task) -> list[Action]:
    used = state["players"][task["seat"]]["bonus"]
    return [{"type": "choose", "space": s} for s in data.BONUS_SPACES if s not in used]


def bonus_available(state: State, seat: int, space: str) -> bool:
    """Whether the supply can give this bonus space's reward to the seat now."""
    player = state["players"][seat]
    kinds = [d["kind"] for d in player["dice"]]
    if space == "worker":
        return kinds.count("worker") < data.MAX_WORKERS
    if space == "soldier":
        return kinds.count("soldier") < data.MAX_SOLDIERS
    if space == "room":
        return len(player["rooms"]) < data.ROOMS_MAX
    if space == "blueprint":
        return bool(state["blueprints"]["deck"] or state["blueprints"]["face_up"])
    if space == "queen":
        return bool(state["queen_deck"])
    if space == "egg":
        return state["eggs"] > 0 and bool(board.empty_rooms(player))
    if space == "cubes":
        task = {"t": "cube", "seat": seat, "scope": 0, "colour": None}
        return bool(cube_sources(state, task)) and bool(board.cube_rooms(player))
    return True


def resolve_bonus(state: State, task: Task, action: Action, rng: Rng, events: list[Event]) -> None:
    """A completed wall row: put a marker on a free bonus space and take its reward
    (docs/games/termite.md "A bonus the supply cannot give").  [house] Any free space may
    be chosen (the seed: any unoccupied space); a reward the supply cannot give is lost, and the
    ``bonus`` event says so with ``"lost": true``."""
    seat = task["seat"]
    space = field_str(action, "space")
    player = state["players"][seat]
    if space not in data.BONUS_SPACES:
        raise IllegalAction(
            f"unknown bonus space {space!r} (spaces: {', '.join(data.BONUS_SPACES)})", "bad_action"
        )
    if space in player["bonus"]:
        raise IllegalAction(f"your bonus space {space} already holds a marker")
    event: Event = {"type": "bonus", "seat": seat, "space": space}
    if not bonus_available(state, seat, space):
        event["lost"] = True
    player["bonus"].append(space)
    events.append(event)
    if space in ("worker", "soldier"):
        gain_die(state, seat, space)
    elif space == "room":
        if len(player["rooms"]) < data.ROOMS_MAX:
            player["rooms"].append({"egg": False, "cubes": []})
    elif space == "blueprint":
        push_front(state, {"t": "blueprint", "seat": seat})
    elif space == "queen":
        draw_queen(state, seat, events)
    elif space == "egg":
        push_front(state, {"t": "egg", "seat": seat})
    elif space == "cubes":
        push_front(state, {"t": "cube", "seat": seat, "scope": 0, "colour": None, "pair": True})
    elif space == "points":
        player["points"] += data.BONUS_POINTS
