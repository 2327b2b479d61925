"""protocol/v1/games/game_record.json describes the game records the server builds, field for field
(tests/protocol/strict_schema.py), for every game."""

from __future__ import annotations

import json

import pytest

from tablehub.protocol.codec import index
from tablehub.server.tables.gamerecord import build
from tests.protocol.strict_schema import problems
from tests.server.tables.test_gamerecord import play


@pytest.mark.parametrize("game_id", sorted(index()["games"]))
def test_a_record_fits_its_schema(game_id: str) -> None:
    played = play(game_id, 2 if game_id != "termite" else 1, seed=2, deadlines=True)
    doc = json.loads(json.dumps(build(played.record, played.log)))
    assert problems(index()["game_record"], doc) == []
    kinds = {e["kind"] for e in doc["entries"]}
    assert kinds == {"seat", "act"}
    assert {e["by"] for e in doc["entries"] if e["kind"] == "act"} >= {"bot"}
