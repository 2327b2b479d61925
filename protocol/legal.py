"""A ``legal`` reply's actions, in any of its forms (README "Compact legal", "Grid legal",
"Layered grid legal").

The plain reply lists ``actions``; the compact one, from a game that has a compact form,
``groups``: each ``{"fixed": {...}, "fields": [name, ...], "values": [v, ...]}`` stands
for the actions ``fixed`` plus ``fields[i] = values[k * len(fields) + i]``, for k = 0,
1, ...; the grid one, from a game that has a grid form, ``grids``: each ``{"fixed":
{...}, "fields": [f0, f1], "origin": [x0, y0], "width": w, "bits": hex}`` stands for
the actions ``fixed`` plus ``f0 = x0 + i % w``, ``f1 = y0 + i // w`` for every bit ``i``
set in the number ``hex`` writes, in ascending ``i``.  A layered grid may also stack
layers of ``w * height`` bits (``layers``: ``{"field", "values"}``, layer ``k`` giving
its field ``values[k]``, positions counted within the layer) and stand for one action
per bit and per entry of ``each`` (maps added after ``fixed``).  The Python clients, the
load generator and the tests read replies with this.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

PLAIN = "plain"
"""The ``form`` of the ``legal`` reply a request gets when it names none: ``actions``."""
COMPACT = "compact"
"""The ``form`` a ``legal`` request names to ask for the compact reply."""
GRID = "grid"
"""The ``form`` a ``legal`` request names to ask for the grid reply (answered as the
compact ask by a game that has no grid form)."""
LAYERED = "layered"
"""The ``form`` a ``legal`` request names to ask for the layered grid reply (answered as
the grid ask by a game that has no layered form)."""
FORMS = (PLAIN, COMPACT, GRID, LAYERED)
"""Every ``form`` a ``legal`` request may name."""


def expand(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every action the groups of a compact reply stand for, group after group."""
    return [_action(group, k) for group in groups for k in range(_size(group))]


def expand_grids(grids: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every action the grids of a grid or layered reply stand for, grid after grid."""
    return [
        action
        for grid in grids
        for i in _set_bits(int(grid["bits"], 16))
        for action in _at(grid, i)
    ]


def listed_actions(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions of a ``legal`` reply without ``partial``, in any form."""
    grids = reply.get("grids")
    if grids is not None:
        return expand_grids(grids)
    groups = reply.get("groups")
    if groups is not None:
        return expand(groups)
    actions: list[dict[str, Any]] = reply["actions"]
    return actions


def count(reply: dict[str, Any]) -> int:
    """How many actions a ``legal`` reply lists, without expanding them."""
    grids = reply.get("grids")
    if grids is not None:
        return sum(_grid_size(grid, int(grid["bits"], 16)) for grid in grids)
    groups = reply.get("groups")
    if groups is None:
        return len(reply["actions"])
    return sum(_size(group) for group in groups)


def pick(reply: dict[str, Any], index: int) -> dict[str, Any]:
    """Action ``index`` (0 <= index < :func:`count`) of a ``legal`` reply, in the order
    :func:`listed_actions` gives, without expanding the others."""
    grids = reply.get("grids")
    if grids is not None:
        for grid in grids:
            bits = int(grid["bits"], 16)
            size = _grid_size(grid, bits)
            if index < size:
                per_bit = size // bits.bit_count()
                for _ in range(index // per_bit):
                    bits &= bits - 1
                return _at(grid, (bits & -bits).bit_length() - 1)[index % per_bit]
            index -= size
        raise IndexError("no such action in this legal reply")
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


def _set_bits(bits: int) -> Iterator[int]:
    """The positions of the bits set in ``bits``, ascending."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def _grid_size(grid: dict[str, Any], bits: int) -> int:
    """How many actions a grid stands for: a bit is one action per entry of ``each``."""
    return bits.bit_count() * len(_each(grid))


def _each(grid: dict[str, Any]) -> list[dict[str, Any]]:
    """A grid's ``each`` entries; one empty entry for a grid without ``each``.  ValueError
    for an ``each`` that is not a non-empty list (README "Layered grid legal")."""
    each = grid.get("each", [{}])
    if not isinstance(each, list) or not each:
        raise ValueError("a legal grid's each must be a non-empty list of maps")
    return each


def _at(grid: dict[str, Any], i: int) -> list[dict[str, Any]]:
    """The actions of bit ``i`` of a grid: its fixed fields, each entry of ``each`` (or
    none), the position in its layer and the layer's field."""
    (f0, f1), (x0, y0), width = grid["fields"], grid["origin"], grid["width"]
    layers = grid.get("layers")
    place: dict[str, Any]
    if layers is None:
        y, x = divmod(i, width)
        place = {f0: x0 + x, f1: y0 + y}
    else:
        k, j = divmod(i, width * grid["height"])
        values = layers["values"]
        if k >= len(values):
            raise ValueError(f"a legal grid's bits reach past its {len(values)} layers")
        y, x = divmod(j, width)
        place = {f0: x0 + x, f1: y0 + y, layers["field"]: values[k]}
    fixed = grid["fixed"]
    return [{**fixed, **entry, **place} for entry in _each(grid)]
