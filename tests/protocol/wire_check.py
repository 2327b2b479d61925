"""The strict check of what the server sends (issue 26, "the schemas describe what the
server sends"), shared by the playout test and the real-socket test.

:class:`WireCheck` takes server messages -- replies with the request they answer, and
pushes with the audience they went to -- and records every way each one departs from
protocol/v1 (:func:`strict_schema.problems`: the schema's rules and every field it does
not name).  The parts a message schema leaves to another document are checked against
that document:

* ``snapshot.view`` and the view a ``patch`` yields (applied to the audience's previous
  view): ``games/table_view.json``, and its ``board`` against the game's player view for
  a seat or its spectator view for spectators;
* ``event.events``: each against the game's event schema;
* ``patch.ops``: RFC 6902 operations (``op``, ``path``, ``value``, ``from`` only);
* ``ok``: its fields are the request schema's ``reply`` names; the items of a reply's
  lists (``games``, ``tables``, ``resumed``, ``choices``) hold only the fields the
  ``reply`` text lists in braces, ``actions`` fit the game's action schema, and table
  summaries' ``options`` only the game's options;
* ``tables`` pushes: summaries as ``list_tables`` describes them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import jsonpatch

from tablehub.protocol.codec import V1_DIR, action_problem, index, message_types
from tests.protocol.strict_schema import problems

Fields = dict[str, "Fields | None"]
"""Field names a ``reply`` text lists in braces, each with the fields of its own
braces (None: a plain value)."""

PATCH_OP_FIELDS = frozenset({"op", "path", "value", "from"})


def message_ref(kind: str) -> str:
    ref: str = index()["messages"][kind]["schema"]
    return ref


def board_ref(game: str, seat: int | None) -> str:
    ref: str = index()["games"][game]["spectator_view" if seat is None else "player_view"]
    return ref


@cache
def reply_fields(kind: str) -> dict[str, str]:
    """The ``reply`` of request ``kind``'s schema: field name -> its description."""
    doc = json.loads((V1_DIR / message_ref(kind)).read_text())
    reply: dict[str, str] = doc["reply"]
    return reply


def braces(text: str) -> Fields | None:
    """The field names in the first ``{...}`` of a reply description ("list of {table,
    seat|null, ok, code?}" -> table, seat, ok, code), nested braces included."""
    start = text.find("{")
    if start < 0:
        return None
    fields: Fields = {}
    depth, entry = 0, ""
    for char in text[start + 1 :]:
        if char in "{[(":
            depth += 1
        elif char in "}])":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            _add_entry(fields, entry)
            entry = ""
        else:
            entry += char
    _add_entry(fields, entry)
    return fields


def _add_entry(fields: Fields, entry: str) -> None:
    match = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", entry)
    assert match is not None, f"no field name in {entry!r}"
    rest = entry[match.end() :].lstrip("?").lstrip()
    inner = braces(rest) if rest.startswith((":", "|")) and "{" in rest else None
    fields[match.group(1)] = inner


def _against(fields: Fields | None, value: Any, where: str) -> list[str]:
    """Fields of ``value`` (an object or a list of them) that ``fields`` does not list.
    A braces text with one field holding braces (``{name: {...}}``) is a map."""
    if fields is None:
        return []
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _against(fields, item, f"{where}[{i}]")]
    if not isinstance(value, dict):
        return []
    if len(fields) == 1 and next(iter(fields.values())) is not None:
        inner = next(iter(fields.values()))
        return [p for k, v in value.items() for p in _against(inner, v, f"{where}.{k}")]
    out = [f"{where}.{k}: a field the reply text does not name" for k in value if k not in fields]
    for key, inner in fields.items():
        if key in value:
            out += _against(inner, value[key], f"{where}.{key}")
    return out


@dataclass
class Audience:
    """One audience of a table as a client sees it: its seat (None = spectator) and
    the view it holds."""

    table: str
    game: str
    seat: int | None
    version: int = -1
    view: dict[str, Any] | None = None


@dataclass
class WireCheck:
    problems: list[str] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)
    """What was checked: message types, event types, view phases and statuses..."""
    _views: set[tuple[str, int | None, int]] = field(default_factory=set)

    def _add(self, found: list[str], context: str) -> None:
        self.problems += [f"{context}: {p}" for p in found[:5]]

    # -- replies ----------------------------------------------------------------------

    def reply(self, request: str, msg: dict[str, Any], game: str | None = None) -> None:
        """An ``ok`` or ``error`` answering a request of type ``request``."""
        kind = msg.get("t")
        self.seen[f"{kind}:{request}"] += 1
        if kind == "error":
            self._add(problems(message_ref("error"), msg), f"error to {request}")
            if msg.get("code") not in index()["error_codes"]:
                self.problems.append(f"error to {request}: code {msg.get('code')!r} not listed")
            self.seen[f"error:{msg.get('code')}"] += 1
            return
        if kind != "ok":
            self.problems.append(f"reply to {request} is a {kind!r}")
            return
        named = reply_fields(request)
        envelope = {k: v for k, v in msg.items() if k not in named}
        self._add(problems(message_ref("ok"), envelope), f"ok to {request}")
        for key, text in named.items():
            if key in msg:
                self._add(_against(braces(text), msg[key], f"$.{key}"), f"ok to {request}")
        if request == "legal" and game is not None:
            for action in msg.get("actions", []):
                problem = action_problem(game, action)
                if problem is not None:
                    self.problems.append(f"ok to legal: {action}: {problem}")
        for summary in (
            msg.get("tables", []) if request in ("list_tables", "subscribe_tables") else []
        ):
            self._summary(summary, f"ok to {request}")

    def _summary(self, summary: dict[str, Any], context: str) -> None:
        """A table summary's ``options``: only the game's own (and the hub's two)."""
        game = summary.get("game")
        if game not in index()["games"]:
            return
        doc = json.loads((V1_DIR / index()["games"][game]["options"]).read_text())
        unknown = sorted(set(summary.get("options", {})) - set(doc["properties"]))
        self.problems += [f"{context}: options.{k}: not in {game}'s options" for k in unknown]

    # -- pushes -----------------------------------------------------------------------

    def push(self, msg: dict[str, Any], audience: Audience | None = None) -> None:
        """A push, to ``audience`` for a table's pushes (None: lobby pushes)."""
        kind = msg.get("t")
        self.seen[str(kind)] += 1
        if kind not in message_types("server_to_client") or kind in ("ok", "error"):
            self.problems.append(f"push of type {kind!r}")
            return
        self._add(problems(message_ref(str(kind)), msg), str(kind))
        if kind == "batch":
            for item in msg.get("m", []):
                self.push(item, audience)
            return
        if kind == "tables":
            summaries = msg.get("tables", [])
            fields = braces(reply_fields("list_tables")["tables"])
            self._add(_against(fields, summaries, "$.tables"), "tables")
            for summary in summaries:
                self._summary(summary, "tables")
            return
        if audience is None:
            return
        if kind == "snapshot":
            audience.view, audience.version = msg["view"], msg["version"]
            self.view(audience)
        elif kind == "patch":
            for i, op in enumerate(msg["ops"]):
                extra = sorted(set(op) - PATCH_OP_FIELDS)
                self.problems += [f"patch: $.ops[{i}].{k}: not an RFC 6902 field" for k in extra]
            if audience.view is None or msg["from"] != audience.version:
                self.problems.append(f"patch from {msg['from']} to a client at {audience.version}")
                return
            audience.view = jsonpatch.apply_patch(audience.view, msg["ops"], in_place=False)
            audience.version = msg["to"]
            self.view(audience)
        elif kind == "event":
            ref = index()["games"][audience.game]["event"]
            for i, event in enumerate(msg["events"]):
                self.seen[f"event:{audience.game}:{event.get('type')}"] += 1
                if event.get("type") == "round_end" and event.get("winner") is None:
                    self.seen["round_end without a winner"] += 1
                self._add(problems(ref, event, f"$.events[{i}]"), f"{audience.game} event")

    def view(self, audience: Audience) -> None:
        """The table view ``audience`` holds (once per audience and version)."""
        key = (audience.table, audience.seat, audience.version)
        if key in self._views or audience.view is None:
            return
        self._views.add(key)
        view = audience.view
        who = "spectators" if audience.seat is None else f"seat {audience.seat}"
        context = f"{audience.game} view v{audience.version} for {who}"
        self._add(problems(index()["table_view"], view), context)
        board = view.get("board")
        self._add(problems(board_ref(audience.game, audience.seat), board, "$.board"), context)
        self.seen[f"view:{audience.game}:{view.get('status')}:{view.get('phase')}"] += 1
        if view.get("deadline") is not None:
            self.seen["view with a deadline"] += 1
        if view.get("result") is not None:
            self.seen[f"result:{audience.game}"] += 1
