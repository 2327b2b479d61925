"""A move's fields, declared once: in the game's action schema
(protocol/v1/games/<id>/action.json, one ``$defs`` entry per action type).

The hub's door checks an action against that schema before the table sees it
(``protocol.codec.action_problem``); the engine checks the same declaration again here,
for every caller (bots, replays, tests), in the words the player reads:
``Game.apply`` asks :meth:`ActionFields.problem` before the move's rules run, so the rules
read their fields without checking them.  What depends on the state (a position within
the row the player has now, the fields a pending choice takes) stays with the rules.

The schema is compiled once per game into plain checks (no JSON-schema interpreter on the
act path).  The checks understand the keywords the action schemas use -- ``type``
(``integer``, ``string``, ``array``, ``null``), ``minimum``, ``maximum``, ``enum``,
``const``, ``maxLength``, ``items``, ``minItems``, ``maxItems``, ``anyOf``, and per
action type ``properties``, ``required``, ``additionalProperties: false`` and ``allOf``
of ``if`` (one field's ``const``) / ``then`` (``required``); a schema with another
keyword is refused when it is compiled, so nothing it declares goes unchecked.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tablehub.protocol import codec

Check = Callable[[Any], str | None]
"""A field's check: ``None`` when the value fits, else the problem (``must be ...``)."""

_NOTES = frozenset({"description", "title", "default", "$comment"})
_VALUE_KEYWORDS = frozenset(
    {"type", "minimum", "maximum", "enum", "const", "maxLength", "items", "minItems"}
    | {"maxItems", "anyOf"}
)


@dataclass(frozen=True)
class Needs:
    """``then: {required: fields}`` of an ``if`` on one field's value (``card`` is
    ``swarm``: the action needs ``dice``)."""

    field: str
    value: Any
    fields: tuple[str, ...]


@dataclass(frozen=True)
class MoveFields:
    """One action type's fields: their checks, the required ones and the conditional ones."""

    kind: str
    checks: Mapping[str, Check]
    words: Mapping[str, str]
    required: tuple[str, ...]
    needs: tuple[Needs, ...]
    required_keys: frozenset[str]
    ranges: Mapping[str, tuple[float, float]]
    """The integer fields' bounds, checked in line (the act path's common case)."""

    def problem(self, action: dict[str, Any]) -> str | None:
        """Why ``action`` (of this type) does not fit, in words; None when it does."""
        checks = self.checks
        ranges = self.ranges
        for name, value in action.items():
            bounds = ranges.get(name)
            if bounds is not None and type(value) is int and bounds[0] <= value <= bounds[1]:
                continue
            check = checks.get(name)
            if check is None:
                if name != "type":
                    return self._extra(action)
                continue
            wrong = check(value)
            if wrong is not None:
                return f"action field {name!r} {wrong}"
        if not action.keys() >= self.required_keys:
            for name in self.required:
                if name not in action:
                    return f"a {self.kind} action needs {name!r} ({self.words[name]})"
        for needs in self.needs:
            if action.get(needs.field) == needs.value:
                for name in needs.fields:
                    if name not in action:
                        return (
                            f"a {self.kind} action with {needs.field} {needs.value} needs"
                            f" {name!r} ({self.words[name]})"
                        )
        return None

    def needed(self, field: str, value: Any) -> tuple[str, ...]:
        """The fields an action of this type with ``field`` = ``value`` needs besides it."""
        return tuple(name for n in self.needs if n.value == value for name in n.fields)

    def _extra(self, action: dict[str, Any]) -> str:
        extra = sorted(str(name) for name in action if name != "type" and name not in self.checks)
        takes = ", ".join(repr(name) for name in sorted(self.checks)) or "no other field"
        return f"a {self.kind} action takes {takes}, not {', '.join(repr(n) for n in extra)}"


@dataclass(frozen=True)
class ActionFields:
    """A game's action types and their fields, from its action schema."""

    moves: Mapping[str, MoveFields]

    def problem(self, kind: str, action: dict[str, Any]) -> str | None:
        """Why ``action`` of type ``kind`` does not fit the schema; None when it does."""
        fields = self.moves.get(kind)
        return None if fields is None else fields.problem(action)


def load(game_id: str) -> ActionFields | None:
    """The game's action fields from its schema; None for a game the protocol has no
    schemas for (a game registered at run time without them: its rules check alone)."""
    refs = codec.index()["games"].get(game_id)
    if refs is None:
        return None
    schema = json.loads((codec.V1_DIR / refs["action"]).read_text())
    return compile_schema(schema)


def compile_schema(schema: Mapping[str, Any]) -> ActionFields:
    """The checks of an action schema in the games' layout (one ``$defs`` entry per type)."""
    kinds = schema["properties"]["type"]["enum"]
    return ActionFields({kind: _compile_move(kind, schema["$defs"][kind]) for kind in kinds})


def _compile_move(kind: str, node: Mapping[str, Any]) -> MoveFields:
    _only(node, {"type", "properties", "required", "additionalProperties", "allOf"}, kind)
    if node.get("additionalProperties") is not False:
        raise ValueError(f"action {kind}: the schema must refuse other fields")
    props = {name: spec for name, spec in node["properties"].items() if name != "type"}
    compiled = {name: _compile_value(spec, f"{kind}.{name}") for name, spec in props.items()}
    needs = tuple(_compile_needs(kind, branch) for branch in node.get("allOf", []))
    required = tuple(name for name in node.get("required", []) if name != "type")
    ranges = {
        name: (spec.get("minimum", -math.inf), spec.get("maximum", math.inf))
        for name, spec in props.items()
        if spec.get("type") == "integer"
    }
    return MoveFields(
        kind=kind,
        checks={name: check for name, (check, _) in compiled.items()},
        words={name: words for name, (_, words) in compiled.items()},
        required=required,
        required_keys=frozenset(required),
        needs=needs,
        ranges=ranges,
    )


def _compile_needs(kind: str, branch: Mapping[str, Any]) -> Needs:
    _only(branch, {"if", "then"}, kind)
    ((field, spec),) = branch["if"]["properties"].items()
    _only(branch["then"], {"required"}, kind)
    return Needs(field, spec["const"], tuple(branch["then"]["required"]))


def _only(node: Mapping[str, Any], keywords: set[str] | frozenset[str], where: str) -> None:
    unknown = set(node) - keywords - _NOTES
    if unknown:
        raise ValueError(f"{where}: the action checks do not understand {sorted(unknown)}")


def _compile_value(node: Mapping[str, Any], where: str) -> tuple[Check, str]:
    """A value's check and its description in words (``an integer from 0 to 3``)."""
    _only(node, _VALUE_KEYWORDS, where)
    if "anyOf" in node:
        return _any_of([_compile_value(sub, where) for sub in node["anyOf"]])
    if "enum" in node or "const" in node:
        return _one_of(list(node["enum"]) if "enum" in node else [node["const"]])
    types = node["type"] if isinstance(node["type"], list) else [node["type"]]
    nullable = "null" in types
    (kind,) = [t for t in types if t != "null"]
    if kind == "integer":
        check, words = _integer(node.get("minimum"), node.get("maximum"))
    elif kind == "string":
        check, words = _string(node.get("maxLength"))
    elif kind == "array":
        item = _compile_value(node["items"], where)
        check, words = _array(item, node.get("minItems"), node.get("maxItems"))
    else:
        raise ValueError(f"{where}: the action checks do not understand type {kind!r}")
    if not nullable:
        return check, words
    return (lambda value: None if value is None else check(value)), f"{words}, or nothing"


def _integer(lo: int | None, hi: int | None) -> tuple[Check, str]:
    def check(value: Any) -> str | None:
        if type(value) is not int:
            return "must be an integer"
        if lo is not None and value < lo:
            return f"must be at least {lo}"
        if hi is not None and value > hi:
            return f"must be at most {hi}"
        return None

    if lo is not None and hi is not None:
        return check, f"an integer from {lo} to {hi}"
    if lo is not None:
        return check, f"an integer of at least {lo}"
    return check, "an integer" if hi is None else f"an integer of at most {hi}"


def _string(longest: int | None) -> tuple[Check, str]:
    def check(value: Any) -> str | None:
        if not isinstance(value, str):
            return "must be a string"
        if longest is not None and len(value) > longest:
            return f"must be at most {longest} characters long"
        return None

    return check, "a string"


def _one_of(choices: list[Any]) -> tuple[Check, str]:
    kinds = {(type(choice), choice) for choice in choices}
    words = "one of " + ", ".join(str(choice) for choice in choices)

    def check(value: Any) -> str | None:
        if isinstance(value, (dict, list)) or (type(value), value) not in kinds:
            return f"must be {words}"
        return None

    return check, words


def _array(item: tuple[Check, str], least: int | None, most: int | None) -> tuple[Check, str]:
    item_check, item_words = item

    def check(value: Any) -> str | None:
        if not isinstance(value, list):
            return f"must be a list, each item {item_words}"
        if least is not None and len(value) < least:
            return f"must have at least {least} items"
        if most is not None and len(value) > most:
            return f"must have at most {most} items"
        for index, each in enumerate(value):
            wrong = item_check(each)
            if wrong is not None:
                return f"item {index + 1} {wrong}"
        return None

    return check, f"a list, each item {item_words}"


def _any_of(options: list[tuple[Check, str]]) -> tuple[Check, str]:
    words = " or ".join(f"({each})" if " or " in each else each for _, each in options)

    def check(value: Any) -> str | None:
        if any(each(value) is None for each, _ in options):
            return None
        return f"must be {words}"

    return check, words
