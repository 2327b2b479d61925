"""Game records (server/tables/gamerecord.py): built from a table's log, they hold the
hash every audience's live view had at every version, and they verify; one altered
action fails at its version.

Tables are played through the real table core and a real ``TableFeed`` with one
subscriber per audience (every seat and the spectators), flushed after every commit,
so the hashes compared are those the feed sent in its snapshots and patches."""

from __future__ import annotations

import asyncio
import copy
import json
import random
from typing import Any

import jsonpatch
import pytest

from tablehub.protocol import Frames
from tablehub.protocol.codec import index
from tablehub.protocol.viewhash import view_hash
from tablehub.server.games import get_game
from tablehub.server.hub.replays import replay_page
from tablehub.server.tables.core import AddBot, BotMove, DeadlinePassed, Join, Table, handle
from tablehub.server.tables.feed import TableFeed
from tablehub.server.tables.gamerecord import (
    GENESIS,
    RecordError,
    build,
    link,
    steps,
    verify,
)
from tablehub.server.tables.record import LogEntry, Seat, TableRecord, TableStatus, as_created
from tests.server.games.completto.test_playout import leak_check as completto_leak_check

NOW = 1_700_000_000_000


class Client:
    """One audience's client: applies snapshots and patches, remembers each version's hash."""

    def __init__(self, ident: int) -> None:
        self.id = ident
        self.view: Any = None
        self.hashes: dict[int, str] = {}

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        msg = frames.msg
        if kind == "snapshot":
            self.view = msg["view"]
            self.hashes[msg["version"]] = msg["hash"]
        elif kind == "patch":
            self.view = jsonpatch.apply_patch(self.view, msg["ops"])
            assert view_hash(self.view) == msg["hash"]
            self.hashes[msg["to"]] = msg["hash"]


class Played:
    def __init__(self, record: TableRecord, log: list[LogEntry], clients: dict[Any, Client]):
        self.record = record
        self.log = log
        self.clients = clients


def play(game_id: str, seats: int, seed: int, deadlines: bool = False) -> Played:
    """One table to the end: people at seat 0 and every other seat by turns, bots else;
    moves by the bot or, with ``deadlines``, sometimes by a passed deadline."""

    async def go() -> Played:
        game = get_game(game_id)
        assert game is not None
        options = game.validate_options({})
        record = TableRecord(
            table=f"t{seed}",
            game=game_id,
            options=options,
            turn_ms=5000 if deadlines else None,
            seed=seed,
            seats=[Seat() for _ in range(seats)],
            state=game.setup(options, seats, seed),
            created_ms=NOW,
            updated_ms=NOW,
        )
        table = Table.of(record)
        feed = TableFeed(record)
        clients: dict[Any, Client] = {}
        for n, audience in enumerate([None, *range(seats)]):
            clients[audience] = Client(n)
            feed.subscribe(clients[audience], audience)
        log: list[LogEntry] = []
        now = NOW
        rng = random.Random(seed)

        def run(command: Any) -> None:
            nonlocal table, now
            now += 1000
            decision = handle(table, command, now)
            for commit in decision.commits:
                feed.on_commit(commit.record, commit.entry, commit.events, commit.status)
                feed.flush()
                log.append(commit.entry)
                table = commit.table

        for seat in range(seats):
            run(Join(f"p{seat}", seat, None) if seat % 2 == 0 else AddBot(seat, None))
        for _ in range(5000):
            if table.record.status is not TableStatus.PLAYING:
                break
            if deadlines and rng.random() < 0.2 and table.record.deadline_turn is not None:
                run(DeadlinePassed(table.record.deadline_turn))
            else:
                run(BotMove(rng.choice(table.status["to_act"]), None))
        assert table.record.status is TableStatus.FINISHED
        return Played(table.record, log, clients)

    return asyncio.run(go())


def seat_counts(game_id: str) -> list[int]:
    game = get_game(game_id)
    assert game is not None
    return list(range(game.min_players, min(game.max_players, 4) + 1))


CASES = [(g, n) for g in sorted(index()["games"]) for n in seat_counts(g)]


@pytest.mark.slow  # playouts of every game at every seat count
@pytest.mark.parametrize(("game_id", "seats"), CASES)
def test_a_record_holds_every_live_view_hash_and_verifies(game_id: str, seats: int) -> None:
    played = play(game_id, seats, seed=seats * 7 + 1, deadlines=seats % 2 == 1)
    doc = build(played.record, played.log)
    doc = json.loads(json.dumps(doc))  # as a file holds it
    assert [e["version"] for e in doc["entries"]] == list(range(1, played.record.version + 1))
    for entry in doc["entries"]:
        version = entry["version"]
        assert entry["hashes"]["spectators"] == played.clients[None].hashes[version]
        for seat in range(seats):
            assert entry["hashes"]["seats"][seat] == played.clients[seat].hashes[version]
    assert doc["result"] == played.record.result and doc["result"] is not None
    assert verify(doc) == played.record.version


def _acts(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in doc["entries"] if e["kind"] == "act"]


@pytest.mark.parametrize("game_id", sorted(index()["games"]))
def test_one_altered_action_fails_at_its_version(game_id: str) -> None:
    """The action halfway through replaced by another the same seat could have made."""
    game = get_game(game_id)
    assert game is not None
    played = play(game_id, max(2, game.min_players), seed=5)
    doc = json.loads(json.dumps(build(played.record, played.log)))
    target = _acts(doc)[len(_acts(doc)) // 2]
    before = next(
        s
        for s in steps(as_created(played.record), played.log)
        if s.version == target["version"] - 1
    )
    others = [
        a for a in game.legal_actions(before.record.state, target["seat"]) if a != target["action"]
    ]
    target["action"] = others[0] if others else {"type": "resign"}
    with pytest.raises(RecordError) as failed:
        verify(doc)
    assert failed.value.version == target["version"]


def test_an_action_edited_with_its_chain_recomputed_fails_on_the_views() -> None:
    """Editing an action and recomputing the chain: the recomputed views give it away."""
    played = play("brix", 2, seed=11)
    doc = json.loads(json.dumps(build(played.record, played.log)))
    target = _acts(doc)[3]
    target["action"] = {"type": "resign"}
    chain = link(GENESIS, {"version": 0, "hashes": doc["start"]["hashes"]})
    for entry in doc["entries"]:
        chain = entry["chain"] = link(chain, entry)
    with pytest.raises(RecordError) as failed:
        verify(doc)
    assert failed.value.version == target["version"]
    assert "view" in failed.value.message


def test_a_dropped_or_reordered_entry_fails() -> None:
    played = play("completto", 2, seed=3)
    doc = json.loads(json.dumps(build(played.record, played.log)))
    dropped = copy.deepcopy(doc)
    del dropped["entries"][10]
    with pytest.raises(RecordError) as failed:
        verify(dropped)
    assert failed.value.version == 11
    swapped = copy.deepcopy(doc)
    swapped["entries"][20], swapped["entries"][21] = swapped["entries"][21], swapped["entries"][20]
    with pytest.raises(RecordError) as failed:
        verify(swapped)
    assert failed.value.version == 21


@pytest.mark.slow  # playouts of every game at every seat count
@pytest.mark.parametrize(("game_id", "seats"), CASES)
def test_a_replay_shows_every_audience_its_live_views(game_id: str, seats: int) -> None:
    """The ``replay`` pages (hub/replays.py), read as a client reads them, hash to what
    the live feed sent each audience at every version; a number row's replays pass its
    secrecy checks at every version."""
    played = play(game_id, seats, seed=seats * 5 + 2)
    states = {s.version: s.record.state for s in steps(as_created(played.record), played.log)}
    for audience, client in played.clients.items():
        first, view = 0, None
        while True:
            page = replay_page(played.record, played.log, audience, first)
            view = page["start"]["view"]
            assert view_hash(view) == client.hashes[first]
            for move in page["moves"]:
                view = jsonpatch.apply_patch(view, move["ops"])
                assert view_hash(view) == move["hash"] == client.hashes[move["version"]]
                if game_id == "completto":
                    completto_leak_check(states[move["version"]], view["board"], audience)
            first = page["moves"][-1]["version"] if page["moves"] else first
            if first >= played.record.version:
                break


def test_junk_in_a_record_is_refused_in_words_and_another_seed_fails() -> None:
    played = play("completto", 2, seed=6)
    doc = json.loads(json.dumps(build(played.record, played.log)))
    junk = copy.deepcopy(doc)
    target = _acts(junk)[2]
    target["action"] = {"type": "place", "pos": "left"}
    with pytest.raises(RecordError) as failed:
        verify(junk)
    assert failed.value.version == target["version"]
    assert "not an action of this game" in failed.value.message
    reseeded = copy.deepcopy(doc)
    reseeded["seed"] += 1
    with pytest.raises(RecordError):
        verify(reseeded)
    assert verify(doc) == played.record.version
