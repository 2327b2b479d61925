"""The outbound queue: replies first, the latest lobby, then pushes in version order;
bounded, with a fresh snapshot instead of a slow reader's backlog."""

from __future__ import annotations

import json
from typing import Any

from tablehub.protocol import SUBPROTOCOLS, Frames
from tablehub.server.config import Limits
from tablehub.server.sessions.outbox import Outbox

JSON = SUBPROTOCOLS["tablehub.v1.json"]


def patch(table: str, start: int, end: int) -> Frames:
    return Frames({"t": "patch", "table": table, "from": start, "to": end, "ops": [], "hash": ""})


def snapshot(table: str, version: int) -> Frames:
    return Frames({"t": "snapshot", "table": table, "version": version, "view": {}, "hash": ""})


def drain(out: Outbox) -> list[dict[str, Any]]:
    frames = []
    while out.pending:
        frame = out.take(fresh)
        if frame is not None:
            frames.append(json.loads(frame))
    return frames


def fresh(table: str) -> tuple[int, Frames]:
    return 9, snapshot(table, 9)


def test_replies_go_first_then_the_latest_lobby_then_pushes_in_order() -> None:
    out = Outbox(JSON, Limits())
    out.follow("T")
    out.push("T", 1, snapshot("T", 1), "snapshot")
    out.lobby(Frames({"t": "tables", "tables": ["old"]}))
    out.push("T", 2, patch("T", 1, 2), "patch")
    out.control(JSON.encode({"t": "ok", "id": 1}))
    out.lobby(Frames({"t": "tables", "tables": ["new"]}))
    got = drain(out)
    assert [m["t"] for m in got] == ["ok", "tables", "snapshot", "patch"]
    assert got[1]["tables"] == ["new"]


def test_a_patch_not_from_the_version_written_is_skipped() -> None:
    out = Outbox(JSON, Limits())
    out.follow("T", written=3)
    out.push("T", 2, patch("T", 1, 2), "patch")  # covered by what the client has
    out.push("T", 4, patch("T", 3, 4), "patch")
    assert [(m["from"], m["to"]) for m in drain(out)] == [(3, 4)]


def test_an_overflow_replaces_the_backlog_with_one_fresh_snapshot_per_table() -> None:
    out = Outbox(JSON, Limits(outbound_queue=4))
    out.follow("T")
    out.follow("U")
    out.push("T", 1, snapshot("T", 1), "snapshot")
    out.closed("V", Frames({"t": "table_closed", "table": "V", "reason": "gone"}))
    for version in range(2, 9):
        assert out.push("T", version, patch("T", version - 1, version), "patch")
    got = drain(out)
    kinds = [(m["t"], m.get("table")) for m in got]
    assert ("table_closed", "V") in kinds  # a close notice is never dropped
    snapshots = [m for m in got if m["t"] == "snapshot"]
    assert {m["table"] for m in snapshots} == {"T", "U"}
    assert all(m["version"] == 9 for m in snapshots)
    assert out.pushes_queued == 0


def test_a_reader_that_overflows_too_often_is_refused() -> None:
    limits = Limits(outbound_queue=1, max_overflows_per_minute=2)
    out = Outbox(JSON, limits)
    out.follow("T")
    results = [out.push("T", v, patch("T", v - 1, v), "patch") for v in range(1, 10)]
    assert results[:3] == [True, True, True] and results[-1] is False


def test_replies_are_bounded() -> None:
    out = Outbox(JSON, Limits(control_queue=2))
    assert out.control("1") and out.control("2")
    assert not out.control("3")


def test_under_batching_everything_pending_is_one_frame() -> None:
    out = Outbox(JSON, Limits())
    out.batching = True
    for request_id in range(3):
        out.control(JSON.encode({"t": "ok", "id": request_id}))
    assert drain(out) == [{"t": "batch", "m": [{"t": "ok", "id": i} for i in range(3)]}]


def test_unfollowed_tables_get_nothing_more() -> None:
    out = Outbox(JSON, Limits())
    out.follow("T")
    out.push("T", 1, snapshot("T", 1), "snapshot")
    out.unfollow("T")
    assert drain(out) == []
