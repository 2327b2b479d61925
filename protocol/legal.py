"""A ``legal`` reply's actions, in either form (README "Compact legal").

The plain reply lists ``actions``; the compact one, from a game that has a compact form,
``groups``: each ``{"fixed": {...}, "fields": [name, ...], "values": [v, ...]}`` stands
for the actions ``fixed`` plus ``fields[i] = values[k * len(fields) + i]``, for k = 0,
1, ...  The Python clients, the load generator and the tests read replies with this.
"""

from __future__ import annotations

from typing import Any

COMPACT = "compact"
"""The ``form`` a ``legal`` request names to ask for the compact reply."""


def expand(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every action the groups of a compact reply stand for, group after group."""
    return [_action(group, k) for group in groups for k in range(_size(group))]


def listed_actions(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions of a ``legal`` reply without ``partial``, plain or compact."""
    groups = reply.get("groups")
    if groups is not None:
        return expand(groups)
    actions: list[dict[str, Any]] = reply["actions"]
    return actions


def count(reply: dict[str, Any]) -> int:
    """How many actions a ``legal`` reply lists, without expanding them."""
    groups = reply.get("groups")
    if groups is None:
        return len(reply["actions"])
    return sum(_size(group) for group in groups)


def pick(reply: dict[str, Any], index: int) -> dict[str, Any]:
    """Action ``index`` (0 <= index < :func:`count`) of a ``legal`` reply, in the order
    :func:`listed_actions` gives, without expanding the others."""
    groups = reply.get("groups")
    if groups is None:
        action: dict[str, Any] = reply["actions"][index]
        return action
    for group in groups:
        size = _size(group)
        if index < size:
            return _action(group, index)
        index -= size
    raise IndexError("no such action in this legal reply")


def _size(group: dict[str, Any]) -> int:
    """How many actions a group stands for."""
    return len(group["values"]) // len(group["fields"])


def _action(group: dict[str, Any], k: int) -> dict[str, Any]:
    """Action ``k`` of a group: its fixed fields and the k-th run of values."""
    fields = group["fields"]
    values = group["values"][k * len(fields) : (k + 1) * len(fields)]
    return {**group["fixed"], **dict(zip(fields, values, strict=True))}
