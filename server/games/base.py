"""The game-engine contract (docs/design.md "Game engine contract").

A game is a module of pure functions over plain data.  State, actions, views and
events are JSON-compatible values: dicts with ``str`` keys, lists, ``str``, ``int``,
``bool`` and ``None`` (no floats, no tuples), so they are msgpack-able as they are and
views can be hashed canonically and diffed with RFC 6902.

Each game package exports ``GAME = Game(...)``; the hub reaches games only through it.
Every game has the same files -- ``__init__`` (the ``Game``), ``engine`` (setup, status,
legal, the move table), ``views``, ``bot`` -- plus its own domain modules
(docs/contributing.md "Adding a fifth game").

Rules for engine authors:

* A move's fields are declared once, in the game's action schema
  (protocol/v1/games/<id>/action.json); the base checks them (:mod:`.fields`).
* A move's rules change a private copy of the state the base made (the game's
  ``MoveTable.copy``) and return the public events (:mod:`.moves`); the state a caller
  holds never changes.
* All randomness comes from :class:`server.games.rng.Rng` whose state is stored inside
  the game state (``"rng"``, loaded and stored back by the base around each move), so
  ``setup`` + replaying the log reproduces the game exactly.
* No clock, no I/O, no global ``random``.  Deadlines are the hub's business: when a seat
  misses one, the hub asks the game's fast bot level for that seat and applies the
  result as an ordinary action.
* Bots come in levels (:class:`BotLevel`), weakest first; a bot's move depends only on
  the state and the seat (any randomness from the state), and uses only what that seat
  may see.
* ``view(state, seat)`` is all that audience may see; ``seat=None`` is a spectator.
  Hidden information (deck order, face-down numbers, other players' hands, RNG state)
  never appears in any view or event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from tablehub.protocol.legal import GRID, LAYERED, PLAIN
from tablehub.server.games import fields
from tablehub.server.games.options import Option, option_problem
from tablehub.server.games.rng import Rng
from tablehub.server.games.staged import Step, group_step

if TYPE_CHECKING:
    from tablehub.server.games.moves import MoveTable

JSON: TypeAlias = Any
"""A JSON-compatible value (see module docstring)."""

State: TypeAlias = dict[str, Any]
Action: TypeAlias = dict[str, Any]
Event: TypeAlias = dict[str, Any]
View: TypeAlias = dict[str, Any]
LegalGroup: TypeAlias = dict[str, Any]
"""One group of the compact legal form: ``{"fixed": {...}, "fields": [...], "values": [...]}``."""
LegalGrid: TypeAlias = dict[str, Any]
"""One grid of the grid legal form: ``{"fixed": {...}, "fields": [f0, f1], "origin": [x0,
y0], "width": w, "bits": hex}``."""


class GameError(Exception):
    """Base of every error a game engine raises; ``code`` is a stable wire code."""

    code = "game_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message


class IllegalAction(GameError):
    """The action is refused; the state is unchanged.

    Codes the hub passes on as they are:

    * ``bad_action``     -- the action is malformed (unknown ``type``, missing field,
                            wrong type, out-of-range value).
    * ``not_your_turn``  -- this seat may not act now (includes "game is finished").
    * ``illegal_action`` -- well-formed but against the rules; ``message`` says which
                            rule, in words a player can act on ("square (3,4) would
                            overhang level 1").
    """

    code = "illegal_action"


class BadOptions(GameError):
    """``setup`` was given options or a seat count the game does not accept."""

    code = "bad_options"


BotMove: TypeAlias = Callable[[State, int], Action]
"""A bot: ``(state, seat) -> action`` for a seat that must act now."""

Setup: TypeAlias = Callable[[dict[str, JSON], int, int], Mapping[str, JSON]]
"""The engine's set-up: ``(validated options, seats, seed) -> state`` (a game may type its
state with its own ``TypedDict``, so mypy checks its keys)."""

Choices: TypeAlias = Callable[[State, int], list[Action]]
"""The engine's legal actions for a seat that must act now (never ``resign``)."""


Stepper: TypeAlias = Callable[[State, int, Action], Step]
"""A game's own staged ``legal`` for a seat that must act (fast where the full list is
long); it must answer exactly what :func:`group_step` gives from the full list."""

ANYTIME = frozenset({"resign"})
"""Move types a seat still playing may send when it is not its turn."""


class Result(TypedDict):
    """A finished game's result: points per seat, the winning seats, why it ended."""

    scores: list[int]
    winners: list[int]
    reason: str | None


class Status(TypedDict):
    """Where a game stands (the hub's only window on the rules besides ``apply``).

    ``to_act`` holds the seats that must act now (several = simultaneous); ``turn``
    changes whenever a new deadline should start; ``phase`` is the game's own phase
    name, ``"finished"`` at the end.  A game may add fields of its own (a subclass).
    """

    phase: str
    to_act: list[int]
    turn: int
    finished: bool
    result: Result | None


@dataclass(frozen=True)
class HowTo:
    """One section of a game's rules for players (``Game.howto``): a title and its
    paragraphs, in plain words (no action fields, no slot codes)."""

    title: str
    paragraphs: tuple[str, ...]

    def describe(self) -> dict[str, JSON]:
        return {"title": self.title, "paragraphs": list(self.paragraphs)}


@dataclass(frozen=True)
class BotLevel:
    """One bot level a player can choose; ``name`` and ``description`` are for players."""

    id: str
    name: str
    description: str
    move: BotMove

    def describe(self) -> dict[str, JSON]:
        return {"id": self.id, "name": self.name, "description": self.description}


@dataclass(frozen=True)
class Game:
    """A registered game: metadata, the engine's pure functions and its move table.

    The engine declares; the base runs what every game shares:

    * :meth:`validate_options` checks table options once, from the declared ``options``;
      :meth:`setup` validates them and the seat count, then calls ``initial``;
    * :meth:`apply` runs the common checks once (the action is a map with a known
      ``type``, the seat exists, the game is not over, the seat has not resigned, the
      seat is among ``status(state)["to_act"]`` unless the type is in :data:`ANYTIME`,
      the action's fields fit the game's action schema), then the rules of that type
      on a private copy of the state, with the game's random generator;
    * :meth:`legal_actions` is ``choices`` for a seat that must act now, else nothing.
      ``resign`` is never listed: it is accepted at any time from a seat still playing
      (protocol/README.md "Actions").
    """

    id: str
    name: str
    min_players: int
    max_players: int
    initial: Setup
    moves: MoveTable
    choices: Choices
    view: Callable[[State, int | None], View]
    status: Callable[[State], Status]
    bot_action: BotMove
    seat_count: Callable[[State], int]
    """How many seats the game in this state has."""
    resigned: Callable[[State, int], bool]
    """Whether this (existing) seat has resigned."""
    options: dict[str, Option] = field(default_factory=dict)
    help: str = ""
    howto: tuple[HowTo, ...] = ()
    """How to play, for players: shown by the browser's "How to play" panel and the
    terminal's ``help`` (``list_games``); empty when the game has none."""
    public_view: bool = False
    """True when ``view(state, seat)`` is the same for every seat and spectators: the
    hub then computes and diffs one view per table instead of one per seat."""
    max_players_with_options: Callable[[dict[str, JSON]], int] | None = None
    """Seat limit for given options (e.g. a large tournament table); default max_players."""
    waiting: Callable[[State, int], str] | None = None
    """Why a seat that is not in ``to_act`` must wait, in words (default: whose turn it is)."""
    stepper: Stepper | None = None
    """The game's own staged ``legal``; default: :func:`group_step` over ``choices``."""
    bots: tuple[BotLevel, ...] = ()
    """The bot levels, weakest first; empty means one level playing ``bot_action``."""
    default_bot_level: str = ""
    """Level id ``add_bot`` uses when it names none (``bot_action`` should be its move);
    default the strongest."""
    fast_bot_level: str = ""
    """Level id of the deadline fallback, which may play for every seat of a large table
    at once; default the weakest."""
    restore: Callable[[State], State] | None = None
    """A state read back from the store (msgpack: every array a list) in the form the
    engine makes it, for a game whose states hold tuples; default: as it is."""
    compact_choices: Callable[[State, int], list[LegalGroup]] | None = None
    """The compact form of ``choices`` (protocol/README.md "Compact legal"), for a game
    whose legal list is hundreds of maps that differ in a field or two: the same actions
    grouped, each group's unchanging fields (``fixed``) once, the names of the varying
    ones (``fields``) and their values for every action of the group in one flat list
    (``values``).  Expanding every group (``protocol/legal.py``) gives exactly the
    ``choices``.  None: the game answers the compact ask with the plain list."""
    grid_choices: Callable[[State, int], list[LegalGrid]] | None = None
    """The grid form of ``choices`` (protocol/README.md "Grid legal"), for a game whose
    legal actions are positions on a plane: per group of the same unchanging fields
    (``fixed``), the mask of the positions (``fields`` f0, f1) as one hexadecimal
    number, bit ``i`` standing for ``origin`` + ``(i % width, i // width)``.  Expanding
    every grid (``protocol/legal.py``) gives exactly the ``choices``.  None: the game
    answers the grid ask as the compact one."""
    layered_choices: Callable[[State, int], list[LegalGrid]] | None = None
    """The layered grid form of ``choices`` (protocol/README.md "Layered grid legal"):
    grids that may stack masks (``layers``: a third field, one value per layer of
    ``width * height`` bits) and stand for several actions per position (``each``: maps
    added to ``fixed``).  Expanding every grid gives exactly the ``choices``.  None: the
    game answers the layered ask as the grid one."""
    legal_basis: Callable[[State, int], object] | None = None
    """What a seat's ``legal`` actions depend on in a state, as a value compared with
    ``==``: two states of a table that give equal bases for a seat give it the same
    legal actions, so the table keeps its reply across the versions between them
    (tables/legal_cache.py; 9-tower: whether the seat must place, the card and the seat's
    own layout).  None: a reply is kept for its version only."""
    reveal: Callable[[State], View] | None = None
    """The all-seeing view: everything in the state a player may see once the game is over
    (every hand, every face-down piece), for a finished game's replay; default: the
    ordinary view for a ``public_view`` game, none for a game that hides information."""
    counts_rounds: bool = False
    """Whether the game's board view counts rounds (its ``round``, from 1: a 9-tower
    card, a Termite Towers day and night), which a replay jumps by; otherwise a replay
    jumps by the table's turns."""

    def __post_init__(self) -> None:
        if not self.bots:
            only = BotLevel("standard", "Standard", "The game's computer player.", self.bot_action)
            object.__setattr__(self, "bots", (only,))
        ids = [level.id for level in self.bots]
        if not self.default_bot_level:
            object.__setattr__(self, "default_bot_level", ids[-1])
        if not self.fast_bot_level:
            object.__setattr__(self, "fast_bot_level", ids[0])
        if self.default_bot_level not in ids or self.fast_bot_level not in ids:
            raise ValueError(f"{self.id}: default and fast bot levels must be among {ids}")
        if "resign" not in self.moves:
            raise ValueError(f"{self.id}: every game has a resign move")

    # -- set-up ---------------------------------------------------------------------

    def validate_options(self, given: dict[str, JSON] | None) -> dict[str, JSON]:
        """Defaults merged with ``given``; unknown or ill-typed options raise BadOptions."""
        given = dict(given or {})
        out: dict[str, JSON] = {}
        for name, spec in self.options.items():
            value = given.pop(name, spec.default)
            problem = option_problem(name, spec, value)
            if problem is not None:
                raise BadOptions(problem)
            out[name] = value
        if given:
            raise BadOptions(f"unknown option(s) for {self.id}: {', '.join(sorted(given))}")
        return out

    def seat_limit(self, options: dict[str, JSON]) -> int:
        if self.max_players_with_options is not None:
            return self.max_players_with_options(options)
        return self.max_players

    def setup(self, options: dict[str, JSON], seats: int, seed: int) -> State:
        """A new game: options validated (defaults filled in), the seat count checked."""
        valid = self.validate_options(options)
        limit = self.seat_limit(valid)
        if isinstance(seats, bool) or not self.min_players <= seats <= limit:
            raise BadOptions(f"{self.name} takes {self.min_players}–{limit} players, not {seats}")
        return dict(self.initial(valid, seats, seed))

    def restored(self, state: State) -> State:
        """``state`` as decoded from the store, in the engine's own form (``restore``)."""
        return state if self.restore is None else self.restore(state)

    @property
    def has_all_seeing(self) -> bool:
        """Whether the game has an all-seeing view (its ``reveal``, or its public view)."""
        return self.reveal is not None or self.public_view

    def all_seeing(self, state: State) -> View | None:
        """The all-seeing view of ``state`` (``reveal``); ``None`` when the game hides
        information and has no such view."""
        if self.reveal is not None:
            return self.reveal(state)
        return self.view(state, None) if self.public_view else None

    # -- play -----------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        """The rules of the action's type on a private copy of ``state``, after the
        common checks; ``IllegalAction`` (and ``state`` unchanged) when anything refuses."""
        kind = action_type(action)
        rules = self.moves.rules.get(kind)
        if rules is None:
            raise IllegalAction(
                f"unknown action type {kind!r}; {self.name} knows {self.moves.names()}",
                "bad_action",
            )
        if isinstance(seat, bool) or not 0 <= seat < self.seat_count(state):
            raise IllegalAction(f"there is no seat {seat + 1} at this table", "not_your_turn")
        status = self.status(state)
        if status["finished"]:
            raise IllegalAction("the game is over: it has finished", "not_your_turn")
        if self.resigned(state, seat):
            raise IllegalAction("you have resigned from this game", "not_your_turn")
        if kind not in ANYTIME and seat not in status["to_act"]:
            raise IllegalAction(self._wait_reason(state, seat, status), "not_your_turn")
        if self.action_fields is not None:
            problem = self.action_fields.problem(kind, action)
            if problem is not None:
                raise IllegalAction(problem, "bad_action")
        new = self.moves.copy(state, seat)
        kept = new.get("rng")
        rng = Rng(0 if kept is None else kept)
        events = rules(new, seat, action, rng)
        if kept is not None:
            new["rng"] = rng.state
        return new, events

    @cached_property
    def action_fields(self) -> fields.ActionFields | None:
        """The fields of each action type, from the game's action schema (read on first
        use); None for a game the protocol has no schemas for."""
        return fields.load(self.id)

    def _wait_reason(self, state: State, seat: int, status: Status) -> str:
        if self.waiting is not None:
            return self.waiting(state, seat)
        acting = status["to_act"]
        if len(acting) == 1:
            return f"it is seat {acting[0] + 1}'s turn"
        seats = ", ".join(str(s + 1) for s in acting)
        return f"seats {seats} must act now; wait for your turn"

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Exactly the actions ``apply`` accepts from ``seat`` now, except ``resign``
        (always accepted from a seat still playing, never listed); empty when the seat
        need not act."""
        if seat not in self.status(state)["to_act"]:
            return []
        return self.choices(state, seat)

    def legal_groups(self, state: State, seat: int) -> list[LegalGroup] | None:
        """:meth:`legal_actions` in the compact form, or None for a game without one."""
        return self._in_form(self.compact_choices, state, seat)

    def legal_grids(self, state: State, seat: int) -> list[LegalGrid] | None:
        """:meth:`legal_actions` in the grid form, or None for a game without one."""
        return self._in_form(self.grid_choices, state, seat)

    def legal_layered(self, state: State, seat: int) -> list[LegalGrid] | None:
        """:meth:`legal_actions` in the layered grid form, or None for a game without
        one."""
        return self._in_form(self.layered_choices, state, seat)

    def legal_in_form(self, state: State, seat: int, form: str) -> dict[str, Any]:
        """The answer to ``legal`` without ``partial`` in ``form`` (protocol/legal.py
        ``FORMS``), or in the next cheaper form the game has -- layered, grid, compact,
        plain: ``{"grids": ...}``, ``{"groups": ...}`` or ``{"actions": ...}``."""
        if form == LAYERED:
            grids = self.legal_layered(state, seat)
            if grids is not None:
                return {"grids": grids}
        if form in (GRID, LAYERED):
            grids = self.legal_grids(state, seat)
            if grids is not None:
                return {"grids": grids}
        if form != PLAIN:
            groups = self.legal_groups(state, seat)
            if groups is not None:
                return {"groups": groups}
        return {"actions": self.legal_actions(state, seat)}

    def _in_form(
        self, form: Callable[[State, int], list[dict[str, Any]]] | None, state: State, seat: int
    ) -> list[dict[str, Any]] | None:
        """A seat's legal actions in another form (``compact_choices``, ``grid_choices``,
        ``layered_choices``): None when the game has no such form, none for a seat that
        need not act."""
        if form is None:
            return None
        if seat not in self.status(state)["to_act"]:
            return []
        return form(state, seat)

    def legal_step(self, state: State, seat: int, partial: Action) -> Step:
        """The staged form of ``legal``: the choices for the next field of ``partial``
        (an action with some fields chosen, ``{}`` for none).  Following the choices from
        ``{}`` reaches exactly the actions :meth:`legal_actions` lists."""
        if not isinstance(partial, dict):
            raise IllegalAction(
                "a partial action must be a map of the fields chosen so far", "bad_action"
            )
        kind = partial.get("type")
        if kind is not None and (not isinstance(kind, str) or kind not in self.moves):
            raise IllegalAction(
                f"unknown action type {kind!r}; this game knows {self.moves.names()}",
                "bad_action",
            )
        if seat not in self.status(state)["to_act"]:
            return {"field": None, "choices": [], "complete": False}
        if self.stepper is not None:
            return self.stepper(state, seat, partial)
        return group_step(self.choices(state, seat), partial)

    # -- bots -----------------------------------------------------------------------

    def bot_level(self, level: str | int | None) -> BotLevel:
        """The level ``add_bot`` asked for (protocol/README.md "Bot levels").

        ``None`` is the default level; a string must be a level id; an integer (the old
        1-3 scale) is the n-th level from the weakest, clamped to the ones there are.
        Anything else raises ``BadOptions`` listing the level ids.
        """
        if level is None:
            level = self.default_bot_level
        if isinstance(level, int) and not isinstance(level, bool):
            return self.bots[min(max(level, 1), len(self.bots)) - 1]
        for candidate in self.bots:
            if candidate.id == level:
                return candidate
        ids = ", ".join(candidate.id for candidate in self.bots)
        raise BadOptions(f"{self.name} has no bot level {level!r}; its levels are: {ids}")

    def bot_move(self, state: State, seat: int, level: str | None) -> Action:
        """The move of the bot of level id ``level``; ``None`` or an id this game does not
        have (a record from an older server) plays the default level."""
        for candidate in self.bots:
            if candidate.id == level:
                return candidate.move(state, seat)
        return self.bot_action(state, seat)

    def fast_bot_move(self, state: State, seat: int) -> Action:
        """The move of the fast bot level (the deadline fallback)."""
        return self.bot_move(state, seat, self.fast_bot_level)

    def describe(self) -> dict[str, JSON]:
        return {
            "id": self.id,
            "name": self.name,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": {name: spec.describe() for name, spec in self.options.items()},
            "help": self.help,
            "howto": [section.describe() for section in self.howto],
            "bot_levels": [level.describe() for level in self.bots],
            "default_bot_level": self.default_bot_level,
        }


def clone(value: Any, depth: int | None = None) -> Any:
    """A copy of JSON data for copy-on-write: dicts and lists are copied down to ``depth``
    levels (``None``: all the way; at least 1), deeper ones are shared with ``value``.

    ``clone(state, 1)`` is a new top-level dict whose values are shared; a move then
    replaces (never mutates) what it changes below that depth.
    """
    if depth == 1:
        if isinstance(value, dict):
            return dict(value)
        return list(value) if isinstance(value, list) else value
    below = None if depth is None else depth - 1
    if isinstance(value, dict):
        return {key: clone(item, below) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item, below) for item in value]
    return value


def action_type(action: Action) -> str:
    """The action's ``type`` or ``bad_action``."""
    if not isinstance(action, dict):
        raise IllegalAction("an action must be a map with a 'type' field", "bad_action")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise IllegalAction("action field 'type' must be a string", "bad_action")
    return kind


def final_result(status: Status) -> Result:
    """The result in a finished game's status (``ValueError`` while the game runs)."""
    result = status["result"]
    if result is None:
        raise ValueError("the game is not finished: it has no result yet")
    return result
