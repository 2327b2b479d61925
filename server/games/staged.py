"""Staged ``legal`` (protocol/README.md "Staged legal"): the answer's shape
(:class:`Step`) and :func:`group_step`, which computes it from a game's full list of legal
actions -- the default every game gets, and the reference a game's own fast stepper must
agree with (tests/server/games/test_legal_staged.py)."""

from __future__ import annotations

from typing import Any, TypedDict

JSON = Any
Action = dict[str, Any]


class StepChoice(TypedDict):
    """One choice of a staged ``legal`` answer: the value the next field takes, whether
    the partial action with it is complete (legal as it is) and whether more fields may
    follow it."""

    value: JSON
    complete: bool
    more: bool


class Step(TypedDict):
    """A staged ``legal`` answer (protocol/README.md "Staged legal"): the next field to
    choose (``None`` when nothing extends the partial action), its choices, and whether
    the partial action is itself legal as it is."""

    field: str | None
    choices: list[StepChoice]
    complete: bool


def same(have: JSON, value: JSON) -> bool:
    """``have`` and ``value`` are one JSON value: of the same type and equal, item by
    item in lists and maps -- as ``act`` checks a field (``2.0`` or ``True`` is not the
    integer it equals, fields.py)."""
    if type(have) is not type(value):
        return False
    if type(value) is list:
        return len(have) == len(value) and all(map(same, have, value))
    if type(value) is dict:
        return have.keys() == value.keys() and all(same(have[k], item) for k, item in value.items())
    return bool(have == value)


def extends(action: Action, partial: Action) -> bool:
    """``action`` has every field of ``partial`` with the :func:`same` value; a list field
    of ``partial`` is a prefix of the action's, item by item (lists are chosen one item at
    a time)."""
    for key, value in partial.items():
        if key not in action:
            return False
        have = action[key]
        if type(value) is list:
            if type(have) is not list or len(have) < len(value):
                return False
            if not all(map(same, have, value)):
                return False
        elif not same(have, value):
            return False
    return True


def next_field(action: Action, partial: Action) -> str | None:
    """The first field (in the action's own order) where ``action`` goes beyond
    ``partial``, which it extends: a field ``partial`` lacks, or a longer list."""
    for key, value in action.items():
        if key not in partial:
            return key
        if isinstance(value, list) and len(value) > len(partial[key]):
            return key
    return None


def _key(value: JSON) -> object:
    if isinstance(value, list):
        return tuple(_key(item) for item in value)
    return (type(value), value)


def group_step(actions: list[Action], partial: Action) -> Step:
    """The staged answer for ``partial`` computed from the full list ``actions``: the
    first action extending it (:func:`extends`: values matched by type and value, as
    ``act`` checks them) names the next field; choices keep the list's order."""
    if any(type(value) is list or type(value) is dict for value in partial.values()):
        return _group_lists(actions, partial)
    # No list chosen yet (most asks), every field a scalar: an action extends ``partial``
    # when it has each of its fields of the same type and equal (``same`` for a scalar),
    # and its next field is its first field not in ``partial``.
    field_name: str | None = None
    complete = False
    choices: dict[object, StepChoice] = {}
    chosen = [(key, value, type(value)) for key, value in partial.items()]
    size = len(partial)
    for action in actions:
        for key, value, kind in chosen:
            have = action.get(key, _MISSING)
            if type(have) is not kind or have != value:
                break
        else:
            if len(action) == size:
                complete = True
                continue
            name = next(key for key in action if key not in partial)
            if field_name is None:
                field_name = name
            elif name != field_name:
                raise ValueError(f"actions extending {partial} disagree on the next field")
            value = action[name]
            more = len(action) > size + 1
            if isinstance(value, list):
                more = more or len(value) > 1
                value = value[:1]
            grouped = _key(value)
            choice = choices.get(grouped)
            if choice is None:
                choice = choices[grouped] = {"value": value, "complete": False, "more": False}
            if more:
                choice["more"] = True
            else:
                choice["complete"] = True
    return {"field": field_name, "choices": list(choices.values()), "complete": complete}


_MISSING = object()


def _group_lists(actions: list[Action], partial: Action) -> Step:
    """:func:`group_step` for a partial action with a list field chosen in part (or a
    map given as a field's value)."""
    field_name: str | None = None
    complete = False
    choices: dict[object, StepChoice] = {}
    for action in actions:
        if not extends(action, partial):
            continue
        name = next_field(action, partial)
        if name is None:
            complete = True
            continue
        if field_name is None:
            field_name = name
        elif name != field_name:
            raise ValueError(f"actions extending {partial} disagree on the next field")
        have = action[name]
        value = have[: len(partial.get(name, [])) + 1] if isinstance(have, list) else have
        choice = choices.setdefault(_key(value), {"value": value, "complete": False, "more": False})
        if next_field(action, {**partial, name: value}) is None:
            choice["complete"] = True
        else:
            choice["more"] = True
    return {"field": field_name, "choices": list(choices.values()), "complete": complete}
