"""``tablehub play --script``: play from a program, one JSON object per line.

Output (stdout), one JSON object per line, each with an ``event`` field:

==============  ==================================================================
``created``     ``table, game, seats, join, watch`` -- a new table (with the commands
                others run to join or watch it)
``joined``      ``table, seat, resumed, why`` -- we hold the seat (``resumed``: with the
                saved token)
``bot``         ``table, seat`` -- a bot took a seat
``stale_token`` ``table, seat`` -- the saved token was refused; joining afresh
``presence``    ``seats, spectators`` -- who is connected
``view``        ``version, status, phase, turn, to_act, deadline, your_turn, view``
                (``--brief``: without ``view``, for big tables)
``events``      ``version, events`` -- what happened (the game's event list)
``your_turn``   ``version, legal`` -- we must act; ``legal`` lists the actions (best first
                when the game sorts them)
``acted``       ``version, action`` -- our action was accepted
``error``       ``code, message`` (+ ``input`` or ``action``) -- refused or unreadable;
                after a refusal ``your_turn`` comes again
``reconnected`` the connection dropped and the seat was taken back
``waiting``     ``message`` -- the server asked us to retry a request later (busy, or
                its storage out of reach); the sentence says when
``finished``    ``table, version, result`` -- the game is over: the last line; exit status 0
``left``        we stopped on ``"quit"``; the saved token takes the seat back later
==============  ==================================================================

Input (stdin), read only when it is our turn, one line per move: a JSON action
(``{"type": "place", "x": 0, "y": 0, "rot": 0}``), ``{"action": {...}}``,
``{"pick": i}`` or a bare integer ``i`` (the i-th action of ``legal``, from 0), the
string ``"quit"``, or the game's own move syntax as typed in ``tablehub play``
(``3 -1 2`` for 9-tower).  ``--auto`` reads nothing and always plays ``legal[0]``.
End of input while it is our turn, with no table deadline, exits with status 5.

Seats in these lines are the protocol's: ``"seat": 0`` (and ``to_act``, ``winners``,
the view's ``seats`` list) counts from 0, where the screen and the ``--seat`` option
say "seat 1" (``numbering.py``); only the client's own sentences (``why``) count from 1.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tablehub.clients.cli.connection import ServerError
from tablehub.clients.cli.errors import EXIT_OK
from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.lines import LineSource
from tablehub.clients.cli.link import Change, Link, SeatRequest, take_seat
from tablehub.clients.cli.tokens import TokenStore
from tablehub.clients.cli.turns import TurnTracker, first_of, is_my_turn

Emit = Callable[[dict[str, Any]], None]

QUIT = "quit"


def json_line(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


def read_move(
    line: str, legal: list[dict[str, Any]], text: GameText, board: Any, seat: int | None
) -> dict[str, Any] | str:
    """One input line as an action, or ``QUIT``; ``ValueError`` says why it is unreadable."""
    try:
        value = json.loads(line)
    except ValueError:
        value = line
    if isinstance(value, dict) and isinstance(value.get("action"), dict):
        return dict(value["action"])
    if isinstance(value, dict) and "pick" in value:
        value = value["pick"]
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < len(legal):
            raise ValueError(f"pick {value} is out of range: there are {len(legal)} legal actions")
        return legal[value]
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        if value.strip().lower() == QUIT:
            return QUIT
        return text.parse(value, board, seat)
    raise ValueError(f"not a move: {line!r}")


def view_event(
    version: int, view: dict[str, Any], seat: int | None, full: bool = True
) -> dict[str, Any]:
    event = {
        "event": "view",
        "version": version,
        "status": view.get("status"),
        "phase": view.get("phase"),
        "turn": view.get("turn"),
        "to_act": view.get("to_act"),
        "deadline": view.get("deadline"),
        "your_turn": is_my_turn(view, seat),
    }
    if full:
        event["view"] = view
    return event


def change_events(
    change: Change, table: str, seat: int | None, full: bool = True
) -> list[dict[str, Any]]:
    """The output lines for one change of the table (shared with ``watch --json``).

    Every received version gives one ``view`` line, followed by that version's game
    ``events``.  (``finished`` is the runner's last line, see :func:`finished_event`.)
    """
    out: list[dict[str, Any]] = []
    if change.reconnected:
        out.append({"event": "reconnected", "table": table})
    if change.presence is not None:
        out.append(
            {
                "event": "presence",
                "seats": change.presence.get("seats"),
                "spectators": change.presence.get("spectators"),
            }
        )
    views = change.views
    if change.reconnected and not views:
        views = [(change.mirror.version, change.mirror.view)]
    steps: list[tuple[int, int, dict[str, Any]]] = [
        (version, 0, view_event(version, view, seat, full)) for version, view in views
    ]
    steps.extend(
        (version, 1, {"event": "events", "version": version, "events": events})
        for version, events in change.events
    )
    out.extend(event for _, _, event in sorted(steps, key=lambda step: step[:2]))
    return out


def finished_event(link: Link) -> dict[str, Any]:
    mirror = link.mirror
    return {
        "event": "finished",
        "table": link.table,
        "version": mirror.version,
        "result": mirror.view.get("result"),
    }


class ScriptPlayer:
    def __init__(
        self, link: Link, emit: Emit, lines: LineSource | None, full_views: bool = True
    ) -> None:
        self.link = link
        self.full_views = full_views
        self.emit = emit
        self.lines = lines
        self.tracker = TurnTracker(link, self.on_change)
        self._text: GameText | None = None
        link.on_waiting = lambda words: emit({"event": "waiting", "message": words})

    @property
    def text(self) -> GameText:
        """The text face of the table's game (known from the first view)."""
        game = str(self.tracker.view.get("game", ""))
        if self._text is None or self._text.game_id != game:
            self._text = GameText(game)
        return self._text

    def on_change(self, change: Change) -> None:
        for event in change_events(change, self.link.table, self.link.seat, self.full_views):
            self.emit(event)

    async def move(self) -> int:
        """Play our turns until quit (the follower ends the run when the game is over)."""
        tracker = self.tracker
        while True:
            legal = await tracker.my_turn()
            version = tracker.ready_version
            self.emit({"event": "your_turn", "version": version, "legal": legal})
            if self.lines is None:  # --auto
                if not legal:
                    self.emit(
                        {
                            "event": "error",
                            "code": "no_legal_action",
                            "message": "no legal action offered",
                        }
                    )
                    tracker.skip()
                    continue
                action: dict[str, Any] | str = legal[0]
            else:
                line = await self.lines.readline()
                if line is None:
                    await tracker.end_of_input()
                    continue
                if not line.strip():
                    continue
                try:
                    action = read_move(
                        line, legal, self.text, tracker.view.get("board"), self.link.seat
                    )
                except ValueError as err:
                    self.emit(
                        {"event": "error", "code": "unreadable", "message": str(err), "input": line}
                    )
                    continue
            if action == QUIT:
                self.emit({"event": "left", "table": self.link.table})
                return EXIT_OK
            assert isinstance(action, dict)
            try:
                async with tracker.acting():
                    new_version = await self.link.act(action)
                    self.emit({"event": "acted", "version": new_version, "action": action})
                    tracker.acted(new_version)
            except ServerError as err:
                self.emit(
                    {"event": "error", "code": err.code, "message": err.message, "action": action}
                )
                if self.lines is None:
                    tracker.skip()
                continue
            except ConnectionError as err:
                self.emit({"event": "error", "code": "connection_lost", "message": str(err)})
                tracker.lost()
                continue


async def run_script(
    req: SeatRequest,
    tokens: TokenStore,
    emit: Emit,
    lines: LineSource | None,
    full_views: bool = True,
) -> int:
    """Take the seat and play to the end (``lines=None``: the auto player)."""

    def notify(kind: str, fields: dict[str, Any]) -> None:
        event = {"event": kind, **fields}
        if kind == "created":
            table = fields["table"]
            event["join"] = f"tablehub play --name NAME --table {table} --url {req.url}"
            event["watch"] = f"tablehub watch {table} --url {req.url}"
        emit(event)

    link = await take_seat(req, tokens, notify)
    try:
        code = await play_script(link, emit, lines, full_views)
        if link.mirror.view.get("status") == "finished":
            tokens.forget(req.url, link.table, req.name)
    finally:
        await link.close()
    return code


async def play_script(
    link: Link, emit: Emit, lines: LineSource | None, full_views: bool = True
) -> int:
    """Play at a taken seat until the game ends (``finished`` is the last line) or quit."""
    player = ScriptPlayer(link, emit, lines, full_views)
    code = await first_of(player.tracker.follow(), player.move())
    if link.mirror.view.get("status") == "finished":
        player.on_change(link.drain())  # e.g. the last move's events
        emit(finished_event(link))
    return code
