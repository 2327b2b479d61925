"""Strict reading of protocol/v1: a value fits only if every field it carries is named.

The schemas leave objects open (JSON Schema's default, and the README tells clients to
ignore fields they do not know), so validating alone lets an undocumented field through.
:func:`problems` first validates a value against its schema (fastjsonschema, as the
codec does), then walks the value beside the schema and reports every object key that
no applicable subschema names.

Theory of operation: at each place in the value, the subschemas that apply there are
collected the way JSON Schema's annotations are: the schema itself, its ``$ref``
target, every ``allOf`` member, the ``anyOf``/``oneOf`` members the value fits, and the
``then`` (or ``else``) of an ``if`` the value fits (or does not).  An object's key is
named when one of them lists it in ``properties``, or matches ``patternProperties``, or
has ``additionalProperties`` *as a schema* (a map such as termite's ``cards``: its
values are walked against that schema).  ``additionalProperties: true`` names nothing:
the message schemas say it on their top level, and the test holds the server to the
fields they list regardless.  An object schema without ``properties`` at all (``view``,
``board``, an event list's items, ``ok``'s reply fields) is described in another
document: the caller checks that part against it, and the walk does not descend.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import fastjsonschema

from tablehub.protocol.codec import V1_DIR

Schema = dict[str, Any]
Validator = Callable[[Any], Any]

_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


@cache
def _document(name: str) -> Schema:
    """A schema file under v1/ by its path there, without its relative ``$id``
    (fastjsonschema would resolve the local references against it as a URL)."""
    doc: Schema = json.loads((V1_DIR / name).read_text())
    doc.pop("$id", None)
    return doc


@cache
def _validator(name: str, pointer: str) -> Validator:
    """The compiled subschema at JSON pointer ``pointer`` of file ``name`` (its
    ``$defs`` stay resolvable: the root becomes a ``$ref`` to it, as in the codec)."""
    doc = dict(_document(name))
    if pointer:
        doc["$ref"] = "#" + pointer
    return fastjsonschema.compile(doc)


@cache
def _at(name: str, pointer: str) -> Any:
    node: Any = _document(name)
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _fits(name: str, pointer: str, value: Any) -> bool:
    try:
        _validator(name, pointer)(value)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


def _may_fit(name: str, pointer: str, value: Any, depth: int = 0) -> bool:
    """A quick type check of a branch (its ``type``, ``const``, ``enum``, through a
    ``$ref``): False means it certainly does not fit."""
    node = _at(name, pointer)
    if not isinstance(node, dict):
        return bool(node)
    if "$ref" in node and depth < 8:
        return _may_fit(name, node["$ref"][1:], value, depth + 1)
    kinds = node.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_TYPES[kind](value) for kind in kinds):
            return False
    if "const" in node and node["const"] != value:
        return False
    return "enum" not in node or value in node["enum"]


def _applicable(name: str, pointer: str, value: Any) -> Iterator[tuple[str, Schema]]:
    """The subschemas (pointer, schema) that apply in place at ``pointer`` to ``value``
    (which fits the whole)."""
    node = _at(name, pointer)
    if not isinstance(node, dict):
        return
    yield pointer, node
    if "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#"), f"{name}{pointer}: only local $ref is read ({ref})"
        yield from _applicable(name, ref[1:], value)
    for i in range(len(node.get("allOf", []))):
        yield from _applicable(name, f"{pointer}/allOf/{i}", value)
    for keyword in ("anyOf", "oneOf"):
        branches = [f"{pointer}/{keyword}/{i}" for i in range(len(node.get(keyword, [])))]
        maybe = [b for b in branches if _may_fit(name, b, value)]
        if len(maybe) > 1:  # the value fits the whole, so one alone needs no check
            maybe = [b for b in maybe if _fits(name, b, value)]
        for branch in maybe:
            yield from _applicable(name, branch, value)
    if "if" in node:
        branch = "then" if _fits(name, f"{pointer}/if", value) else "else"
        if branch in node:
            yield from _applicable(name, f"{pointer}/{branch}", value)


def _walk(name: str, pointer: str, value: Any, where: str, out: list[str]) -> None:
    if not isinstance(value, (dict, list)):
        return
    schemas = list(_applicable(name, pointer, value))
    if isinstance(value, list):
        for base, schema in schemas:
            items = schema.get("items")
            if isinstance(items, dict):
                for i, item in enumerate(value):
                    _walk(name, f"{base}/items", item, f"{where}[{i}]", out)
            for i, _ in enumerate(schema.get("prefixItems", [])[: len(value)]):
                _walk(name, f"{base}/prefixItems/{i}", value[i], f"{where}[{i}]", out)
        return
    described = [(b, s) for b, s in schemas if "properties" in s or _is_map(s)]
    if not described:
        return  # an object described elsewhere (see the module's docstring)
    for key, item in value.items():
        named = False
        for base, schema in described:
            sub = None
            if key in schema.get("properties", {}):
                sub = f"{base}/properties/{_escape(key)}"
            else:
                for pattern in schema.get("patternProperties", {}):
                    if re.search(pattern, key):
                        sub = f"{base}/patternProperties/{_escape(pattern)}"
                        break
                else:
                    if isinstance(schema.get("additionalProperties"), dict):
                        sub = f"{base}/additionalProperties"
            if sub is not None:
                named = True
                _walk(name, sub, item, f"{where}.{key}", out)
        if not named:
            out.append(f"{where}.{key}")


def _is_map(schema: Schema) -> bool:
    return isinstance(schema.get("additionalProperties"), dict) or "patternProperties" in schema


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def problems(ref: str, value: Any, where: str = "$") -> list[str]:
    """What is wrong with ``value`` as the schema ``ref`` (a path under v1/ with an
    optional ``#/pointer``, as index.json names them): the validation error, or else
    every field no schema names (as paths like ``$.board.idle_turns``); [] when none."""
    name, _, fragment = ref.partition("#")
    try:
        _validator(name, fragment)(value)
    except fastjsonschema.JsonSchemaValueException as error:
        return [f"{where}: {error.message} (schema {ref}, rule {error.rule})"]
    unknown: list[str] = []
    _walk(name, fragment, value, where, unknown)
    return [f"{path}: a field {ref} does not name" for path in unknown]
