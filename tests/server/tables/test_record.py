"""The table record's stored form: everything but the game state, nothing lost."""

from __future__ import annotations

import dataclasses

import msgpack

from tablehub.server.store.redis import _commit_message
from tablehub.server.tables.record import Seat, TableRecord, TableStatus
from tests.server.store.test_contract import new_record


def test_meta_holds_every_field_but_the_state_and_round_trips() -> None:
    record = new_record("meta")
    record = dataclasses.replace(
        record,
        seats=[Seat(name="ann", token_hash="h"), Seat(name="bot 2", bot=True, level="strong")],
        status=TableStatus.FINISHED,
        deadline=123,
        deadline_turn=4,
        version=9,
    )
    meta = record.meta()
    assert set(meta) == {f.name for f in dataclasses.fields(TableRecord)} - {"state", "act_keys"}
    assert set(meta["seats"][0]) == {f.name for f in dataclasses.fields(Seat)}
    decoded = msgpack.unpackb(msgpack.packb(meta), strict_map_key=False)
    assert TableRecord.from_plain({**decoded, "state": record.state}) == record


def test_the_commit_message_is_the_map_of_its_packed_parts() -> None:
    meta = new_record("msg").meta()
    entry = {"v": 1, "k": "act", "seat": 0, "action": {"type": "place"}}
    packed = _commit_message(msgpack.packb(meta), msgpack.packb(entry), msgpack.packb("p-1"))
    assert msgpack.unpackb(packed, strict_map_key=False) == {
        "meta": meta,
        "entry": entry,
        "process": "p-1",
    }
